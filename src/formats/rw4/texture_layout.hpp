// RenderWare 4 texture objects: Skate's PS3 Texture 0x000200E8 (rw4_arena.md §3.2: a CellGcmTexture-
// style block, ArenaTest `TextureInformationPS3`), Spore's PC Raster 0x00020003 (§2.5 names the type;
// the layout is SporeModder-FX's `RWRaster.java`), and the TableOfContents entries (§4.3) that name
// them. Each texture's pixels are one BaseResource, every mip level back to back.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rigport::rw4 {

constexpr uint32_t kTexture = 0x000200E8;  // §2.5 TEXTURE (Skate, renderengine family)
constexpr uint32_t kRaster = 0x00020003;   // §2.5 RASTER (Spore, old family)

// §3.2 Texture on PS3, 0x28 bytes, big-endian. Offsets checked on the public texture PSGs: a file of
// one texture has {fmt 0x88, 10 mips, dimension 2, remap 0xAAE4, 512 x 512, depth 1, pitch 2048,
// offset 0, buffer 0} and its pixels in row 0; a file of 19 textures names rows 0, 2, 4 ... 36 at
// +0x18, each a BaseResource 0x10034 of exactly the mip chain's size.
namespace ps3texture {
constexpr size_t kFormat = 0x00;     // u8 CellGcm texture format (below)
constexpr size_t kMipmap = 0x01;     // u8 number of mip levels (1-13)
constexpr size_t kDimension = 0x02;  // u8, 2 for a 2D texture
constexpr size_t kCubemap = 0x03;    // u8, non-zero for a cube map (six faces)
// 0x04 u32 remap: the channel remap, 0xAAE4 (each channel from itself) in every sample; not applied
constexpr size_t kWidth = 0x08;      // u16
constexpr size_t kHeight = 0x0A;     // u16
// 0x0C u16 depth (1), u8 location, u8 pad
constexpr size_t kPitch = 0x10;      // u32 bytes per row of a linear texture (the DXT block row for DXT)
// 0x14 u32 offset (0 in every sample)
constexpr size_t kBuffer = 0x18;     // u32 dictionary row of the BaseResource holding the pixels
constexpr size_t kSize = 0x28;
constexpr uint8_t kDimension2D = 2;
}  // namespace ps3texture

// CellGcm texture format byte (RPCS3 rpcs3/Emu/RSX/gcm_enums.h): a base format, plus LN (texels
// stored row by row; without it the RSX stores them swizzled, image/swizzle.hpp) and UN
// (unnormalised coordinates, no matter for the pixels). DXT blocks are stored in rows of blocks
// with or without LN (RPCS3 and the public GTF decoders never unswizzle them; the public texture
// PSGs, 0x86 and 0x88 without LN, decode to whole pictures so).
constexpr uint8_t kGcmLinear = 0x20;
constexpr uint8_t kGcmUnnormalised = 0x40;
enum GcmTextureFormat : uint8_t {
  kGcmA8R8G8B8 = 0x85,
  kGcmDxt1 = 0x86,
  kGcmDxt23 = 0x87,
  kGcmDxt45 = 0x88,
  kGcmD8R8G8B8 = 0x9E,
};

// Spore's Raster on PC, 0x20 bytes, little-endian (SporeModder-FX RWRaster.read).
namespace raster {
constexpr size_t kTextureFormat = 0x00;  // u32 D3DFORMAT (a FourCC for DXT)
constexpr size_t kWidth = 0x0C;          // u16
constexpr size_t kHeight = 0x0E;         // u16
constexpr size_t kMipmapLevels = 0x11;   // u8
constexpr size_t kTextureData = 0x1C;    // u32 dictionary row of the BaseResource holding the pixels
constexpr size_t kSize = 0x20;
}  // namespace raster

// D3DFORMAT values a Raster stores.
enum RasterFormat : uint32_t {
  kD3dA8R8G8B8 = 21,
  kD3dX8R8G8B8 = 22,
  kD3dDxt1 = 0x31545844,  // "DXT1"
  kD3dDxt3 = 0x33545844,
  kD3dDxt5 = 0x35545844,
};

// §4.3 TableOfContents: {u32 count, m_pArray, m_pNames, m_uiTypeCount, m_pTypeMap}, then 24-byte
// entries {u32 name, u32 pad, u64 GUID, u32 typeHash, u32 objectRef}. VERIFIED on the public texture
// PSGs: `name` is an offset from the TOC's start (not from m_pNames; the first entry's equals
// m_pNames) of "0x<guid>.Texture", and objectRef the dictionary row of the Texture.
namespace toc {
constexpr size_t kEntrySize = 0x18;
}  // namespace toc

}  // namespace rigport::rw4
