// How a texture's alpha is used, judged from its pixels: glTF's alphaMode for the material.
#pragma once

#include "core/texture.hpp"

namespace rigport::image {

// Opaque when every alpha is 255, Mask when every alpha is 0 or 255 (a cut-out: DXT1's 1-bit alpha,
// 1555), Blend otherwise.
AlphaMode judgeAlpha(const ImageLevel& level);

}  // namespace rigport::image
