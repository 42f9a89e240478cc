// The picture the three.js texture check (tools/texture_render_test.mjs) looks for: a 16x16 texture
// of four flat quadrants, each pixel format's stored bits written by the tests' own rules, and the
// RGBA each quadrant must decode to. Quadrants are 8x8, so they fill whole DXT blocks and GX tiles:
// a quadrant's colour never mixes with its neighbours' in any codec, and the colours are ones each
// format stores exactly (the expected colour is the pattern's, put through the format's bit depth).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rigport::test::render {

using Rgba = std::array<uint8_t, 4>;
constexpr uint32_t kSide = 16;

// Top-left, top-right, bottom-left, bottom-right, as the image's rows run top to bottom.
using Quadrants = std::array<Rgba, 4>;

// The quadrant of pixel (x, y).
constexpr size_t quadrantOf(uint32_t x, uint32_t y) { return (y >= kSide / 2 ? 2 : 0) + (x >= kSide / 2 ? 1 : 0); }

// Red, green, blue and white: white has alpha 0x88 where the format stores alpha in 3 bits or more
// (a half-transparent quadrant the alpha pass must find), else 255.
Quadrants colourPattern(bool partialAlpha);
// Four greys (255, 187, 119, 68: multiples of 17, exact in 4 bits); `alphaIsIntensity` gives each the
// alpha of its grey (GX I4 and I8), `partialAlpha` the last one 0x88 (IA4, IA8).
Quadrants greyPattern(bool alphaIsIntensity, bool partialAlpha);

// Bits a format keeps of each channel (0: not stored; alpha then reads 255).
struct Depth {
  int r = 8, g = 8, b = 8, a = 8;
};
// An 8-bit value through `bits` bits and back: rounded to the nearest level, widened by bit
// replication (the image room's rule, image/decode.cpp).
uint8_t quantise(uint8_t v, int bits);
Rgba quantised(const Rgba& c, Depth d);
Quadrants quantised(const Quadrants& q, Depth d);

// The pattern's RGBA pixels, row-major.
std::vector<uint8_t> pixels(const Quadrants& q);
// The pixels as the stored words of a masked layout (DDS_PIXELFORMAT masks; a RenderWare D3D
// raster), `bytes` little-endian bytes a pixel. A grey layout (L8) stores red in `r`.
struct Masks {
  uint32_t r = 0, g = 0, b = 0, a = 0;
};
std::vector<uint8_t> packMasked(const Quadrants& q, Masks m, size_t bytes);
Depth depthOf(Masks m);

// libsquish's BC1-BC3 blocks of the pattern (squish::kDxt1, kDxt3 or kDxt5).
std::vector<uint8_t> dxt(const Quadrants& q, int squishFlags);

}  // namespace rigport::test::render
