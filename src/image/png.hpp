// The image room's one encoder: PNG, for the images glTF embeds (image/png) and `convert x.txd`
// writes. libpng (Debian's libpng-dev, linked statically with zlib, so the CLI still loads only libc
// and libm) rather than stb_image_write: it is the reference encoder, already on every Debian
// machine, and compresses better (zlib's deflate instead of stb's simple one).
#pragma once

#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/texture.hpp"

namespace rigport::image {

// An 8-bit RGBA PNG of the level (sRGB, as game textures are authored).
Result<std::vector<uint8_t>> encodePng(const ImageLevel& level);

}  // namespace rigport::image
