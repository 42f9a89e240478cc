// The DirectDraw Surface (.dds) BattleForge keeps its textures in: the material's `_col`, `_nor` and
// `_par` maps are DDS files beside the model (battleforge_drs.md §7, "Names are DDS files in the
// model's folder"). No format note covers DDS itself: the layout is Microsoft's "DDS_HEADER" and
// "DDS_PIXELFORMAT" reference pages (Direct3D 9 programming guide), all little-endian.
#pragma once

#include <cstdint>

namespace rigport::battleforge {

constexpr uint32_t kDdsMagic = 0x20534444;  // "DDS "
constexpr uint32_t kDdsHeaderSize = 124;    // DDS_HEADER.dwSize, the header after the magic
constexpr uint32_t kDdsPixelFormatSize = 32;

// DDS_HEADER.dwFlags: the mip count field is valid only with DDSD_MIPMAPCOUNT.
constexpr uint32_t kDdsdMipMapCount = 0x20000;
// DDS_HEADER.dwCaps2: cube maps and volumes hold more than one 2D image.
constexpr uint32_t kDdsCaps2CubeMap = 0x200;
constexpr uint32_t kDdsCaps2Volume = 0x200000;

// DDS_PIXELFORMAT.dwFlags.
enum DdsPixelFlag : uint32_t {
  kDdpfAlphaPixels = 0x1,   // the alpha mask is valid
  kDdpfFourCc = 0x4,        // compressed: dwFourCC names the format
  kDdpfRgb = 0x40,          // uncompressed: the bit count and masks describe it
  kDdpfLuminance = 0x20000, // one luminance channel in the red mask
};

constexpr uint32_t kFourCcDxt1 = 0x31545844;  // "DXT1"
constexpr uint32_t kFourCcDxt3 = 0x33545844;
constexpr uint32_t kFourCcDxt5 = 0x35545844;

struct DdsPixelFormat {
  uint32_t size = 0;
  uint32_t flags = 0;
  uint32_t fourCc = 0;
  uint32_t rgbBitCount = 0;
  uint32_t rMask = 0, gMask = 0, bMask = 0, aMask = 0;
};

// DDS_HEADER, the fields a 2D texture needs (dwReserved1[11] and dwCaps3/4 are skipped).
struct DdsHeader {
  uint32_t size = 0;
  uint32_t flags = 0;
  uint32_t height = 0;
  uint32_t width = 0;
  uint32_t pitchOrLinearSize = 0;
  uint32_t depth = 0;
  uint32_t mipMapCount = 0;
  DdsPixelFormat pixelFormat;
  uint32_t caps = 0;
  uint32_t caps2 = 0;
};

// Where the fields sit in the file (after the 4-byte magic), for errors about values read before.
constexpr size_t kAtSize = 4, kAtHeight = 12, kAtWidth = 16, kAtMipMapCount = 28, kAtPixelFormat = 76;
constexpr size_t kAtFourCc = 84, kAtCaps2 = 112;
constexpr size_t kDdsDataStart = 4 + kDdsHeaderSize;

}  // namespace rigport::battleforge
