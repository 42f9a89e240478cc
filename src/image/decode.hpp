// The image room's decoders: one stored level of any PixelLayout to RGBA8. DXT blocks are
// libsquish's (Debian's libsquish-dev); the uncompressed and palettised layouts are the few lines
// of bit unpacking each needs.
#pragma once

#include <cstdint>
#include <span>

#include "core/byte_reader.hpp"
#include "core/error.hpp"
#include "core/texture.hpp"
#include "image/pixel_layout.hpp"

namespace rigport::image {

// Reads one level of width x height pixels (levelBytes() of them) from `r` and decodes it.
// `palette` holds RGBA entries (4 bytes each) for P8 and is ignored otherwise; an index beyond it is
// an error naming the pixel. The RGBA output (width x height x 4 bytes) is charged to r's budget
// before it is allocated, so a forged size is an error naming `f`, never a huge allocation.
Result<ImageLevel> decodeLevel(ByteReader& r, PixelLayout layout, uint32_t width, uint32_t height,
                               std::span<const uint8_t> palette, Field f);

}  // namespace rigport::image
