// IFP read throughput on a generated ANPK package (renderware.md §4.1) the size of a large game
// package (bench/inputs.hpp: 1,000 animations x 32 tracks x 30 keys).
#include <benchmark/benchmark.h>

#include "core/bind.hpp"
#include "export/gltf.hpp"
#include "formats/renderware/renderware.hpp"
#include "inputs.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"

namespace {

void BM_ReadIfp(benchmark::State& state) {
  const std::vector<uint8_t>& bytes = rigport::bench::ifpPackage();
  size_t keys = 0;
  for (auto _ : state) {
    auto rig = rigport::renderware::readIfp(bytes);
    if (rigport::bench::skippedOnError(state, rig)) return;
    keys = 0;  // key records in the file (one per time, whatever channels it carries)
    for (const auto& anim : rig->animations)
      for (const auto& track : anim.tracks) keys += track.rotation.times.size();
    benchmark::DoNotOptimize(rig);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
  state.counters["keys/s"] = benchmark::Counter(static_cast<double>(keys) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["file_MB"] = static_cast<double>(bytes.size()) / 1e6;
}
BENCHMARK(BM_ReadIfp)->Unit(benchmark::kMillisecond);

// What `rigport convert skeleton.dff --anim package.ifp` does after loading: read the package,
// bind every track by bone id, export all 1,000 clips into one .glb. BM_ReadIfpAndExportGlb
// exports a const rig with exportGlb (a library caller keeping its rig: the exporter copies what it
// changes); BM_ReadIfpAndConvert moves the rig into exportGlbParts as the CLI does.
void readBindExport(benchmark::State& state, bool moved) {
  const std::vector<uint8_t>& bytes = rigport::bench::ifpPackage();
  const rigport::Rig skeleton = rigport::bench::ifpSkeleton();
  size_t glbBytes = 0;
  for (auto _ : state) {
    auto package = rigport::renderware::readIfp(bytes);
    if (rigport::bench::skippedOnError(state, package)) return;
    rigport::Rig rig = skeleton;
    if (auto bound = rigport::bindAnimations(rig, std::move(package->animations)); !bound) {
      state.SkipWithError(bound.error().describe().c_str());
      return;
    }
    if (moved) {
      auto glb = rigport::exportGlbParts(std::move(rig));
      if (rigport::bench::skippedOnError(state, glb)) return;
      glbBytes = glb->size();
      benchmark::DoNotOptimize(glb);
      continue;
    }
    auto glb = rigport::exportGlb(rig);
    if (rigport::bench::skippedOnError(state, glb)) return;
    glbBytes = glb->size();
    benchmark::DoNotOptimize(glb);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
  state.counters["glb_MB"] = static_cast<double>(glbBytes) / 1e6;
}

void BM_ReadIfpAndExportGlb(benchmark::State& state) { readBindExport(state, false); }
BENCHMARK(BM_ReadIfpAndExportGlb)->Unit(benchmark::kMillisecond);

void BM_ReadIfpAndConvert(benchmark::State& state) { readBindExport(state, true); }
BENCHMARK(BM_ReadIfpAndConvert)->Unit(benchmark::kMillisecond);

// memcpy of the same package bytes: the ceiling the rows above are reported against.
void BM_MemcpyIfpBytes(benchmark::State& state) { rigport::bench::memcpyCeiling(state, rigport::bench::ifpPackage()); }
BENCHMARK(BM_MemcpyIfpBytes)->Unit(benchmark::kMillisecond);

}  // namespace

RIGPORT_BENCHMARK_MAIN()
