#include "image/alpha.hpp"

namespace rigport::image {

AlphaMode judgeAlpha(const ImageLevel& level) {
  bool partial = false, cut = false;
  for (size_t i = 3; i < level.rgba.size(); i += 4) {
    const uint8_t a = level.rgba[i];
    partial = partial || (a != 0 && a != 255);
    cut = cut || a == 0;
  }
  return partial ? AlphaMode::Blend : cut ? AlphaMode::Mask : AlphaMode::Opaque;
}

}  // namespace rigport::image
