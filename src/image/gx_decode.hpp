// GameCube/Wii GX textures to RGBA8: the tiled layouts of the GX texture formats, big-endian, as
// the format notes' readers (sluggers.md §5) meet them. No Debian library decodes GX tiles; the
// layouts and pixel rules are Dolphin's (Source/Core/VideoCommon/TextureDecoder*), checked on
// synthetic images the tests encode by their own code.
#pragma once

#include <cstdint>
#include <span>

#include "core/byte_reader.hpp"
#include "core/error.hpp"
#include "core/texture.hpp"

namespace rigport::image {

// GXTexFmt values, as a TEX descriptor stores them.
enum class GxFormat : uint8_t { I4 = 0, I8 = 1, IA4 = 2, IA8 = 3, RGB565 = 4, RGB5A3 = 5, RGBA8 = 6, C4 = 8, C8 = 9, C14X2 = 10, CMPR = 14 };
// GXTlutFmt: how a palette's 16-bit entries are coloured.
enum class GxPalette : uint8_t { IA8 = 0, RGB565 = 1, RGB5A3 = 2 };

const char* gxFormatName(GxFormat format);
// Whether `value` is a GX texture format rigport decodes, and whether the format is palettised.
bool isGxFormat(uint8_t value);
bool isGxPalettised(GxFormat format);
// The bytes one level takes: whole tiles (8x8, 8x4 or 4x4 pixels by format) of 32 bytes (64 for
// RGBA8, whose tile is two 32-byte halves). At most 2^16 x 2^16 x 4, so it cannot overflow.
uint64_t gxLevelBytes(GxFormat format, uint32_t width, uint32_t height);

// Reads one level of width x height pixels (gxLevelBytes() of them) from `r` and decodes it.
// `palette` holds the stored 16-bit big-endian entries of a C4/C8/C14X2 texture, coloured by
// `paletteFormat`; an index beyond it is an error naming the pixel. The RGBA output is charged to
// r's budget before it is allocated.
Result<ImageLevel> decodeGxLevel(ByteReader& r, GxFormat format, uint32_t width, uint32_t height, std::span<const uint8_t> palette,
                                 GxPalette paletteFormat, Field f);

}  // namespace rigport::image
