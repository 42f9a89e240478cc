#include "image/png.hpp"

#include <algorithm>
#include <atomic>
#include <csetjmp>
#include <new>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <png.h>
#include <zlib.h>

namespace rigport::image {
namespace {

static_assert(kFilterNone == PNG_FILTER_NONE && kFilterSub == PNG_FILTER_SUB && kFilterUp == PNG_FILTER_UP &&
              kFilterAverage == PNG_FILTER_AVG && kFilterPaeth == PNG_FILTER_PAETH);

int zlibStrategy(PngStrategy s) {
  switch (s) {
    case PngStrategy::Default: return Z_DEFAULT_STRATEGY;
    case PngStrategy::Filtered: return Z_FILTERED;
    case PngStrategy::HuffmanOnly: return Z_HUFFMAN_ONLY;
    case PngStrategy::Rle: return Z_RLE;
  }
  return Z_DEFAULT_STRATEGY;
}

// Where libpng's callbacks write: the PNG so far, and the message of an error.
struct Sink {
  std::vector<uint8_t> bytes;
  std::string error;
};

// No exception may cross libpng's C frames: a failed allocation becomes libpng's error, raised
// once the handler's frame is left.
void appendBytes(png_structp png, png_bytep data, size_t size) {
  auto* sink = static_cast<Sink*>(png_get_io_ptr(png));
  bool grown = true;
  try {
    sink->bytes.insert(sink->bytes.end(), data, data + size);
  } catch (const std::bad_alloc&) {
    grown = false;
  }
  if (!grown) png_error(png, "out of memory for the PNG");
}

void flushNothing(png_structp) {}

[[noreturn]] void fail(png_structp png, png_const_charp message) {
  static_cast<Sink*>(png_get_error_ptr(png))->error = message;
  png_longjmp(png, 1);
}

void ignoreWarning(png_structp, png_const_charp) {}

// libpng's full API reports errors by longjmp to the setjmp here: this frame and the ones libpng
// jumps over hold no object with a destructor (the sink and rows are the caller's), so the jump
// skips no cleanup. Returns false when libpng failed (sink.error says why).
bool writePng(const ImageLevel& level, const PngSettings& settings, bool rgb, png_bytep const* rows, Sink& sink) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, fail, ignoreWarning);
  if (png == nullptr) {
    sink.error = "out of memory";
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr || setjmp(png_jmpbuf(png)) != 0) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &sink, appendBytes, flushNothing);
  png_set_IHDR(png, info, level.width, level.height, 8, rgb ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  // The chunk libpng's simplified writer adds for 8-bit sRGB pixels, kept so that the PNG says the
  // same as before the settings existed.
  png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, settings.filters);
  png_set_compression_level(png, settings.level);
  png_set_compression_strategy(png, zlibStrategy(settings.strategy));
  png_set_compression_mem_level(png, settings.memLevel);
  png_write_info(png, info);
  if (rgb) png_set_filler(png, 0, PNG_FILLER_AFTER);  // on writing: the rows' 4th byte is dropped
  png_write_image(png, const_cast<png_bytepp>(rows));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

Result<std::vector<uint8_t>> encodePng(const ImageLevel& level, const PngSettings& settings) {
  if (level.width == 0 || level.height == 0 || level.width > PNG_UINT_31_MAX || level.height > PNG_UINT_31_MAX ||
      level.rgba.size() != size_t{level.width} * level.height * 4) {
    return makeError(ErrorCode::Invalid, fmt::format("a {}x{} image with {} bytes of pixels cannot be a PNG", level.width,
                                                     level.height, level.rgba.size()));
  }
  if (settings.level < 0 || settings.level > 9 || settings.memLevel < 1 || settings.memLevel > 9 || (settings.filters & ~kAllFilters) != 0 ||
      settings.filters == 0) {
    return makeError(ErrorCode::Usage, fmt::format("PNG settings out of range: zlib level {} (0-9), memLevel {} (1-9), filters 0x{:02x}",
                                                   settings.level, settings.memLevel, settings.filters));
  }
  std::vector<png_bytep> rows(level.height);
  const size_t stride = size_t{level.width} * 4;
  for (uint32_t y = 0; y < level.height; ++y) rows[y] = const_cast<png_bytep>(level.rgba.data() + y * stride);  // libpng only reads them
  Sink sink;
  // A compressed texture's PNG is mostly a fraction of its pixels; the vector grows past this if not.
  sink.bytes.reserve(level.rgba.size() / 4 + 1024);
  bool opaque = settings.rgbWhenOpaque;
  for (size_t i = 3; opaque && i < level.rgba.size(); i += 4) opaque = level.rgba[i] == 255;
  if (!writePng(level, settings, opaque, rows.data(), sink)) return makeError(ErrorCode::Invalid, "libpng refused the image: " + sink.error);
  return std::move(sink.bytes);
}

std::vector<Result<std::vector<uint8_t>>> encodePngs(std::span<const ImageLevel* const> levels, const PngSettings& settings, unsigned threads) {
  std::vector<Result<std::vector<uint8_t>>> out(levels.size(), makeError(ErrorCode::Invalid, "not encoded"));
  // Largest first, so that a small level, not a large one, is what a thread is left finishing.
  std::vector<size_t> order(levels.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return levels[a]->rgba.size() > levels[b]->rgba.size(); });
  // Each worker takes the next level not taken; every level's bytes depend on it alone, so the
  // order the threads take them in changes nothing in the output.
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k = next++; k < order.size(); k = next++) out[order[k]] = encodePng(*levels[order[k]], settings);
  };
  const size_t helpers = std::min<size_t>(std::max(1u, threads), levels.size()) - (levels.empty() ? 0 : 1);
  {
    std::vector<std::jthread> pool;
    for (size_t t = 0; t < helpers; ++t) pool.emplace_back(work);
    work();
  }
  return out;
}

}  // namespace rigport::image
