// The image room's one encoder: PNG, for the images glTF embeds (image/png) and `convert x.txd`
// writes. libpng (Debian's libpng-dev, linked statically with zlib, so the CLI still loads only libc
// and libm) rather than stb_image_write: it is the reference encoder, already on every Debian
// machine, and compresses better (zlib's deflate instead of stb's simple one).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "core/texture.hpp"

namespace rigport::image {

// The filters libpng may choose among per row (its PNG_FILTER_* bits); with more than one it picks
// per row by its sum-of-absolute-differences heuristic.
enum PngFilter : uint8_t { kFilterNone = 0x08, kFilterSub = 0x10, kFilterUp = 0x20, kFilterAverage = 0x40, kFilterPaeth = 0x80 };
constexpr uint8_t kAllFilters = kFilterNone | kFilterSub | kFilterUp | kFilterAverage | kFilterPaeth;

// zlib's strategies (Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE).
enum class PngStrategy : uint8_t { Default, Filtered, HuffmanOnly, Rle };

// How the PNG is written. The defaults were chosen by measurement (BENCHMARKS.md, "PNG settings";
// bench/png_encode_bench.cpp) on DXT-decoded game textures, whose 4x4 blocks of at most 4 colours
// make neighbouring rows alike: zlib level 4 (the fastest level with lazy matching; levels 1-3 made
// a clean painted texture 1.4x larger), the Up filter on every row (libpng's per-row choice among
// all five cost more time than it saved bytes) and RGB for an opaque level. Against libpng's own
// defaults (level 6, Z_FILTERED, all filters, RGBA: `PngSettings{6, PngStrategy::Filtered,
// kAllFilters, 8, false}` writes the bytes its simplified writer writes) about 5x less CPU for 2 %
// more bytes in all, 10 % more on the worst picture (a DXT5 one with soft alpha).
struct PngSettings {
  int level = 4;          // zlib 0-9
  PngStrategy strategy = PngStrategy::Default;
  uint8_t filters = kFilterUp;
  int memLevel = 8;       // zlib 1-9
  // A level whose every alpha is 255 is written as RGB (colour type 2): a quarter fewer bytes to
  // filter and deflate; read as RGBA it is the same pixels.
  bool rgbWhenOpaque = true;
};

// An 8-bit RGBA PNG of the level (sRGB, as game textures are authored). Any settings give a PNG
// that decodes to exactly `level.rgba`; only its size and the time taken differ.
Result<std::vector<uint8_t>> encodePng(const ImageLevel& level, const PngSettings& settings = {});

// encodePng of each level, on up to `threads` threads (each level whole on one of them): the
// same bytes as encoding them one after another, in the order given.
std::vector<Result<std::vector<uint8_t>>> encodePngs(std::span<const ImageLevel* const> levels, const PngSettings& settings, unsigned threads);

}  // namespace rigport::image
