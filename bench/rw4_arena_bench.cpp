// RW4 arena read throughput: a PS3 .psg written once by rw4::writeArena: 4 skinned meshes × 50,000
// vertices = 200,000 vertices (16-bit indices address 65,535 per mesh), 4 influences each, 64 bones,
// the writer's default layout (F×3 positions, CMP normals, SF×2 UVs, UB×4 weights, UB256×4 indices:
// 28 bytes a vertex, big-endian). BM_ReadArena: bytes → rig (every byte swap included);
// BM_ReadArenaAndExportGlb: bytes → rig → .glb. Counters: MB/s of arena input, vertices/s.
#include <benchmark/benchmark.h>

#include <cmath>

#include "export/gltf.hpp"
#include "formats/rw4/arena_io.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"

namespace {

constexpr int kBones = 64;
constexpr int kMeshes = 4;
constexpr int kVerticesPerMesh = 50'000;

rigport::Rig makeRig() {
  rigport::Rig rig;
  for (int b = 0; b < kBones; ++b) {
    rigport::Bone bone;
    bone.name = "bone" + std::to_string(b);
    bone.parent = b == 0 ? -1 : (b - 1) / 2;
    bone.translation = {0.1f * static_cast<float>(b % 3), 0.25f, 0.0f};
    bone.rotation = glm::angleAxis(0.05f * static_cast<float>(b), glm::normalize(glm::vec3(1, 0.5f, 0.2f)));
    rig.skeleton.bones.push_back(bone);
  }
  for (int m = 0; m < kMeshes; ++m) {
    rigport::Mesh mesh;
    mesh.influenceOffsets.push_back(0);
    for (int v = 0; v < kVerticesPerMesh; ++v) {
      const float t = static_cast<float>(v) * 0.001f;
      mesh.positions.emplace_back(std::cos(t), std::sin(t), t * 0.01f + static_cast<float>(m));
      mesh.normals.emplace_back(std::cos(t), std::sin(t), 0.0f);
      mesh.uvs.emplace_back(std::fmod(t, 1.0f), 0.5f);
      for (int k = 0; k < 4; ++k) {
        mesh.influences.push_back(rigport::Influence{static_cast<uint32_t>((v + 17 * k) % kBones), 0.4f - 0.1f * static_cast<float>(k)});
      }
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
    for (uint32_t v = 0; v + 2 < kVerticesPerMesh; ++v) mesh.indices.insert(mesh.indices.end(), {v, v + 1, v + 2});
    rig.meshes.push_back(std::move(mesh));
  }
  return rig;
}

const std::vector<uint8_t>& arenaBytes() {
  static const std::vector<uint8_t> bytes = [] {
    auto written = rigport::rw4::writeArena(makeRig());
    return written ? std::move(*written) : std::vector<uint8_t>{};
  }();
  return bytes;
}

void setCounters(benchmark::State& state, size_t vertices) {
  const double iterations = static_cast<double>(state.iterations());
  const double mb = static_cast<double>(arenaBytes().size()) / 1e6;
  state.SetBytesProcessed(static_cast<int64_t>(arenaBytes().size() * state.iterations()));
  state.counters["psg_MB"] = mb;
  state.counters["vertices"] = static_cast<double>(vertices);
  state.counters["vertices/s"] = benchmark::Counter(static_cast<double>(vertices) * iterations, benchmark::Counter::kIsRate);
  state.counters["MB/s"] = benchmark::Counter(mb * iterations, benchmark::Counter::kIsRate);
}

void readArena(benchmark::State& state, bool toGlb) {
  if (arenaBytes().empty()) {
    state.SkipWithError("writeArena failed to build the input");
    return;
  }
  // The Source borrows nothing: a copy made once, outside the timed loop (as a mapped file would be).
  const auto source = rigport::Source::fromBytes(arenaBytes(), "bench.psg");
  size_t vertices = 0;
  for (auto _ : state) {
    rigport::ReadContext ctx;
    auto asset = rigport::rw4::readArena(*source, ctx);
    if (!asset || asset->rigs.size() != 1) {
      state.SkipWithError(asset ? "expected one rig" : asset.error().describe().c_str());
      return;
    }
    vertices = asset->rigs[0].vertexCount();
    if (!toGlb) {
      benchmark::DoNotOptimize(asset->rigs.data());
      continue;
    }
    auto glb = rigport::exportGlb(asset->rigs[0]);
    if (!glb) {
      state.SkipWithError(glb.error().describe().c_str());
      return;
    }
    benchmark::DoNotOptimize(glb->data());
  }
  setCounters(state, vertices);
}

void BM_ReadArena(benchmark::State& state) { readArena(state, false); }
BENCHMARK(BM_ReadArena)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadArenaAndExportGlb(benchmark::State& state) { readArena(state, true); }
BENCHMARK(BM_ReadArenaAndExportGlb)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MemcpyArenaBytes(benchmark::State& state) { rigport::bench::memcpyCeiling(state, arenaBytes()); }
BENCHMARK(BM_MemcpyArenaBytes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

RIGPORT_BENCHMARK_MAIN()
