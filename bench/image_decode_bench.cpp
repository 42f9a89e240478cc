// The image room's decoders (src/image, issue 29): one 1024x1024 level of each pixel layout a
// RenderWare TXD (or DDS) stores, the PS3's big-endian A8R8G8B8 in rows and Morton-swizzled (an RW4
// arena's Texture), and GX formats a Sluggers TEX stores, decoded to RGBA8, in MB/s of stored
// texture data beside memcpy of the same
// bytes; and the PNG encoding the glTF export does of the decoded level. Stored bytes are random
// (DXT blocks of random end points and indices decode like any others; P8 indices cover a full
// 256-entry palette). The PNG writer runs on two pictures, with its settings and with libpng's fast flag.
#include <benchmark/benchmark.h>
#include <png.h>

#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "core/byte_reader.hpp"
#include "image/decode.hpp"
#include "image/gx_decode.hpp"
#include "image/png.hpp"
#include "image/swizzle.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"

namespace {

using rigport::image::GxFormat;
using rigport::image::GxPalette;
using rigport::image::PixelLayout;

constexpr uint32_t kSide = 1024;

std::vector<uint8_t> randomBytes(uint64_t n) {
  std::mt19937 rng(7);
  std::vector<uint8_t> bytes(n);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

const std::vector<uint8_t>& storedLevel(PixelLayout layout) {
  static std::map<PixelLayout, std::vector<uint8_t>> levels;
  std::vector<uint8_t>& bytes = levels[layout];
  if (bytes.empty()) bytes = randomBytes(rigport::image::levelBytes(layout, kSide, kSide));
  return bytes;
}

const std::vector<uint8_t>& storedGxLevel(GxFormat format) {
  static std::map<GxFormat, std::vector<uint8_t>> levels;
  std::vector<uint8_t>& bytes = levels[format];
  if (bytes.empty()) bytes = randomBytes(rigport::image::gxLevelBytes(format, kSide, kSide));
  return bytes;
}

const std::vector<uint8_t>& palette() {
  static const std::vector<uint8_t> entries = [] {
    std::vector<uint8_t> p(256 * 4);
    for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<uint8_t>(i * 7);
    return p;
  }();
  return entries;
}

void BM_DecodeLevel(benchmark::State& state, PixelLayout layout) {
  const std::vector<uint8_t>& bytes = storedLevel(layout);
  for (auto _ : state) {
    rigport::ByteReader r(bytes);
    auto level = rigport::image::decodeLevel(r, layout, kSide, kSide, palette(), "level");
    if (!level) state.SkipWithError(level.error().describe().c_str());
    benchmark::DoNotOptimize(level);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes.size() * state.iterations()));
  state.counters["MB/s"] =
      benchmark::Counter(static_cast<double>(bytes.size()) * static_cast<double>(state.iterations()) / 1e6, benchmark::Counter::kIsRate);
}

// A swizzled level as an arena's reader takes it: put in rows (image/swizzle.hpp), then decoded.
void BM_DecodeSwizzledLevel(benchmark::State& state) {
  const std::vector<uint8_t>& bytes = storedLevel(PixelLayout::A8R8G8B8);
  for (auto _ : state) {
    const std::vector<uint8_t> rows = rigport::image::unswizzleMorton(bytes, kSide, kSide, 4);
    rigport::ByteReader r(rows);
    auto level = rigport::image::decodeLevel(r, PixelLayout::A8R8G8B8, kSide, kSide, {}, "level");
    if (!level) state.SkipWithError(level.error().describe().c_str());
    benchmark::DoNotOptimize(level);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes.size() * state.iterations()));
  state.counters["MB/s"] =
      benchmark::Counter(static_cast<double>(bytes.size()) * static_cast<double>(state.iterations()) / 1e6, benchmark::Counter::kIsRate);
}

void BM_MemcpyLevel(benchmark::State& state, PixelLayout layout) { rigport::bench::memcpyCeiling(state, storedLevel(layout)); }

// GX tiles (Sluggers TEX): C8 indexes a full 256-entry RGB5A3 palette (512 stored bytes).
void BM_DecodeGxLevel(benchmark::State& state, GxFormat format) {
  const std::vector<uint8_t>& bytes = storedGxLevel(format);
  const std::vector<uint8_t> gxPalette(512, 0x80);
  for (auto _ : state) {
    rigport::ByteReader r(bytes, rigport::Endian::Big);
    auto level = rigport::image::decodeGxLevel(r, format, kSide, kSide, gxPalette, GxPalette::RGB5A3, "level");
    if (!level) state.SkipWithError(level.error().describe().c_str());
    benchmark::DoNotOptimize(level);
  }
  state.counters["MB/s"] =
      benchmark::Counter(static_cast<double>(bytes.size()) * static_cast<double>(state.iterations()) / 1e6, benchmark::Counter::kIsRate);
}

