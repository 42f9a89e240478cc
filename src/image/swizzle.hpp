// The PS3's "swizzled" texel order (RSX textures without CELL_GCM_TEXTURE_LN): Morton (Z) order, as
// RPCS3 decodes it (rpcs3/Emu/RSX/rsx_utils.h, convert_linear_swizzle: "what the ps3 calls swizzling
// ... is actually z-ordering / morton ordering of pixels") and qemu's nv2a swizzle (hw/xbox/swizzle.c,
// the same NVIDIA rule): the bits of x and y interleave from bit 0, x first, while each has bits
// left; the larger side's remaining bits come last. The RSX swizzles only power-of-two sides.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace rigport::image {

constexpr bool isPowerOfTwo(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Where texel (x, y) of a (1 << log2Width) x (1 << log2Height) level lies in Morton order.
uint64_t mortonIndex(uint32_t x, uint32_t y, uint32_t log2Width, uint32_t log2Height);

// `stored` holds width x height texels of `texelBytes` bytes each in Morton order; the result holds
// them row by row. width and height must be powers of two and `stored` at least that many texels
// (the caller checks both against the file).
std::vector<uint8_t> unswizzleMorton(std::span<const uint8_t> stored, uint32_t width, uint32_t height, size_t texelBytes);

}  // namespace rigport::image
