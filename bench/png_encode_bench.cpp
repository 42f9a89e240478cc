// The PNG writer's settings (issue 29) on game textures as it gets them: each picture of
// bench/texture_inputs.hpp (stored level decoded) encoded with each setting below; counters give
// the PNG's size and MB/s of RGBA. `simplified` is libpng's simplified writer with its defaults (all
// filters, zlib level 6, libpng's default strategy for filtered rows, Z_FILTERED), what
// image::encodePng wrote before it took settings: `L6_filtered` writes the same bytes.
// BM_EncodeModelTextures/N: the textured model's six textures with the defaults on N threads.
// BM_Memcpy is the ceiling of BENCHMARKS.md's convention: a memcpy of a 1024² level's RGBA.
#include <benchmark/benchmark.h>
#include <png.h>

#include <cstdlib>
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

// Lx: zlib level x; then the filters libpng may choose among (all five unless named), zlib's
// strategy (default unless named), memLevel (8 unless named), and `rgb`: an opaque level written as
// RGB. `default` is image::PngSettings{}, what the glTF export and `convert x.txd` use.
PngSettings setting(int level, uint8_t filters = img::kAllFilters, PngStrategy strategy = PngStrategy::Default, bool rgb = false, int memLevel = 8) {
  return PngSettings{level, strategy, filters, memLevel, rgb};
}

// BENCHMARKS.md's table: libpng's defaults before and after its own writer, the default, and the
// settings that show why it was chosen. With RIGPORT_PNG_MATRIX=1, every setting tried (about 60,
// some minutes: L9 takes seconds a picture).
std::vector<Setting> settingsToTry() {
  const auto name = [](int level, const char* rest) { return "L" + std::to_string(level) + rest; };
  std::vector<Setting> s{{"simplified", {}, true},
                         {"L6_filtered", setting(6, img::kAllFilters, PngStrategy::Filtered)},
                         {"default", PngSettings{}},
                         {"L4_up", setting(4, img::kFilterUp)},
                         {"L5_up_rgb", setting(5, img::kFilterUp, PngStrategy::Default, true)},
                         {"L1_up", setting(1, img::kFilterUp)},
                         {"L1_rle", setting(1, img::kAllFilters, PngStrategy::Rle)},
                         {"L9_filtered", setting(9, img::kAllFilters, PngStrategy::Filtered)}};
  for (const int level : {1, 3, 4, 5}) s.push_back({name(level, ""), setting(level)});
  const char* matrix = std::getenv("RIGPORT_PNG_MATRIX");
  if (matrix == nullptr || std::string(matrix) != "1") return s;
  for (int level = 1; level <= 9; ++level) {
    if (level == 2 || level > 5) s.push_back({name(level, ""), setting(level)});
    if (level != 6 && level != 9) s.push_back({name(level, "_filtered"), setting(level, img::kAllFilters, PngStrategy::Filtered)});
  }
  const std::pair<const char*, uint8_t> filters[] = {
      {"_none", img::kFilterNone}, {"_sub", img::kFilterSub}, {"_up", img::kFilterUp}, {"_paeth", img::kFilterPaeth},
      {"_sub+up+paeth", img::kFilterSub | img::kFilterUp | img::kFilterPaeth}};
  for (const int level : {1, 2, 3, 4, 5})
    for (const auto& [rest, mask] : filters)
      if (!(mask == img::kFilterUp && (level == 1 || level == 4))) s.push_back({name(level, rest), setting(level, mask)});
  for (const int level : {4, 5}) {
    s.push_back({name(level, "_up+paeth"), setting(level, img::kFilterUp | img::kFilterPaeth)});
    s.push_back({name(level, "_sub+up"), setting(level, img::kFilterUp | img::kFilterSub)});
    s.push_back({name(level, "_up_filtered"), setting(level, img::kFilterUp, PngStrategy::Filtered)});
  }
  for (const int level : {3, 6}) s.push_back({name(level, "_rle"), setting(level, img::kAllFilters, PngStrategy::Rle)});
  for (const int level : {3, 4, 5, 6}) {
    if (level != 4 && level != 5) s.push_back({name(level, "_up_rgb"), setting(level, img::kFilterUp, PngStrategy::Default, true)});
    s.push_back({name(level, "_rgb"), setting(level, img::kAllFilters, PngStrategy::Default, true)});
  }
  s.push_back({"L3_mem9", setting(3, img::kAllFilters, PngStrategy::Default, false, 9)});
  s.push_back({"L2_mem9", setting(2, img::kAllFilters, PngStrategy::Default, false, 9)});
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

// The textured model's six DXT textures (texture_inputs.hpp's TXD), encoded with the default
// settings as the glTF export does, on state.range(0) threads: wall time, the figure threads change.
void BM_EncodeModelTextures(benchmark::State& state) {
  std::vector<const rigport::ImageLevel*> levels;
  for (const auto& t : rigport::bench::gameTextures())
    if (t.layout != rigport::image::PixelLayout::B8G8R8A8) levels.push_back(&t.decoded);
  for (auto _ : state) {
    auto pngs = img::encodePngs(levels, PngSettings{}, static_cast<unsigned>(state.range(0)));
    benchmark::DoNotOptimize(pngs);
  }
}

void BM_Memcpy(benchmark::State& state) { rigport::bench::memcpyCeiling(state, rigport::bench::gameTextures().front().decoded.rgba); }

const bool registered = [] {
  static const std::vector<Setting> settings = settingsToTry();
  const auto& pictures = rigport::bench::gameTextures();
  for (size_t p = 0; p < pictures.size(); ++p)
    for (const Setting& s : settings)
      benchmark::RegisterBenchmark(("BM_EncodePng/" + pictures[p].name + "/" + s.name).c_str(), BM_EncodePng, p, s)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_EncodeModelTextures", BM_EncodeModelTextures)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_Memcpy/1024", BM_Memcpy)->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace

RIGPORT_BENCHMARK_MAIN();
