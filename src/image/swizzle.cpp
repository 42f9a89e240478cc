#include "image/swizzle.hpp"

#include <algorithm>
#include <bit>

namespace rigport::image {

uint64_t mortonIndex(uint32_t x, uint32_t y, uint32_t log2Width, uint32_t log2Height) {
  uint64_t index = 0;
  uint32_t bit = 0;
  for (uint32_t i = 0; i < std::max(log2Width, log2Height); ++i) {
    if (i < log2Width) index |= uint64_t{(x >> i) & 1u} << bit++;
    if (i < log2Height) index |= uint64_t{(y >> i) & 1u} << bit++;
  }
  return index;
}

std::vector<uint8_t> unswizzleMorton(std::span<const uint8_t> stored, uint32_t width, uint32_t height, size_t texelBytes) {
  const auto log2Width = static_cast<uint32_t>(std::countr_zero(width));
  const auto log2Height = static_cast<uint32_t>(std::countr_zero(height));
  // x's and y's bits land on disjoint bits of the index, so each side's share is looked up once.
  std::vector<uint64_t> column(width), row(height);
  for (uint32_t x = 0; x < width; ++x) column[x] = mortonIndex(x, 0, log2Width, log2Height);
  for (uint32_t y = 0; y < height; ++y) row[y] = mortonIndex(0, y, log2Width, log2Height);
  std::vector<uint8_t> linear(size_t{width} * height * texelBytes);
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      const uint8_t* from = stored.data() + (column[x] | row[y]) * texelBytes;
      std::copy_n(from, texelBytes, linear.data() + (size_t{y} * width + x) * texelBytes);
    }
  }
  return linear;
}

}  // namespace rigport::image
