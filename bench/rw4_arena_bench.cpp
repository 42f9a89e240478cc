// RW4 arena read throughput on a 200,000-vertex PS3 .psg (bench/inputs.hpp: 4 skinned meshes ×
// 50,000 vertices, 4 influences, 64 bones, F×3 positions, CMP normals, SF×2 UVs, UB×4 weights,
// UB256×4 indices, 28 bytes a vertex, big-endian). BM_ReadArena: bytes → rig (every byte swap included);
// BM_ReadArenaAndExportGlb: bytes → rig → .glb; BM_ReadArenaReusingRig(AndExportGlb): the same
// into recycled arrays (readArena()'s `reuse`). Counters: MB/s of arena input, vertices/s.
#include <benchmark/benchmark.h>

#include "core/rig_storage.hpp"
#include "export/gltf.hpp"
#include "formats/rw4/rw4.hpp"
#include "inputs.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"

namespace {

const std::vector<uint8_t>& arenaBytes() { return rigport::bench::skinnedArena(); }

void setCounters(benchmark::State& state, size_t vertices) {
  const double iterations = static_cast<double>(state.iterations());
  const double mb = static_cast<double>(arenaBytes().size()) / 1e6;
  state.SetBytesProcessed(static_cast<int64_t>(arenaBytes().size() * state.iterations()));
  state.counters["psg_MB"] = mb;
  state.counters["vertices"] = static_cast<double>(vertices);
  state.counters["vertices/s"] = benchmark::Counter(static_cast<double>(vertices) * iterations, benchmark::Counter::kIsRate);
  state.counters["MB/s"] = benchmark::Counter(mb * iterations, benchmark::Counter::kIsRate);
}

// `reuse`: each rig recycled into a RigStorage the next read fills (core/rig_storage.hpp), and the
// export made through one ExportCache into one reused GLB array, as a program converting file
// after file under glibc's default allocator would (the DFF's rows, renderware_dff_bench.cpp).
void readArena(benchmark::State& state, bool toGlb, bool reuse = false) {
  if (arenaBytes().empty()) {
    state.SkipWithError("writeArena failed to build the input");
    return;
  }
  // The Source borrows nothing: a copy made once, outside the timed loop (as a mapped file would be).
  const auto source = rigport::Source::fromBytes(arenaBytes(), "bench.psg");
  size_t vertices = 0;
  rigport::RigStorage storage;
  rigport::ExportCache cache;
  std::vector<uint8_t> reused;
  rigport::ReadOptions options;
  if (reuse) options.storage = &storage;
  for (auto _ : state) {
    rigport::ReadContext ctx(options);
    auto asset = rigport::rw4::readArena(*source, ctx);
    if (!asset || asset->rigs.size() != 1) {
      state.SkipWithError(asset ? "expected one rig" : asset.error().describe().c_str());
      return;
    }
    vertices = asset->rigs[0].vertexCount();
    if (!toGlb) {
      benchmark::DoNotOptimize(asset->rigs.data());
    } else if (!reuse) {
      auto glb = rigport::exportGlb(asset->rigs[0]);
      if (rigport::bench::skippedOnError(state, glb)) return;
      benchmark::DoNotOptimize(glb->data());
    } else {
      const rigport::Status exported = rigport::exportGlbInto(asset->rigs[0], reused, {}, &cache);
      if (rigport::bench::skippedOnError(state, exported)) return;
      benchmark::DoNotOptimize(reused.data());
    }
    if (reuse) storage.recycle(std::move(asset->rigs[0]));
  }
  setCounters(state, vertices);
}

void BM_ReadArena(benchmark::State& state) { readArena(state, false); }
BENCHMARK(BM_ReadArena)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadArenaAndExportGlb(benchmark::State& state) { readArena(state, true); }
BENCHMARK(BM_ReadArenaAndExportGlb)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadArenaReusingRig(benchmark::State& state) { readArena(state, false, true); }
BENCHMARK(BM_ReadArenaReusingRig)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadArenaReusingRigAndExportGlb(benchmark::State& state) { readArena(state, true, true); }
BENCHMARK(BM_ReadArenaReusingRigAndExportGlb)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MemcpyArenaBytes(benchmark::State& state) { rigport::bench::memcpyCeiling(state, arenaBytes()); }
BENCHMARK(BM_MemcpyArenaBytes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

RIGPORT_BENCHMARK_MAIN()
