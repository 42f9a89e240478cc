// BattleForge read throughput (battleforge_drs.md): the DRS of bench/inputs.hpp (battleforgeDrs)
// and a SKA of its rig's walk, 10,240 keys (128 bones × (40 translation + 40 rotation keys)).
#include <benchmark/benchmark.h>

#include "core/axes.hpp"
#include "export/gltf.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "bench_main.hpp"
#include "inputs.hpp"
#include "memcpy_ceiling.hpp"

namespace {

const std::vector<uint8_t>& drsBytes() { return rigport::bench::battleforgeDrs(); }

const std::vector<uint8_t>& skaBytes() {
  static const std::vector<uint8_t> bytes = rigport::battleforge::writeSka(rigport::bench::battleforgeRig()).value();
  return bytes;
}
void BM_ReadDrs(benchmark::State& state) {
  const std::vector<uint8_t>& bytes = drsBytes();
  size_t vertices = 0;
  for (auto _ : state) {
    auto r = rigport::battleforge::readDrs(bytes);
    if (rigport::bench::skippedOnError(state, r)) return;
    vertices = r->vertexCount();
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
  state.counters["vertices/s"] = benchmark::Counter(static_cast<double>(vertices) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["file_MB"] = static_cast<double>(bytes.size()) / 1e6;
}
BENCHMARK(BM_ReadDrs)->Unit(benchmark::kMillisecond);

// What `rigport convert unit.drs` does after loading: the rig into glTF axes, then the .glb.
void BM_ReadDrsAndExportGlb(benchmark::State& state) {
  const std::vector<uint8_t>& bytes = drsBytes();
  size_t glbBytes = 0;
  for (auto _ : state) {
    auto r = rigport::battleforge::readDrs(bytes);
    if (rigport::bench::skippedOnError(state, r)) return;
    rigport::toGltfAxes(*r);
    auto glb = rigport::exportGlb(*r);
    if (rigport::bench::skippedOnError(state, glb)) return;
    glbBytes = glb->size();
    benchmark::DoNotOptimize(glb);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
  state.counters["glb_MB"] = static_cast<double>(glbBytes) / 1e6;
}
BENCHMARK(BM_ReadDrsAndExportGlb)->Unit(benchmark::kMillisecond);

void BM_MemcpyDrsBytes(benchmark::State& state) { rigport::bench::memcpyCeiling(state, drsBytes()); }
BENCHMARK(BM_MemcpyDrsBytes)->Unit(benchmark::kMillisecond);

void BM_ReadSka(benchmark::State& state) {
  const std::vector<uint8_t>& bytes = skaBytes();
  size_t keys = 0;
  for (auto _ : state) {
    auto clips = rigport::battleforge::readSka(bytes);
    if (rigport::bench::skippedOnError(state, clips)) return;
    keys = clips->animations[0].keyCount();
    benchmark::DoNotOptimize(clips);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
  state.counters["keys/s"] = benchmark::Counter(static_cast<double>(keys) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["keys"] = static_cast<double>(keys);
}
BENCHMARK(BM_ReadSka)->Unit(benchmark::kMicrosecond);

void BM_MemcpySkaBytes(benchmark::State& state) { rigport::bench::memcpyCeiling(state, skaBytes()); }
BENCHMARK(BM_MemcpySkaBytes)->Unit(benchmark::kMicrosecond);

}  // namespace

RIGPORT_BENCHMARK_MAIN()
