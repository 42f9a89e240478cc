#include "support/png_decode.hpp"

#include <png.h>

namespace rigport::test {

std::vector<uint8_t> decodePng(std::span<const uint8_t> png, uint32_t* width, uint32_t* height) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_memory(&image, png.data(), png.size()) == 0) return {};
  image.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> rgba(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, rgba.data(), 0, nullptr) == 0) return {};
  if (width != nullptr) *width = image.width;
  if (height != nullptr) *height = image.height;
  return rgba;
}

}  // namespace rigport::test
