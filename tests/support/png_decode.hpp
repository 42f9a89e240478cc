// PNGs the exporter wrote, read back with libpng's own simplified reader (independent of the
// encoder's settings), for the texture tests.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace rigport::test {

// `png` as RGBA8 rows; empty when libpng refuses it. Fills width and height when given.
std::vector<uint8_t> decodePng(std::span<const uint8_t> png, uint32_t* width = nullptr, uint32_t* height = nullptr);

}  // namespace rigport::test
