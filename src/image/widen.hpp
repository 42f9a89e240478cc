// An n-bit colour channel widened to 8 bits by repeating its bits: the rule libsquish applies to
// DXT's 565 end points (DirectXTex to 565 and 1555, Dolphin to GX's Convert3To8 .. Convert6To8), so
// a 565 raster, a DXT1 one and a GX texture of the same colours decode alike. It differs by one from
// round(v x 255 / (2^n - 1)) for a few values (5 bits: 3, 7, 24, 28), and from librw's
// floor(v x 255 / (2^n - 1)) for more.
#pragma once

#include <cstdint>

namespace rigport::image {

constexpr uint8_t widen3(uint32_t v) { return static_cast<uint8_t>((v << 5) | (v << 2) | (v >> 1)); }
constexpr uint8_t widen4(uint32_t v) { return static_cast<uint8_t>((v << 4) | v); }
constexpr uint8_t widen5(uint32_t v) { return static_cast<uint8_t>((v << 3) | (v >> 2)); }
constexpr uint8_t widen6(uint32_t v) { return static_cast<uint8_t>((v << 2) | (v >> 4)); }

}  // namespace rigport::image
