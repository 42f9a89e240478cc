// Sluggers model block read throughput on a 100,000-vertex block (bench/inputs.hpp: a skinned
// submesh of 60,000 with SK1, SK2 and SKAcc entries, four rigid submeshes of 10,000, 64 bones),
// read (BM_ReadSluggersModel) and read + exported to a .glb (BM_ReadSluggersModelAndExportGlb).
// Counters: MB/s of block input, vertices/s. `bench_inputs DIR` writes the block as a file.
#include <benchmark/benchmark.h>

#include "export/gltf.hpp"
#include "formats/sluggers/sluggers.hpp"
#include "inputs.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"

namespace {

const std::vector<uint8_t>& blockBytes() { return rigport::bench::sluggersBlock(); }

void read(benchmark::State& state, bool toGlb) {
  if (blockBytes().empty()) {
    state.SkipWithError("writeModel failed to build the input");
    return;
  }
  size_t vertices = 0;
  for (auto _ : state) {
    auto rig = rigport::sluggers::readModel(blockBytes());
    if (rigport::bench::skippedOnError(state, rig)) return;
    vertices = rig->vertexCount();
    if (toGlb) {
      auto glb = rigport::exportGlb(*rig);
      if (rigport::bench::skippedOnError(state, glb)) return;
      benchmark::DoNotOptimize(glb->data());
    } else {
      benchmark::DoNotOptimize(rig->meshes.data());
    }
  }
  const double iterations = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(blockBytes().size() * state.iterations()));
  state.counters["block_MB"] = static_cast<double>(blockBytes().size()) / 1e6;
  state.counters["vertices"] = static_cast<double>(vertices);
  state.counters["vertices/s"] = benchmark::Counter(static_cast<double>(vertices) * iterations, benchmark::Counter::kIsRate);
  state.counters["MB/s"] = benchmark::Counter(static_cast<double>(blockBytes().size()) * iterations / 1e6, benchmark::Counter::kIsRate);
}

void BM_ReadSluggersModel(benchmark::State& state) { read(state, false); }
BENCHMARK(BM_ReadSluggersModel)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadSluggersModelAndExportGlb(benchmark::State& state) { read(state, true); }
BENCHMARK(BM_ReadSluggersModelAndExportGlb)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MemcpySluggersBytes(benchmark::State& state) { rigport::bench::memcpyCeiling(state, blockBytes()); }
BENCHMARK(BM_MemcpySluggersBytes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

RIGPORT_BENCHMARK_MAIN()
