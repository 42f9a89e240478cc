// The stored pixel layouts the image room decodes (image/decode.hpp), named as Direct3D names them:
// the RenderWare PC rasters (D3D8 and D3D9 texture natives) and DDS files store their pixels so,
// little-endian; the PS3's RSX stores its 32-bit texels big-endian (A8R8G8B8, X8R8G8B8 below).
// GameCube/Wii GX textures are tiled and have their own decoder (image/gx_decode.hpp).
#pragma once

#include <cstdint>
#include <string>

namespace rigport::image {

enum class PixelLayout : uint8_t {
  B8G8R8A8,  // D3DFMT_A8R8G8B8: a little-endian u32 ARGB word, so B, G, R, A bytes (RenderWare 8888)
  B8G8R8X8,  // D3DFMT_X8R8G8B8: the same with the fourth byte unused, alpha 255 (RenderWare 888)
  R8G8B8A8,  // D3DFMT_A8B8G8R8: R, G, B, A bytes (a DDS whose red mask is 0xFF)
  R8G8B8X8,  // D3DFMT_X8B8G8R8: the same with the fourth byte unused, alpha 255
  B8G8R8,    // D3DFMT_R8G8B8: three bytes a pixel, B, G, R (a 24-bit DDS), alpha 255
  A1R5G5B5,  // a little-endian u16: A in bit 15, then 5 bits each of R, G, B (RenderWare 1555)
  R5G6B5,    // a little-endian u16: R in bits 11-15, G 5-10, B 0-4 (RenderWare 565)
  A4R4G4B4,  // a little-endian u16: A in bits 12-15, then R, G, B (RenderWare 4444)
  A8R8G8B8,  // CELL_GCM_TEXTURE_A8R8G8B8: a big-endian u32 ARGB word, so A, R, G, B bytes (PS3)
  X8R8G8B8,  // CELL_GCM_TEXTURE_D8R8G8B8: the same with the first byte unused, alpha 255 (PS3)
  L8,        // one luminance byte: grey, alpha 255 (RenderWare LUM8)
  P8,        // one palette index byte per pixel into an RGBA palette (RenderWare PAL8, and PAL4,
             // whose 4-bit indices Direct3D stores a byte each)
  Dxt1,      // BC1: 8 bytes per 4x4 block, 1-bit alpha
  Dxt3,      // BC2: 16 bytes per block, explicit 4-bit alpha
  Dxt5,      // BC3: 16 bytes per block, interpolated alpha
};

const char* pixelLayoutName(PixelLayout layout);

// A Direct3D FourCC (a little-endian u32, as D3D9 rasters and DDS files store it) as its four
// characters, each one that is not printable as '?', for messages about a layout not read.
std::string fourCcText(uint32_t fourCc);
bool isBlockCompressed(PixelLayout layout);
// The bytes one level of width x height pixels takes in `layout`: whole 4x4 blocks for DXT, no row
// padding otherwise. At most 2^16 x 2^16 x 4, so it cannot overflow.
uint64_t levelBytes(PixelLayout layout, uint32_t width, uint32_t height);

}  // namespace rigport::image
