#include "render/quad_pattern.hpp"

#include <bit>

#include <squish.h>

namespace rigport::test::render {

Quadrants colourPattern(bool partialAlpha) {
  return {Rgba{255, 0, 0, 255}, Rgba{0, 255, 0, 255}, Rgba{0, 0, 255, 255}, Rgba{255, 255, 255, uint8_t(partialAlpha ? 0x88 : 255)}};
}

Quadrants greyPattern(bool alphaIsIntensity, bool partialAlpha) {
  Quadrants q{};
  const uint8_t greys[4] = {255, 187, 119, 68};
  for (size_t i = 0; i < 4; ++i) q[i] = {greys[i], greys[i], greys[i], alphaIsIntensity ? greys[i] : uint8_t(255)};
  if (partialAlpha) q[3][3] = 0x88;
  return q;
}

uint8_t quantise(uint8_t v, int bits) {
  if (bits == 0) return 255;
  const uint32_t top = (1u << bits) - 1, level = (v * top + 127) / 255;
  uint32_t out = 0;
  for (int shift = 8 - bits; shift > -bits; shift -= bits) out |= shift >= 0 ? level << shift : level >> -shift;
  return static_cast<uint8_t>(out & 0xFF);
}

Rgba quantised(const Rgba& c, Depth d) { return {quantise(c[0], d.r), quantise(c[1], d.g), quantise(c[2], d.b), quantise(c[3], d.a)}; }

Quadrants quantised(const Quadrants& q, Depth d) {
  Quadrants out = q;
  for (Rgba& c : out) c = quantised(c, d);
  return out;
}

std::vector<uint8_t> pixels(const Quadrants& q) {
  std::vector<uint8_t> rgba;
  for (uint32_t y = 0; y < kSide; ++y)
    for (uint32_t x = 0; x < kSide; ++x) rgba.insert(rgba.end(), q[quadrantOf(x, y)].begin(), q[quadrantOf(x, y)].end());
  return rgba;
}

namespace {

uint32_t field(uint8_t v, uint32_t mask) {
  if (mask == 0) return 0;
  const int bits = std::popcount(mask), shift = std::countr_zero(mask);
  return (((v * ((1u << bits) - 1) + 127) / 255) << shift) & mask;
}

}  // namespace

std::vector<uint8_t> packMasked(const Quadrants& q, Masks m, size_t bytes) {
  std::vector<uint8_t> out;
  for (uint32_t y = 0; y < kSide; ++y) {
    for (uint32_t x = 0; x < kSide; ++x) {
      const Rgba& c = q[quadrantOf(x, y)];
      const uint32_t word = field(c[0], m.r) | field(c[1], m.g) | field(c[2], m.b) | field(c[3], m.a);
      for (size_t i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(word >> (8 * i)));
    }
  }
  return out;
}

Depth depthOf(Masks m) {
  return {std::popcount(m.r), std::popcount(m.g), std::popcount(m.b), std::popcount(m.a)};
}

std::vector<uint8_t> dxt(const Quadrants& q, int squishFlags) {
  std::vector<uint8_t> rgba = pixels(q);
  std::vector<uint8_t> blocks(static_cast<size_t>(squish::GetStorageRequirements(kSide, kSide, squishFlags)));
  squish::CompressImage(rgba.data(), kSide, kSide, blocks.data(), squishFlags);
  return blocks;
}

}  // namespace rigport::test::render
