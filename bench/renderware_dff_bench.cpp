// DFF read throughput on issue 11's 12 MB skinned clump (bench/inputs.hpp: 4 atomics × 32,768
// vertices, 4 influences, 64 bones), read (BM_ReadDff: the rig freed each iteration;
// BM_ReadDffReusingRig: each rig recycled into a RigStorage the next read fills, as a program
// reading file after file would, core/rig_storage.hpp) and read + exported to a .glb
// (BM_ReadDffAndExportGlb: exportGlb of a rig the caller keeps, so the exporter converts a copy;
// BM_ReadDffReusingRigAndExportGlb: the same on reused rigs, the copy made in an ExportCache's
// spare rig and the GLB in one reused array, exportGlbInto; BM_ReadDffAndExportGlbInto: the rig
// moved in and one output array reused, as a program converting file after file would). Counters:
// MB/s of DFF input, vertices/s.
#include <benchmark/benchmark.h>

#include <cmath>

#include "core/rig_storage.hpp"
#include "export/gltf.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"
#include "formats/renderware/renderware.hpp"
#include "inputs.hpp"

namespace {

const std::vector<uint8_t>& dffBytes() { return rigport::bench::skinnedDff(); }

void setCounters(benchmark::State& state, size_t vertices) {
  const double iterations = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(dffBytes().size() * state.iterations()));
  state.counters["dff_MB"] = static_cast<double>(dffBytes().size()) / 1e6;
  state.counters["vertices"] = static_cast<double>(vertices);
  state.counters["vertices/s"] = benchmark::Counter(static_cast<double>(vertices) * iterations, benchmark::Counter::kIsRate);
  state.counters["MB/s"] =
      benchmark::Counter(static_cast<double>(dffBytes().size()) * iterations / 1e6, benchmark::Counter::kIsRate);
}

enum class Export { None, KeptRig, MovedRigIntoReusedArray };

// Reads the DFF each iteration, from fresh arrays or (`reuse`) into the last iteration's, and
// exports it too unless `how` is None.
void readDff(benchmark::State& state, Export how, bool reuse) {
  if (dffBytes().empty()) {
    state.SkipWithError("writeDff failed to build the input");
    return;
  }
  size_t vertices = 0;
  std::vector<uint8_t> reused;
  rigport::RigStorage storage;
  rigport::ExportCache cache;
  rigport::ReadOptions options;
  if (reuse) options.storage = &storage;
  for (auto _ : state) {
    rigport::ReadContext ctx(options);
    auto rig = rigport::renderware::readDff(dffBytes(), ctx);
    if (rigport::bench::skippedOnError(state, rig)) return;
    vertices = rig->vertexCount();
    if (how == Export::None) {
      benchmark::DoNotOptimize(rig->meshes.data());
    } else if (how == Export::MovedRigIntoReusedArray) {
      const rigport::Status exported = rigport::exportGlbInto(std::move(*rig), reused);
      if (rigport::bench::skippedOnError(state, exported)) return;
      benchmark::DoNotOptimize(reused.data());
    } else if (!reuse) {
      auto glb = rigport::exportGlb(*rig);
      if (rigport::bench::skippedOnError(state, glb)) return;
      benchmark::DoNotOptimize(glb->data());
    } else {
      const rigport::Status exported = rigport::exportGlbInto(*rig, reused, {}, &cache);
      if (rigport::bench::skippedOnError(state, exported)) return;
      benchmark::DoNotOptimize(reused.data());
    }
    if (reuse) storage.recycle(std::move(*rig));
  }
  setCounters(state, vertices);
}

void BM_ReadDff(benchmark::State& state) { readDff(state, Export::None, false); }
BENCHMARK(BM_ReadDff)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadDffReusingRig(benchmark::State& state) { readDff(state, Export::None, true); }
BENCHMARK(BM_ReadDffReusingRig)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadDffAndExportGlb(benchmark::State& state) { readDff(state, Export::KeptRig, false); }
BENCHMARK(BM_ReadDffAndExportGlb)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadDffReusingRigAndExportGlb(benchmark::State& state) { readDff(state, Export::KeptRig, true); }
BENCHMARK(BM_ReadDffReusingRigAndExportGlb)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadDffAndExportGlbInto(benchmark::State& state) { readDff(state, Export::MovedRigIntoReusedArray, false); }
BENCHMARK(BM_ReadDffAndExportGlbInto)->Unit(benchmark::kMillisecond)->UseRealTime();

// memcpy of the same DFF bytes: the ceiling the two rows above are reported against.
void BM_MemcpyDffBytes(benchmark::State& state) { rigport::bench::memcpyCeiling(state, dffBytes()); }
BENCHMARK(BM_MemcpyDffBytes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

RIGPORT_BENCHMARK_MAIN()
