// glTF export throughput on a large rig: the demo character scaled to 1,000,000 vertices with up to
// 4 influences each, 256 bones and about 10,000 animation keys (src/demo/character.hpp), exported
// to a .glb in memory (validate, joint remap, accessors, JSON, GLB framing).
// Counters: vertices/s, MB/s of .glb output, items (vertices) processed, peak RSS of the process.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include "demo/character.hpp"
#include "export/gltf.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"

namespace {

const rigport::Rig& largeRig() {
  static const rigport::Rig rig = [] {
    rigport::DemoOptions options;
    options.vertices = 1'000'000;
    options.maxInfluences = 4;
    options.bones = 256;
    options.keys = 10'000;
    return rigport::makeDemoCharacter(options);
  }();
  return rig;
}

double peakRssMiB() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

void BM_ExportGlb(benchmark::State& state) {
  const rigport::Rig& rig = largeRig();
  const double vertices = static_cast<double>(rig.vertexCount());
  size_t bytes = 0;
  for (auto _ : state) {
    auto glb = rigport::exportGlb(rig);
    if (!glb) {
      state.SkipWithError(glb.error().describe().c_str());
      return;
    }
    bytes = glb->size();
    benchmark::DoNotOptimize(glb->data());
  }
  const double iterations = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<int64_t>(vertices * iterations));
  state.counters["vertices"] = vertices;
  state.counters["bones"] = static_cast<double>(rig.skeleton.bones.size());
  state.counters["keys"] = static_cast<double>(rig.animations[0].keyCount());
  state.counters["vertices/s"] = benchmark::Counter(vertices * iterations, benchmark::Counter::kIsRate);
  state.counters["MB/s"] = benchmark::Counter(static_cast<double>(bytes) * iterations / 1e6, benchmark::Counter::kIsRate);
  state.counters["glb_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["peak_RSS_MiB"] = peakRssMiB();
}
BENCHMARK(BM_ExportGlb)->Unit(benchmark::kMillisecond)->UseRealTime();

// memcpy of as many bytes as the .glb holds: the ceiling BM_ExportGlb's output MB/s is reported against.
void BM_MemcpyGlbBytes(benchmark::State& state) {
  static const std::vector<uint8_t> glb = [] {
    auto bytes = rigport::exportGlb(largeRig());
    return bytes ? std::move(*bytes) : std::vector<uint8_t>{};
  }();
  rigport::bench::memcpyCeiling(state, glb);
}
BENCHMARK(BM_MemcpyGlbBytes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

RIGPORT_BENCHMARK_MAIN()
