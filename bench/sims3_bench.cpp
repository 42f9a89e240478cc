// The Sims 3 readers (sims3_clip.md): CLIP decoding of a 100,000-key clip (keys/s), a package of a
// rig and 500 RefPack-compressed clips (packages/s, clips/s), and RefPack decompression (MB/s of
// output), each beside a memcpy of the same bytes (memcpy_ceiling.hpp). Counters include the
// process's peak RSS.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "core/source.hpp"
#include "formats/sims3/refpack.hpp"
#include "formats/sims3/sims3.hpp"
#include "bench_main.hpp"
#include "inputs.hpp"
#include "memcpy_ceiling.hpp"

namespace {

using namespace rigport;

double peakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

const std::vector<uint8_t>& bigClip() { return bench::sims3Clip100k(); }
const std::vector<uint8_t>& package500() { return bench::sims3Package500(); }

size_t keyCount(const Animation& a) {
  size_t n = 0;
  for (const BoneTrack& t : a.tracks) n += t.translation.times.size() + t.rotation.times.size();
  return n;
}

void BM_ReadClip100kKeys(benchmark::State& state) {
  const std::vector<uint8_t> bytes = bigClip();
  size_t keys = 0;
  for (auto _ : state) {
    ReadContext ctx;
    auto clips = sims3::readClip(bytes, ctx);
    if (rigport::bench::skippedOnError(state, clips)) return;
    keys = keyCount(clips->animations[0]);
    benchmark::DoNotOptimize(clips);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
  state.counters["keys/s"] = benchmark::Counter(static_cast<double>(keys) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["keys"] = static_cast<double>(keys);
  state.counters["file_MB"] = static_cast<double>(bytes.size()) / 1e6;
  state.counters["peak_RSS_MiB"] = peakRssMiB();
}
BENCHMARK(BM_ReadClip100kKeys)->Unit(benchmark::kMillisecond);

void BM_MemcpyClipBytes(benchmark::State& state) { bench::memcpyCeiling(state, bigClip()); }
BENCHMARK(BM_MemcpyClipBytes)->Unit(benchmark::kMillisecond);

// Everything `rigport convert` reads from a package: index, name map, 500 decompressed and decoded
// clips and the rig.
void BM_ReadPackage500Clips(benchmark::State& state) {
  const std::vector<uint8_t> bytes = package500();
  size_t clips = 0;
  for (auto _ : state) {
    auto source = Source::fromBytes(bytes, "bench.package");
    ReadContext ctx;
    auto asset = sims3::readPackage(*source, ctx);
    if (rigport::bench::skippedOnError(state, asset)) return;
    clips = asset->clips.size();
    benchmark::DoNotOptimize(asset);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
  state.counters["packages/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["clips/s"] = benchmark::Counter(static_cast<double>(clips) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["file_MB"] = static_cast<double>(bytes.size()) / 1e6;
  state.counters["peak_RSS_MiB"] = peakRssMiB();
}
BENCHMARK(BM_ReadPackage500Clips)->Unit(benchmark::kMillisecond);

void BM_MemcpyPackageBytes(benchmark::State& state) { bench::memcpyCeiling(state, package500()); }
BENCHMARK(BM_MemcpyPackageBytes)->Unit(benchmark::kMillisecond);

// RefPack: the 100,000-key clip compressed once; rows count bytes of decompressed output.
std::vector<uint8_t> compressedClip() {
  static const std::vector<uint8_t> packed = sims3::refpackCompress(bigClip());
  return packed;
}

void BM_RefPackDecompress(benchmark::State& state) {
  const std::vector<uint8_t> packed = compressedClip();
  const size_t out = bigClip().size();
  for (auto _ : state) {
    auto bytes = sims3::refpackDecompress(ByteReader(packed));
    if (rigport::bench::skippedOnError(state, bytes)) return;
    benchmark::DoNotOptimize(bytes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(out));
  state.counters["ratio"] = static_cast<double>(packed.size()) / static_cast<double>(out);
}
BENCHMARK(BM_RefPackDecompress)->Unit(benchmark::kMillisecond);

void BM_RefPackCompress(benchmark::State& state) {
  const std::vector<uint8_t> plain = bigClip();
  for (auto _ : state) benchmark::DoNotOptimize(sims3::refpackCompress(plain));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(plain.size()));
}
BENCHMARK(BM_RefPackCompress)->Unit(benchmark::kMillisecond);

// memcpy of the decompressed output's size: the ceiling for the two RefPack rows.
void BM_MemcpyRefPackOutput(benchmark::State& state) { bench::memcpyCeiling(state, bigClip()); }
BENCHMARK(BM_MemcpyRefPackOutput)->Unit(benchmark::kMillisecond);

}  // namespace

RIGPORT_BENCHMARK_MAIN()
