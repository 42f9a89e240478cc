#include "inputs.hpp"

#include <cmath>
#include <string>

#include "core/byte_writer.hpp"
#include "formats/battleforge/axes.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/renderware/axes.hpp"
#include "formats/rw4/rw4.hpp"
#include "formats/sims3/sims3.hpp"
#include "formats/sluggers/sluggers.hpp"

namespace rigport::bench {
namespace {

constexpr int kBones = 64;
constexpr int kSkinned = 60'000;  // the Sluggers block's skinned submesh (a GPL array's u16 count, with room)
constexpr int kRigid = 4;
constexpr int kRigidVertices = 10'000;
constexpr int kBattleforgeBones = 128;
constexpr int kBattleforgeGrid = 245;  // 245 × 245 = 60,025 vertices
constexpr int kBattleforgeKeys = 40;

rigport::Rig binaryTreeSkeleton() {
  rigport::Rig rig;
  for (int b = 0; b < kBones; ++b) {
    rigport::Bone bone;
    bone.name = "bone" + std::to_string(b);
    bone.parent = b == 0 ? -1 : (b - 1) / 2;
    bone.translation = {0.1f * static_cast<float>(b % 3), 0.0f, 0.25f};
    bone.rotation = glm::angleAxis(0.05f * static_cast<float>(b), glm::normalize(glm::vec3(1, 0.5f, 0.2f)));
    bone.id = static_cast<uint32_t>(b);
    rig.skeleton.bones.push_back(bone);
  }
  return rig;
}

// count vertices on a helix, 4 influences each (bones (v + 17k) mod 64, weights 0.4 .. 0.1), a
// triangle per vertex.
rigport::Mesh helixMesh(int count, float offset) {
  rigport::Mesh mesh;
  mesh.influenceOffsets.push_back(0);
  for (int v = 0; v < count; ++v) {
    const float t = static_cast<float>(v) * 0.001f;
    mesh.positions.emplace_back(std::cos(t), std::sin(t), t * 0.01f + offset);
    mesh.normals.emplace_back(std::cos(t), std::sin(t), 0.0f);
    mesh.uvs.emplace_back(std::fmod(t, 1.0f), 0.5f);
    for (int k = 0; k < 4; ++k) {
      mesh.influences.push_back(rigport::Influence{static_cast<uint32_t>((v + 17 * k) % kBones), 0.4f - 0.1f * static_cast<float>(k)});
    }
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
  for (uint32_t v = 0; v + 2 < static_cast<uint32_t>(count); ++v) mesh.indices.insert(mesh.indices.end(), {v, v + 1, v + 2});
  return mesh;
}

template <class Write>
const std::vector<uint8_t>& once(std::vector<uint8_t>& cache, Write write) {
  if (cache.empty()) {
    auto written = write();
    if (written) cache = std::move(*written);
  }
  return cache;
}

rigport::Rig blockRig() {
  rigport::Rig rig = binaryTreeSkeleton();
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

// Tagged block `char tag[4], u32 size`; returns the size field position for patching.
size_t beginBlock(rigport::ByteWriter& w, const char* tag) {
  w.fixedString(tag, 4);
  const size_t at = w.size();
  w.u32(0);
  return at;
}
void endBlock(rigport::ByteWriter& w, size_t at) { w.patchU32(at, static_cast<uint32_t>(w.size() - at - 4)); }

// A NUL-terminated string whose size field holds strlen + 1 and whose payload is padded to 4.
void stringBlock(rigport::ByteWriter& w, const char* tag, const std::string& text, const int32_t* prefix) {
  w.fixedString(tag, 4);
  w.u32(static_cast<uint32_t>(text.size() + 1 + (prefix ? 4 : 0)));
  if (prefix) w.s32(*prefix);
  w.cString(text);
  w.align(4);
}

std::vector<uint8_t> makeAnpk() {
  rigport::ByteWriter w;
  const size_t pkg = beginBlock(w, "ANPK");
  const int32_t numAnims = kIfpAnimations;
  stringBlock(w, "INFO", "bench", &numAnims);
  for (int a = 0; a < kIfpAnimations; ++a) {
    stringBlock(w, "NAME", "anim_" + std::to_string(a), nullptr);
    const size_t dgan = beginBlock(w, "DGAN");
    const size_t info = beginBlock(w, "INFO");
    w.s32(kIfpTracks);
    w.s32(0);
    endBlock(w, info);
    for (int t = 0; t < kIfpTracks; ++t) {
      const bool translation = t % 2 == 0;
      const size_t cpan = beginBlock(w, "CPAN");
      const size_t anim = beginBlock(w, "ANIM");
      w.fixedString("bone_" + std::to_string(t), 28);
      w.s32(kIfpKeys);
      w.s32(0);
      w.s32(kIfpKeys - 1);
      w.s32(t);
      endBlock(w, anim);
      const size_t keys = beginBlock(w, translation ? "KRT0" : "KR00");
      for (int k = 0; k < kIfpKeys; ++k) {
        const float angle = 0.01f * static_cast<float>(a + t + k);
        w.f32(0.0f);
        w.f32(0.0f);
        w.f32(-std::sin(angle));
        w.f32(std::cos(angle));
        if (translation) {
          w.f32(0.1f * static_cast<float>(k));
          w.f32(0.0f);
          w.f32(1.0f);
        }
        w.f32(static_cast<float>(k) / 30.0f);
      }
      endBlock(w, keys);
      endBlock(w, cpan);
    }
    endBlock(w, dgan);
  }
  endBlock(w, pkg);
  return w.take();
}

// The Sims 3 package's rig: a chain of 20 bones named as sims3Animation's tracks.
rigport::Rig sims3Rig(int clips) {
  rigport::Rig rig;
  rig.name = "benchRig";
  for (int t = 0; t < 20; ++t) {
    rigport::Bone b;
    b.name = "b__bone" + std::to_string(t) + "__";
    b.parent = t - 1;
    b.translation = {0.0f, 0.1f, 0.0f};
    rig.skeleton.bones.push_back(b);
  }
  for (int c = 0; c < clips; ++c) rig.animations.push_back(sims3Animation("a_clip" + std::to_string(c) + "_x", 20, 30));
  return rig;
}

// The .anm's rig: binaryTreeSkeleton() in RenderWare's axes, every bone keyed at each of `frames`.
rigport::Rig anmRig(int frames) {
  rigport::Rig rig = binaryTreeSkeleton();
  rig.provenance.axes = rigport::renderware::kRenderWareAxes;
  rigport::Animation anim;
  anim.name = "long";
  anim.duration = static_cast<float>(frames - 1) / 30.0f;
  for (int b = 0; b < kBones; ++b) {
    rigport::BoneTrack track;
    track.bone = b;
    track.target.name = rig.skeleton.bones[static_cast<size_t>(b)].name;
    for (int k = 0; k < frames; ++k) {
      const float time = static_cast<float>(k) / 30.0f, phase = 0.1f * static_cast<float>(b);
      track.translation.times.push_back(time);
      track.translation.values.push_back(rig.skeleton.bones[static_cast<size_t>(b)].translation + glm::vec3(0.01f * std::sin(time + phase), 0.0f, 0.0f));
      track.rotation.times.push_back(time);
      track.rotation.values.push_back(glm::angleAxis(std::sin(time * 2 + phase), glm::normalize(glm::vec3(1, 0.3f, phase))));
    }
    anim.tracks.push_back(std::move(track));
  }
  rig.animations.push_back(std::move(anim));
  return rig;
}

}  // namespace

const std::vector<uint8_t>& skinnedDff() {
  static std::vector<uint8_t> bytes;
  return once(bytes, [] { return skinnedDffOf(4); });
}

Result<std::vector<uint8_t>> skinnedDffOf(int atomics) {
  rigport::Rig rig = binaryTreeSkeleton();
  rig.provenance.axes = rigport::renderware::kRenderWareAxes;
  for (int m = 0; m < atomics; ++m) rig.meshes.push_back(helixMesh(32'768, static_cast<float>(m)));
  return rigport::renderware::writeDff(rig);
}

const std::vector<uint8_t>& skinnedArena() {
  static std::vector<uint8_t> bytes;
  return once(bytes, [] {
    rigport::Rig rig = binaryTreeSkeleton();
    for (int m = 0; m < 4; ++m) rig.meshes.push_back(helixMesh(50'000, static_cast<float>(m)));
    return rigport::rw4::writeArena(rig);
  });
}

const std::vector<uint8_t>& sluggersBlock() {
  static std::vector<uint8_t> bytes;
  return once(bytes, [] { return rigport::sluggers::writeModel(blockRig()); });
}

const std::vector<uint8_t>& ifpPackage() {
  static const std::vector<uint8_t> bytes = makeAnpk();
  return bytes;
}

rigport::Rig ifpSkeleton() {
  rigport::Rig rig;
  rig.provenance.axes = rigport::renderware::kRenderWareAxes;
  for (int t = 0; t < kIfpTracks; ++t) {
    rigport::Bone b;
    b.name = "bone_" + std::to_string(t);
    b.parent = t - 1;
    b.translation = {0.0f, 0.0f, 0.1f};
    b.id = static_cast<uint32_t>(t);
    rig.skeleton.bones.push_back(b);
  }
  return rig;
}

const std::vector<uint8_t>& ifpSkeletonDff() {
  static std::vector<uint8_t> bytes;
  return once(bytes, [] { return rigport::renderware::writeDff(ifpSkeleton()); });
}

rigport::Animation sims3Animation(const std::string& name, int tracks, int keys) {
  rigport::Animation a;
  a.name = name;
  a.duration = static_cast<float>(keys - 1) / 30.0f;
  for (int t = 0; t < tracks; ++t) {
    rigport::BoneTrack track;
    track.target.name = "b__bone" + std::to_string(t) + "__";
    for (int k = 0; k < keys; ++k) {
      const float time = static_cast<float>(k) / 30.0f, phase = 0.1f * static_cast<float>(t);
      track.translation.times.push_back(time);
      track.translation.values.push_back({0.1f * std::sin(time + phase), 1.0f + 0.05f * std::cos(time), 0.01f * static_cast<float>(k % 7)});
      track.rotation.times.push_back(time);
      track.rotation.values.push_back(glm::angleAxis(std::sin(time * 2 + phase), glm::normalize(glm::vec3(1, 0.3f, phase))));
    }
    a.tracks.push_back(std::move(track));
  }
  return a;
}

const std::vector<uint8_t>& sims3Clip100k() {
  static std::vector<uint8_t> bytes;
  return once(bytes, [] { return rigport::sims3::writeClipAnimation(sims3Animation("a_bench_x", 50, 1000), nullptr); });
}

const std::vector<uint8_t>& sims3ClipSmall() {
  static std::vector<uint8_t> bytes;
  return once(bytes, [] { return rigport::sims3::writeClipAnimation(sims3Animation("a_small_x", 20, 30), nullptr); });
}

const std::vector<uint8_t>& sims3Package500() {
  static std::vector<uint8_t> bytes;
  return once(bytes, [] { return rigport::sims3::writePackage(sims3Rig(500)); });
}

const std::vector<uint8_t>& sims3Package5000() {
  static std::vector<uint8_t> bytes;
  return once(bytes, [] { return rigport::sims3::writePackage(sims3Rig(5000)); });
}

const std::vector<uint8_t>& anmLong() {
  static std::vector<uint8_t> bytes;
  return once(bytes, [] { return rigport::renderware::writeAnm(anmRig(5000)); });
}

const std::vector<uint8_t>& anmSkeletonDff() {
  static std::vector<uint8_t> bytes;
  return once(bytes, [] {
    rigport::Rig rig = binaryTreeSkeleton();
    rig.provenance.axes = rigport::renderware::kRenderWareAxes;
    return rigport::renderware::writeDff(rig);
  });
}

rigport::Rig battleforgeRig() {
  rigport::Rig rig;
  rig.provenance.axes = rigport::battleforge::kBattleForgeAxes;
  for (int b = 0; b < kBattleforgeBones; ++b) {
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
  for (int y = 0; y < kBattleforgeGrid; ++y) {
    for (int x = 0; x < kBattleforgeGrid; ++x) {
      mesh.positions.push_back({0.01f * static_cast<float>(x), 0.01f * static_cast<float>(y), 0.0f});
      mesh.normals.push_back({0.0f, 0.0f, 1.0f});
      mesh.uvs.push_back({static_cast<float>(x) / kBattleforgeGrid, static_cast<float>(y) / kBattleforgeGrid});
      for (uint32_t k = 0; k < 4; ++k) {
        mesh.influences.push_back({static_cast<uint32_t>((x / 8 + y / 8 + 17 * k) % kBattleforgeBones), 0.1f + 0.2f * static_cast<float>(k)});
      }
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
  }
  for (uint32_t y = 0; y + 1 < kBattleforgeGrid; ++y) {
    for (uint32_t x = 0; x + 1 < kBattleforgeGrid; ++x) {
      const uint32_t a = y * kBattleforgeGrid + x, b = a + 1, c = a + kBattleforgeGrid, d = c + 1;
      mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c});
    }
  }
  rig.meshes.push_back(std::move(mesh));
  rigport::Animation anim;
  anim.name = "walk";
  anim.duration = 2.0f;
  for (int b = 0; b < kBattleforgeBones; ++b) {
    rigport::BoneTrack t;
    t.bone = b;
    for (int k = 0; k < kBattleforgeKeys; ++k) {
      const float time = 2.0f * static_cast<float>(k) / (kBattleforgeKeys - 1);
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

const std::vector<uint8_t>& battleforgeDrs() {
  static std::vector<uint8_t> bytes;
  return once(bytes, [] { return rigport::battleforge::writeDrs(battleforgeRig()); });
}

}  // namespace rigport::bench
