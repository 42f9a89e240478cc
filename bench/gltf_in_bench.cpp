// glTF read throughput (src/formats/gltf): the demo character scaled to 1,000,000 vertices with up
// to 4 influences, 256 bones and about 10,000 keys (as gltf_export_bench.cpp), exported to a .glb in
// memory once, then read back from memory: GLB checks, JSON charge, tinygltf's parse (which copies
// the BIN chunk) and our accessor decoding into the rig model. memcpy of the same bytes beside it.
#include <benchmark/benchmark.h>

#include "core/source.hpp"
#include "demo/character.hpp"
#include "export/gltf.hpp"
#include "formats/gltf/gltf.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"

namespace {

const std::vector<uint8_t>& largeGlb() {
  static const std::vector<uint8_t> glb = [] {
    rigport::DemoOptions options;
    options.vertices = 1'000'000;
    options.maxInfluences = 4;
    options.bones = 256;
    options.keys = 10'000;
    auto bytes = rigport::exportGlb(rigport::makeDemoCharacter(options));
    return bytes ? std::move(*bytes) : std::vector<uint8_t>{};
  }();
  return glb;
}

void BM_ReadGlb(benchmark::State& state) {
  const auto& glb = largeGlb();
  // A Source over a copy, made once: the file would be memory-mapped, not copied, per read.
  static const auto source = rigport::Source::fromBytes(glb, "large.glb");
  size_t vertices = 0;
  for (auto _ : state) {
    rigport::ReadContext ctx;
    auto asset = rigport::gltf_in::readGltf(*source, ctx);
    if (rigport::bench::skippedOnError(state, asset)) return;
    vertices = asset->rigs[0].vertexCount();
    benchmark::DoNotOptimize(asset->rigs.data());
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["vertices"] = static_cast<double>(vertices);
  state.counters["vertices/s"] = benchmark::Counter(static_cast<double>(vertices) * iterations, benchmark::Counter::kIsRate);
  state.counters["MB/s"] = benchmark::Counter(static_cast<double>(glb.size()) * iterations / 1e6, benchmark::Counter::kIsRate);
  state.counters["glb_MB"] = static_cast<double>(glb.size()) / 1e6;
}
BENCHMARK(BM_ReadGlb)->Unit(benchmark::kMillisecond)->UseRealTime();

// memcpy of the .glb's bytes: the ceiling BM_ReadGlb's MB/s is reported against.
void BM_MemcpyGlbBytes(benchmark::State& state) { rigport::bench::memcpyCeiling(state, largeGlb()); }
BENCHMARK(BM_MemcpyGlbBytes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

RIGPORT_BENCHMARK_MAIN()