void BM_MemcpyGxLevel(benchmark::State& state, GxFormat format) { rigport::bench::memcpyCeiling(state, storedGxLevel(format)); }

// The pictures the PNG writer is timed on, 1024x1024 RGBA: a decoded DXT1 level of random blocks
// (flat within blocks, random between them), and a photo-like one (smooth shading plus a grain of
// up to 6 levels), which zlib compresses as it does most textures.
enum class Picture { RandomDxt1, Smooth };

const rigport::ImageLevel& picture(Picture which) {
  static const rigport::ImageLevel randomDxt1 = [] {
    rigport::ByteReader r(storedLevel(PixelLayout::Dxt1));
    return *rigport::image::decodeLevel(r, PixelLayout::Dxt1, kSide, kSide, {}, "level");
  }();
  static const rigport::ImageLevel smooth = [] {
    rigport::ImageLevel level{kSide, kSide, std::vector<uint8_t>(size_t{kSide} * kSide * 4)};
    std::mt19937 rng(1);
    for (uint32_t y = 0; y < kSide; ++y) {
      for (uint32_t x = 0; x < kSide; ++x) {
        uint8_t* p = level.rgba.data() + 4 * (size_t{y} * kSide + x);
        p[0] = static_cast<uint8_t>(128 + 100 * std::sin(x * 0.01) + rng() % 7);
        p[1] = static_cast<uint8_t>(128 + 100 * std::cos(y * 0.013) + rng() % 7);
        p[2] = static_cast<uint8_t>((x + y) / 9 + rng() % 7);
        p[3] = 255;
      }
    }
    return level;
  }();
  return which == Picture::Smooth ? smooth : randomDxt1;
}

// `fast`: libpng's simplified writer with PNG_IMAGE_FLAG_FAST (libpng 1.6.22: a quicker filter choice
// and zlib level), which image/png.cpp does not set; else image::encodePng, the glTF export's.
void BM_EncodePng(benchmark::State& state, Picture which, bool fast) {
  const rigport::ImageLevel& level = picture(which);
  size_t written = 0;
  for (auto _ : state) {
    if (fast) {
      png_image image{};
      image.version = PNG_IMAGE_VERSION;
      image.width = level.width;
      image.height = level.height;
      image.format = PNG_FORMAT_RGBA;
      image.flags = PNG_IMAGE_FLAG_FAST;
      std::vector<uint8_t> out(PNG_IMAGE_PNG_SIZE_MAX(image));
      png_alloc_size_t size = out.size();
      if (png_image_write_to_memory(&image, out.data(), &size, 0, level.rgba.data(), 0, nullptr) == 0) state.SkipWithError(image.message);
      written = size;
      benchmark::DoNotOptimize(out);
    } else {
      auto png = rigport::image::encodePng(level);
      written = png ? png->size() : 0;
      benchmark::DoNotOptimize(png);
    }
  }
  state.counters["MB/s"] =
      benchmark::Counter(static_cast<double>(level.rgba.size()) * static_cast<double>(state.iterations()) / 1e6, benchmark::Counter::kIsRate);
  state.counters["PNG MB"] = static_cast<double>(written) / 1e6;
}

}  // namespace

BENCHMARK_CAPTURE(BM_DecodeLevel, dxt1, PixelLayout::Dxt1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyLevel, dxt1, PixelLayout::Dxt1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeLevel, dxt5, PixelLayout::Dxt5)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyLevel, dxt5, PixelLayout::Dxt5)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeLevel, b8g8r8a8, PixelLayout::B8G8R8A8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyLevel, b8g8r8a8, PixelLayout::B8G8R8A8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeLevel, r5g6b5, PixelLayout::R5G6B5)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyLevel, r5g6b5, PixelLayout::R5G6B5)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeLevel, p8, PixelLayout::P8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyLevel, p8, PixelLayout::P8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeGxLevel, cmpr, GxFormat::CMPR)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyGxLevel, cmpr, GxFormat::CMPR)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeGxLevel, rgb5a3, GxFormat::RGB5A3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyGxLevel, rgb5a3, GxFormat::RGB5A3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeGxLevel, rgba8, GxFormat::RGBA8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyGxLevel, rgba8, GxFormat::RGBA8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeGxLevel, c8, GxFormat::C8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyGxLevel, c8, GxFormat::C8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeLevel, a8r8g8b8, PixelLayout::A8R8G8B8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeSwizzledLevel)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyLevel, a8r8g8b8, PixelLayout::A8R8G8B8)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EncodePng, random_dxt1, Picture::RandomDxt1, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EncodePng, random_dxt1_fast, Picture::RandomDxt1, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EncodePng, smooth, Picture::Smooth, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EncodePng, smooth_fast, Picture::Smooth, true)->Unit(benchmark::kMillisecond);

RIGPORT_BENCHMARK_MAIN();
