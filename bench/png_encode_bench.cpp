// The PNG writer's settings (issue 29) on game textures as it gets them: each picture of
// bench/texture_inputs.hpp (DXT blocks decoded) encoded with each setting below; counters give the
// PNG's size and MB/s of RGBA. `simplified` is libpng's simplified writer with its defaults (all
// filters, zlib level 6, libpng's default strategy for filtered rows, Z_FILTERED), what
// image::encodePng wrote before it took settings: `L6_filtered` writes the same bytes. BM_Memcpy is the ceiling of BENCHMARKS.md's convention: a memcpy of a 1024² level's RGBA.
#include <benchmark/benchmark.h>
#include <png.h>

#include <string>
#include <vector>

#include "bench_main.hpp"
#include "image/png.hpp"
#include "memcpy_ceiling.hpp"
#include "texture_inputs.hpp"

namespace {

using rigport::image::PngSettings;
using rigport::image::PngStrategy;
namespace img = rigport::image;

struct Setting {
  std::string name;
  PngSettings settings;
  bool simplified = false;
};

std::vector<Setting> settingsToTry() {
  std::vector<Setting> s{{"simplified", {}, true}};
  for (int level = 1; level <= 9; ++level) {
    s.push_back({"L" + std::to_string(level), PngSettings{level}});
    s.push_back({"L" + std::to_string(level) + "_filtered", PngSettings{level, PngStrategy::Filtered}});
  }
  const std::pair<const char*, uint8_t> filters[] = {
      {"none", img::kFilterNone}, {"sub", img::kFilterSub}, {"up", img::kFilterUp}, {"paeth", img::kFilterPaeth},
      {"sub+up+paeth", img::kFilterSub | img::kFilterUp | img::kFilterPaeth}};
  for (const int level : {1, 2, 3, 4, 5})
    for (const auto& [name, mask] : filters) s.push_back({"L" + std::to_string(level) + "_" + name, PngSettings{level, PngStrategy::Default, mask}});
  for (const int level : {4, 5}) {
    s.push_back({"L" + std::to_string(level) + "_up+paeth", PngSettings{level, PngStrategy::Default, img::kFilterUp | img::kFilterPaeth}});
    s.push_back({"L" + std::to_string(level) + "_sub+up", PngSettings{level, PngStrategy::Default, img::kFilterUp | img::kFilterSub}});
    s.push_back({"L" + std::to_string(level) + "_up_filtered", PngSettings{level, PngStrategy::Filtered, img::kFilterUp}});
  }
  for (const int level : {1, 3, 6}) s.push_back({"L" + std::to_string(level) + "_rle", PngSettings{level, PngStrategy::Rle}});
  for (const int level : {3, 4, 5}) {
    PngSettings up{level, PngStrategy::Default, img::kFilterUp};
    up.rgbWhenOpaque = true;
    PngSettings all{level};
    all.rgbWhenOpaque = true;
    s.push_back({"L" + std::to_string(level) + "_up_rgb", up});
    s.push_back({"L" + std::to_string(level) + "_rgb", all});
  }
  s.push_back({"L3_mem9", PngSettings{3, PngStrategy::Default, img::kAllFilters, 9}});
  s.push_back({"L2_mem9", PngSettings{2, PngStrategy::Default, img::kAllFilters, 9}});
  return s;
}

size_t encodeSimplified(const rigport::ImageLevel& level, benchmark::State& state) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = level.width;
  image.height = level.height;
  image.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> out(PNG_IMAGE_PNG_SIZE_MAX(image));
  png_alloc_size_t size = out.size();
  if (png_image_write_to_memory(&image, out.data(), &size, 0, level.rgba.data(), 0, nullptr) == 0) state.SkipWithError(image.message);
  benchmark::DoNotOptimize(out);
  return size;
}

void BM_EncodePng(benchmark::State& state, size_t picture, const Setting& setting) {
  const rigport::ImageLevel& level = rigport::bench::gameTextures().at(picture).decoded;
  size_t written = 0;
  for (auto _ : state) {
    if (setting.simplified) {
      written = encodeSimplified(level, state);
    } else {
      auto png = img::encodePng(level, setting.settings);
      if (!png) state.SkipWithError(png.error().describe().c_str());
      written = png ? png->size() : 0;
      benchmark::DoNotOptimize(png);
    }
  }
  state.counters["MB/s"] =
      benchmark::Counter(static_cast<double>(level.rgba.size()) * static_cast<double>(state.iterations()) / 1e6, benchmark::Counter::kIsRate);
  state.counters["PNG_KB"] = static_cast<double>(written) / 1e3;
}

void BM_Memcpy(benchmark::State& state) { rigport::bench::memcpyCeiling(state, rigport::bench::gameTextures().front().decoded.rgba); }

const bool registered = [] {
  static const std::vector<Setting> settings = settingsToTry();
  const auto& pictures = rigport::bench::gameTextures();
  for (size_t p = 0; p < pictures.size(); ++p)
    for (const Setting& s : settings)
      benchmark::RegisterBenchmark(("BM_EncodePng/" + pictures[p].name + "/" + s.name).c_str(), BM_EncodePng, p, s)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_Memcpy/1024", BM_Memcpy)->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace

RIGPORT_BENCHMARK_MAIN();
