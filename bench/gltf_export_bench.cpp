// glTF export throughput on a large rig: the demo character scaled to 1,000,000 vertices with up to
// 4 influences each, 256 bones and about 10,000 animation keys (src/demo/character.hpp), exported
// to a .glb in memory (validate, joint remap, accessors, JSON, GLB framing).
// Counters: vertices/s, MB/s of .glb output, items (vertices) processed, peak RSS of the process.
// BM_WeightLanes times the JOINTS/WEIGHTS lanes alone.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <random>

#include "demo/character.hpp"
#include "export/gltf.hpp"
#include "export/gltf_influences.hpp"
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
    if (rigport::bench::skippedOnError(state, glb)) return;
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

// The JOINTS/WEIGHTS lanes alone on 131,072 vertices of four random weights (uniform, then
// normalised in float), which is where the weight-sum fix-up cycles (gltf_influences.cpp): range(0)
// lanes, 4 (SSE2) or 8 (AVX2, skipped without it). Counters: vertices/s, MB/s of influence bytes.
struct RandomInfluences {
  std::vector<int32_t> jointOfBone;
  rigport::InfluenceList influences;
  std::vector<uint32_t> offsets{0};
  std::vector<uint8_t> bytes;  // the influences' bytes, for the memcpy ceiling
};

const RandomInfluences& randomInfluences() {
  static const RandomInfluences r = [] {
    RandomInfluences out;
    for (int32_t b = 0; b < 64; ++b) out.jointOfBone.push_back((b * 7) % 64);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> weight(0.01f, 1.0f);
    for (uint32_t v = 0; v < 131072; ++v) {
      float w[4], sum = 0.0f;
      for (float& x : w) sum += (x = weight(rng));
      const uint32_t first = rng() % 60;
      for (uint32_t k = 0; k < 4; ++k) out.influences.push_back(rigport::Influence{first + k, w[k] / sum});
      out.offsets.push_back(static_cast<uint32_t>(out.influences.size()));
    }
    const auto* p = reinterpret_cast<const uint8_t*>(out.influences.data());
    out.bytes.assign(p, p + out.influences.size() * sizeof(rigport::Influence));
    return out;
  }();
  return r;
}

void BM_WeightLanes(benchmark::State& state) {
  const size_t lanes = static_cast<size_t>(state.range(0));
  if (lanes == 8 && !rigport::gltf::InfluenceNormaliser::eightLanes()) {
    state.SkipWithError("this CPU has no AVX2");
    return;
  }
  const RandomInfluences& r = randomInfluences();
  const rigport::gltf::InfluenceNormaliser normaliser(r.jointOfBone, 0, 1);
  const size_t nv = r.offsets.size() - 1;
  std::vector<uint32_t> joints(nv * 4);
  std::vector<float> weights(nv * 4);
  for (auto _ : state) {
    unsigned taken = 0;
    for (size_t v = 0; v + lanes <= nv; v += lanes) {
      taken += lanes == 8 ? normaliser.normaliseEightByEight(r.influences.data(), &r.offsets[v], &joints[v * 4], &weights[v * 4])
                          : normaliser.normaliseFourByFour(r.influences.data(), &r.offsets[v], &joints[v * 4], &weights[v * 4]);
    }
    benchmark::DoNotOptimize(taken);
    benchmark::ClobberMemory();
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["vertices/s"] = benchmark::Counter(static_cast<double>(nv) * iterations, benchmark::Counter::kIsRate);
  state.counters["MB/s"] = benchmark::Counter(static_cast<double>(r.bytes.size()) * iterations / 1e6, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_WeightLanes)->Arg(4)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();

// memcpy of the influences' bytes: the ceiling BM_WeightLanes is reported against.
void BM_MemcpyInfluenceBytes(benchmark::State& state) { rigport::bench::memcpyCeiling(state, randomInfluences().bytes); }
BENCHMARK(BM_MemcpyInfluenceBytes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

RIGPORT_BENCHMARK_MAIN()
