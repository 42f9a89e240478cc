// BattleForge read throughput (battleforge_drs.md): a DRS written by rigport's own writer with
// 60,000 vertices (one BattleforgeMesh: face indices are 16-bit) on 128 bones, 4 influences per
// vertex, so the read does everything a real unit asks for (skeleton, rev-12 weights through the
// joint map, the CSkSkinInfo cross-check by position over the CGeoMesh); and a SKA of 10,240 keys
// (128 bones × (40 translation + 40 rotation keys)).
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "export/gltf.hpp"
#include "formats/battleforge/axes.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"

namespace {

constexpr int kBones = 128;
constexpr int kGrid = 245;  // 245 × 245 = 60,025 vertices
constexpr int kKeysPerChannel = 40;

rigport::Rig makeRig() {
  rigport::Rig rig;
  rig.provenance.axes = rigport::battleforge::kBattleForgeAxes;
  for (int b = 0; b < kBones; ++b) {
    rigport::Bone bone;
    bone.name = "bone_" + std::to_string(b);
    bone.parent = b == 0 ? -1 : (b - 1) / 2;  // a binary tree
    bone.id = static_cast<uint32_t>(1000 + 7 * b);
    bone.translation = {0.1f, 0.2f, 0.0f};
    bone.rotation = glm::angleAxis(0.01f * static_cast<float>(b), glm::vec3(0, 0, 1));
    rig.skeleton.bones.push_back(bone);
  }
  rigport::Mesh mesh;
  mesh.name = "body";
  mesh.influenceOffsets.push_back(0);
  for (int y = 0; y < kGrid; ++y) {
    for (int x = 0; x < kGrid; ++x) {
      mesh.positions.push_back({0.01f * static_cast<float>(x), 0.01f * static_cast<float>(y), 0.0f});
      mesh.normals.push_back({0.0f, 0.0f, 1.0f});
      mesh.uvs.push_back({static_cast<float>(x) / kGrid, static_cast<float>(y) / kGrid});
      for (uint32_t k = 0; k < 4; ++k) {
        mesh.influences.push_back({static_cast<uint32_t>((x / 8 + y / 8 + 17 * k) % kBones), 0.1f + 0.2f * static_cast<float>(k)});
      }
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
  }
  for (uint32_t y = 0; y + 1 < kGrid; ++y) {
    for (uint32_t x = 0; x + 1 < kGrid; ++x) {
      const uint32_t a = y * kGrid + x, b = a + 1, c = a + kGrid, d = c + 1;
      mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c});
    }
  }
  rig.meshes.push_back(std::move(mesh));
  rigport::Animation anim;
  anim.name = "walk";
  anim.duration = 2.0f;
  for (int b = 0; b < kBones; ++b) {
    rigport::BoneTrack t;
    t.bone = b;
    for (int k = 0; k < kKeysPerChannel; ++k) {
      const float time = 2.0f * static_cast<float>(k) / (kKeysPerChannel - 1);
      t.translation.times.push_back(time);
      t.translation.values.push_back({0.1f, 0.2f + 0.01f * static_cast<float>(k), 0.0f});
      t.rotation.times.push_back(time);
      t.rotation.values.push_back(glm::angleAxis(0.02f * static_cast<float>(k + b), glm::vec3(1, 0, 0)));
    }
    anim.tracks.push_back(std::move(t));
  }
  rig.animations.push_back(std::move(anim));
  return rig;
}

const rigport::Rig& rig() {
  static const rigport::Rig r = makeRig();
  return r;
}

const std::vector<uint8_t>& drsBytes() {
  static const std::vector<uint8_t> bytes = rigport::battleforge::writeDrs(rig()).value();
  return bytes;
}

const std::vector<uint8_t>& skaBytes() {
  static const std::vector<uint8_t> bytes = rigport::battleforge::writeSka(rig()).value();
  return bytes;
}

void BM_ReadDrs(benchmark::State& state) {
  const std::vector<uint8_t>& bytes = drsBytes();
  size_t vertices = 0;
  for (auto _ : state) {
    auto r = rigport::battleforge::readDrs(bytes);
    if (!r) {
      state.SkipWithError(r.error().describe().c_str());
      return;
    }
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
    if (!r) {
      state.SkipWithError(r.error().describe().c_str());
      return;
    }
    rigport::toGltfAxes(*r);
    auto glb = rigport::exportGlb(*r);
    if (!glb) {
      state.SkipWithError(glb.error().describe().c_str());
      return;
    }
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
    if (!clips) {
      state.SkipWithError(clips.error().describe().c_str());
      return;
    }
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
