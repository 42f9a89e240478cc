// Sluggers model block read throughput: a block written once by writeModel with 100,000 vertices
// (a skinned submesh of 60,000, the most a GPL array's u16 count and indices allow with room to
// spare, and four rigid submeshes of 10,000 on four bones), 64 bones, 1-4 influences per skinned
// vertex (so SK1, SK2 and SKAcc entries all occur), then read (BM_ReadSluggersModel) and read +
// exported to a .glb (BM_ReadSluggersModelAndExportGlb). Counters: MB/s of block input, vertices/s.
// With RIGPORT_BENCH_BLOCK=path the block is also written there, for measuring `rigport convert`'s
// peak memory on it (BENCHMARKS.md).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "export/gltf.hpp"
#include "formats/sluggers/model_io.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"

namespace {

constexpr int kBones = 64;
constexpr int kSkinned = 60'000;
constexpr int kRigid = 4;
constexpr int kRigidVertices = 10'000;

rigport::Rig makeRig() {
  rigport::Rig rig;
  for (int b = 0; b < kBones; ++b) {
    rigport::Bone bone;
    bone.name = "bone" + std::to_string(b);
    bone.parent = b == 0 ? -1 : (b - 1) / 2;
    bone.translation = {0.1f * static_cast<float>(b % 3), 0.0f, 0.25f};
    bone.rotation = glm::angleAxis(0.05f * static_cast<float>(b), glm::normalize(glm::vec3(1, 0.5f, 0.2f)));
    rig.skeleton.bones.push_back(bone);
  }
  rigport::Mesh skin;
  skin.name = "body";
  skin.influenceOffsets.push_back(0);
  for (int v = 0; v < kSkinned; ++v) {
    const float t = static_cast<float>(v) * 0.001f;
    skin.positions.emplace_back(std::cos(t), std::sin(t), t * 0.01f);
    skin.normals.emplace_back(std::cos(t), std::sin(t), 0.0f);
    skin.uvs.emplace_back(std::fmod(t, 1.0f), 0.5f);
    // Runs of 8 vertices with the same influence count (1..4) and bones, as meshes have.
    const int run = v / 8;
    const int count = 1 + run % 4;
    for (int k = 0; k < count; ++k) skin.influences.push_back({static_cast<uint32_t>((run + 17 * k) % kBones), 1.0f / static_cast<float>(count)});
    skin.influenceOffsets.push_back(static_cast<uint32_t>(skin.influences.size()));
  }
  for (uint32_t v = 0; v + 2 < kSkinned; ++v) skin.indices.insert(skin.indices.end(), {v, v + 1, v + 2});
  rig.meshes.push_back(std::move(skin));
  for (int m = 0; m < kRigid; ++m) {
    rigport::Mesh mesh;
    mesh.name = "rigid" + std::to_string(m);
    mesh.attachBone = 1 + m;
    for (int v = 0; v < kRigidVertices; ++v) {
      const float t = static_cast<float>(v) * 0.002f;
      mesh.positions.emplace_back(std::cos(t), std::sin(t), 0.1f * static_cast<float>(m));
      mesh.normals.emplace_back(0.0f, 0.0f, 1.0f);
      mesh.uvs.emplace_back(std::fmod(t, 1.0f), 0.25f);
    }
    for (uint32_t v = 0; v + 2 < kRigidVertices; ++v) mesh.indices.insert(mesh.indices.end(), {v, v + 1, v + 2});
    rig.meshes.push_back(std::move(mesh));
  }
  return rig;
}

const std::vector<uint8_t>& blockBytes() {
  static const std::vector<uint8_t> bytes = [] {
    auto written = rigport::sluggers::writeModel(makeRig());
    if (!written) return std::vector<uint8_t>{};
    if (const char* path = std::getenv("RIGPORT_BENCH_BLOCK")) {
      std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(written->data()), static_cast<std::streamsize>(written->size()));
    }
    return std::move(*written);
  }();
  return bytes;
}

void read(benchmark::State& state, bool toGlb) {
  if (blockBytes().empty()) {
    state.SkipWithError("writeModel failed to build the input");
    return;
  }
  size_t vertices = 0;
  for (auto _ : state) {
    auto rig = rigport::sluggers::readModel(blockBytes());
    if (!rig) {
      state.SkipWithError(rig.error().describe().c_str());
      return;
    }
    vertices = rig->vertexCount();
    if (toGlb) {
      auto glb = rigport::exportGlb(*rig);
      if (!glb) {
        state.SkipWithError(glb.error().describe().c_str());
        return;
      }
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
