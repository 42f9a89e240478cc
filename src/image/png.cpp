#include "image/png.hpp"

#include <fmt/format.h>
#include <png.h>

namespace rigport::image {

Result<std::vector<uint8_t>> encodePng(const ImageLevel& level) {
  if (level.width == 0 || level.height == 0 || level.rgba.size() != size_t{level.width} * level.height * 4) {
    return makeError(ErrorCode::Invalid, fmt::format("a {}x{} image with {} bytes of pixels cannot be a PNG", level.width,
                                                     level.height, level.rgba.size()));
  }
  // libpng's simplified API: no setjmp in our frames, and PNG_IMAGE_PNG_SIZE_MAX bounds the output
  // so that one pass writes it.
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = level.width;
  image.height = level.height;
  image.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> out(PNG_IMAGE_PNG_SIZE_MAX(image));
  png_alloc_size_t written = out.size();
  if (png_image_write_to_memory(&image, out.data(), &written, 0, level.rgba.data(), 0, nullptr) == 0) {
    const std::string reason = image.message;
    png_image_free(&image);
    return makeError(ErrorCode::Invalid, "libpng refused the image: " + reason);
  }
  out.resize(written);
  return out;
}

}  // namespace rigport::image
