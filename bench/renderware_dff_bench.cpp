// DFF read throughput: a skinned clump written once by writeDff (2 atomics × 60,000 vertices =
// 120,000 vertices, 4 influences each, 64 bones), then read (BM_ReadDff) and read + exported to a
// .glb (BM_ReadDffAndExportGlb). Two atomics because RW triangles index at most 65,535 vertices.
// Counters: MB/s of DFF input, vertices/s.
#include <benchmark/benchmark.h>

#include <cmath>

#include "export/gltf.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"
#include "formats/renderware/dff_io.hpp"
#include "formats/renderware/rw_axes.hpp"

namespace {

constexpr int kBones = 64;
constexpr int kMeshes = 2;
constexpr int kVerticesPerMesh = 60'000;

rigport::Rig makeRig() {
  rigport::Rig rig;
  rig.provenance.axes = rigport::renderware::kRenderWareAxes;
  for (int b = 0; b < kBones; ++b) {
    rigport::Bone bone;
    bone.name = "bone" + std::to_string(b);
    bone.parent = b == 0 ? -1 : (b - 1) / 2;  // a binary tree
    bone.translation = {0.1f * static_cast<float>(b % 3), 0.0f, 0.25f};
    bone.rotation = glm::angleAxis(0.05f * static_cast<float>(b), glm::normalize(glm::vec3(1, 0.5f, 0.2f)));
    bone.id = static_cast<uint32_t>(b);
    rig.skeleton.bones.push_back(bone);
  }
  for (int m = 0; m < kMeshes; ++m) {
    rigport::Mesh mesh;
    mesh.influenceOffsets.push_back(0);
    for (int v = 0; v < kVerticesPerMesh; ++v) {
      const float t = static_cast<float>(v) * 0.001f;
      mesh.positions.emplace_back(std::cos(t), std::sin(t), t * 0.01f + static_cast<float>(m));
      mesh.normals.emplace_back(std::cos(t), std::sin(t), 0.0f);
      mesh.uvs.emplace_back(t, 0.5f);
      for (int k = 0; k < 4; ++k) {
        mesh.influences.push_back(rigport::Influence{static_cast<uint32_t>((v + 17 * k) % kBones), 0.4f - 0.1f * k});
      }
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
    for (uint32_t v = 0; v + 2 < kVerticesPerMesh; ++v) mesh.indices.insert(mesh.indices.end(), {v, v + 1, v + 2});
    rig.meshes.push_back(std::move(mesh));
  }
  return rig;
}

const std::vector<uint8_t>& dffBytes() {
  static const std::vector<uint8_t> bytes = [] {
    auto written = rigport::renderware::writeDff(makeRig());
    return written ? std::move(*written) : std::vector<uint8_t>{};
  }();
  return bytes;
}

void setCounters(benchmark::State& state, size_t vertices) {
  const double iterations = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(dffBytes().size() * state.iterations()));
  state.counters["dff_MB"] = static_cast<double>(dffBytes().size()) / 1e6;
  state.counters["vertices"] = static_cast<double>(vertices);
  state.counters["vertices/s"] = benchmark::Counter(static_cast<double>(vertices) * iterations, benchmark::Counter::kIsRate);
  state.counters["MB/s"] =
      benchmark::Counter(static_cast<double>(dffBytes().size()) * iterations / 1e6, benchmark::Counter::kIsRate);
}

// Reads the DFF each iteration and, with `toGlb`, exports it too (what `rigport convert` does).
void readDff(benchmark::State& state, bool toGlb) {
  if (dffBytes().empty()) {
    state.SkipWithError("writeDff failed to build the input");
    return;
  }
  size_t vertices = 0;
  for (auto _ : state) {
    auto rig = rigport::renderware::readDff(dffBytes());
    if (!rig) {
      state.SkipWithError(rig.error().describe().c_str());
      return;
    }
    vertices = rig->vertexCount();
    if (!toGlb) {
      benchmark::DoNotOptimize(rig->meshes.data());
      continue;
    }
    auto glb = rigport::exportGlb(*rig);
    if (!glb) {
      state.SkipWithError(glb.error().describe().c_str());
      return;
    }
    benchmark::DoNotOptimize(glb->data());
  }
  setCounters(state, vertices);
}

void BM_ReadDff(benchmark::State& state) { readDff(state, false); }
BENCHMARK(BM_ReadDff)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadDffAndExportGlb(benchmark::State& state) { readDff(state, true); }
BENCHMARK(BM_ReadDffAndExportGlb)->Unit(benchmark::kMillisecond)->UseRealTime();

// memcpy of the same DFF bytes: the ceiling the two rows above are reported against.
void BM_MemcpyDffBytes(benchmark::State& state) { rigport::bench::memcpyCeiling(state, dffBytes()); }
BENCHMARK(BM_MemcpyDffBytes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

RIGPORT_BENCHMARK_MAIN()
