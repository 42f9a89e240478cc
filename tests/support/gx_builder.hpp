// GX texture encoding for tests (rigport writes no GX textures): each pixel's stored bits placed in
// GX's tile order (Dolphin's TextureDecoder layouts, sluggers.md §5), and a Sluggers TEX section of
// such textures, so tests can decode what they encoded by their own code.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace rigport::test {

// The stored value of each pixel (row-major, width x height) of a GX format of 4, 8 or 16 bits a
// pixel, placed tile by tile: I4/C4 8x8 tiles (high nibble first), I8/IA4/C8 8x4, IA8/RGB565/
// RGB5A3/C14X2 4x4 (big-endian). Pixels beyond the image in its last tiles are 0.
std::vector<uint8_t> gxTiles(uint8_t format, uint32_t width, uint32_t height, const std::vector<uint32_t>& values);
// RGBA8 (format 6): 4x4 tiles of 64 bytes, the A,R pairs of the 16 pixels, then their G,B pairs.
std::vector<uint8_t> gxRgba8(uint32_t width, uint32_t height, const std::vector<std::array<uint8_t, 4>>& rgba);

// One CMPR 4x4 sub-block: big-endian RGB565 end points and a 2-bit index per pixel (row-major).
struct CmprBlock {
  uint16_t c0 = 0, c1 = 0;
  std::array<uint8_t, 16> index{};
};
// CMPR (format 14): 8x8 tiles of four sub-blocks, top-left, top-right, bottom-left, bottom-right;
// `blocks` are the image's 4x4 blocks row-major ((width / 4) a row).
std::vector<uint8_t> gxCmpr(uint32_t width, uint32_t height, const std::vector<CmprBlock>& blocks);

struct TexEntry {
  uint8_t format = 0;
  uint16_t width = 0, height = 0;
  std::vector<uint8_t> image;
  std::vector<uint16_t> palette;  // stored entries; empty: no palette (pointer 0)
  uint8_t paletteFormat = 0;
  int paletteEntries = -1;        // -1: palette.size()
};
// A TEX section (sluggers.md §5): u16 textureCount, u16 clutCount, 0x20-byte descriptors, then every
// image and palette payload on a 32-byte boundary, pointers relative to the section.
std::vector<uint8_t> writeTex(const std::vector<TexEntry>& textures);
// `block` with `tex` appended on a 32-byte boundary and the header's TEX pointer (0x0C) set to it.
std::vector<uint8_t> withTex(std::vector<uint8_t> block, const std::vector<uint8_t>& tex);

}  // namespace rigport::test
