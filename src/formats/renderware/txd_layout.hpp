// The RenderWare texture dictionary (.txd): a Texture Dictionary chunk (0x16) holding a Struct
// {u16 numTextures, u16 deviceId}, numTextures Texture Native chunks (0x15) and an Extension. No
// format note covers it yet; the layout is librw's (src/d3d/d3d8.cpp and d3d9.cpp, readNativeTexture;
// src/texture.cpp, TexDictionary::streamRead) and the GTAMods wiki's "Texture Native Struct".
#pragma once

#include <cstdint>
#include <string>

namespace rigport::renderware {

enum TxdChunk : uint32_t {
  kTextureNative = 0x15,
  kTextureDictionary = 0x16,
};

// A texture native's platform word. PC rasters are D3D8 (GTA III/VC) and D3D9 (SA); the consoles'
// are swizzled or packed differently and stay unsupported until a sample exists.
enum TexturePlatform : uint32_t {
  kTexturePlatformXbox = 5,
  kTexturePlatformGameCube = 6,
  kTexturePlatformD3d8 = 8,
  kTexturePlatformD3d9 = 9,
  kTexturePlatformPs2 = 0x00325350,  // FourCC "PS2\0"
  kTexturePlatformPsp = 0x00505350,  // FourCC "PSP\0"
};
std::string texturePlatformName(uint32_t platform);

// Raster format word (librw rwobjects.h Raster::Format): the pixel format in bits 8-11, then flags.
enum RasterFormat : uint32_t {
  kRasterPixelMask = 0x0F00,
  kRaster1555 = 0x0100,
  kRaster565 = 0x0200,
  kRaster4444 = 0x0300,
  kRasterLum8 = 0x0400,
  kRaster8888 = 0x0500,
  kRaster888 = 0x0600,
  kRaster555 = 0x0A00,
  kRasterAutoMipmap = 0x1000,
  kRasterPal8 = 0x2000,
  kRasterPal4 = 0x4000,
  kRasterMipmap = 0x8000,
};
// Palette entries as D3D stores them (RGBA bytes, D3D's PALETTEENTRY): 256 for PAL8 and, as librw
// reads them, 32 for PAL4, whose indices D3D keeps one byte per pixel.
constexpr uint32_t kPal8Entries = 256;
constexpr uint32_t kPal4Entries = 32;

// D3D9 flags byte (librw d3d9.cpp): bit 0 has alpha, 1 cube map, 2 auto mipmaps, 3 compressed.
enum D3d9RasterFlag : uint8_t { kD3d9HasAlpha = 1, kD3d9CubeMap = 2, kD3d9Compressed = 8 };
// D3DFORMAT values a D3D9 raster stores (FourCC for the DXT ones).
enum D3dFormat : uint32_t {
  kD3dA8R8G8B8 = 21,
  kD3dX8R8G8B8 = 22,
  kD3dR5G6B5 = 23,
  kD3dA1R5G5B5 = 25,
  kD3dA4R4G4B4 = 26,
  kD3dP8 = 41,
  kD3dL8 = 50,
  kD3dDxt1 = 0x31545844,  // "DXT1"
  kD3dDxt3 = 0x33545844,
  kD3dDxt5 = 0x35545844,
};

// filterAddressing (librw Texture): the filter mode in bits 0-7, address U in 8-11, V in 12-15.
enum RwFilter : uint32_t {
  kFilterNearest = 1,
  kFilterLinear = 2,
  kFilterMipNearest = 3,
  kFilterMipLinear = 4,
  kFilterLinearMipNearest = 5,
  kFilterLinearMipLinear = 6,
};
enum RwAddressing : uint32_t { kAddressWrap = 1, kAddressMirror = 2, kAddressClamp = 3, kAddressBorder = 4 };

// The Texture Native Struct as D3D8 and D3D9 write it: 88 bytes before the palette and levels.
// The two differ in two fields only: D3D8 stores hasAlpha and a DXT number (0, 1, 3, 5), D3D9 the
// D3DFORMAT and the flags byte.
struct TextureNativeHeader {
  uint32_t platform = 0;
  uint32_t filterAddressing = 0;
  std::string name;  // char[32]
  std::string mask;  // char[32]
  uint32_t rasterFormat = 0;
  uint32_t alphaOrD3dFormat = 0;  // D3D8: hasAlpha; D3D9: D3DFORMAT
  uint16_t width = 0;
  uint16_t height = 0;
  uint8_t depth = 0;
  uint8_t numLevels = 0;
  uint8_t rasterType = 0;
  uint8_t compressionOrFlags = 0;  // D3D8: DXT number; D3D9: D3d9RasterFlag bits
};
constexpr size_t kTextureNativeHeaderBytes = 88;

}  // namespace rigport::renderware
