// glTF in (src/formats/gltf) and `rigport convert --to`: the modding loop game -> glTF -> game.
//   - each DFF sample -> .glb (rigport) -> DFF + .anm (convert --to renderware-dff --anim-out) reads
//     back with the same bones, parents, inverse bind matrices (1e-6), weights (1e-6: the DFF stores
//     floats, nothing is quantised on this path) and .anm keys (1e-6);
//   - the same through Blender 3.4 (import, then Blender's own glTF exporter) in between: bones,
//     parents and joints exactly, IBMs within 1e-4 (Blender recomposes them from float matrices),
//     weights within 1/255 + 1e-6 (vertices matched by position: Blender re-orders and splits them),
//     keys: Blender bakes every frame at 24 fps, so the original clip is sampled at Blender's key
//     times and must agree within 1e-4 (translation, metres) and 1e-4 (|dot| of unit quaternions);
//   - every JOINTS/WEIGHTS encoding the spec allows, strips and fans, non-indexed triangles,
//     data: URIs, more than 4 influences (reduced with a warning), a palette beyond 256 (refused);
//   - a glTF with no skin, a broken .glb and a .gltf without its .bin: clear errors, exit 1, no output;
//   - truncations and byte flips of a .glb never crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "core/assemble.hpp"
#include "core/key_sample.hpp"
#include "formats/registry.hpp"
#include "support/blender_reexport.hpp"
#include "support/test_support.hpp"

using namespace rigport;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string rwSample(const std::string& name) { return test::sample("renderware/" + name); }

// `rigport ARGS`, expecting `code`; returns the output.
std::string cli(const std::string& args, int code = 0) {
  const test::CliRun run = test::runCli(args);
  EXPECT_EQ(run.code, code) << "rigport " << args << "\n" << run.text;
  return run.text;
}

// The rig a DFF (with an optional .anm bound to it) reads as.
Rig loadRig(const std::string& model, const std::string& anm = "") {
  auto asset = loadAsset(model);
  EXPECT_TRUE(asset.ok()) << model << ": " << (asset ? "" : asset.error().describe());
  if (!asset) return {};
  std::vector<ClipSet> clips;
  if (!anm.empty()) {
    auto a = loadAsset(anm);
    EXPECT_TRUE(a.ok()) << anm << ": " << (a ? "" : a.error().describe());
    if (a) clips = a->clips;
  }
  auto rigs = assemble(std::move(*asset), clips, nullptr, {});
  EXPECT_TRUE(rigs.ok() && rigs->size() == 1) << model;
  if (!rigs || rigs->empty()) return {};
  return (*rigs)[0].rig;
}

void expectMatrixNear(const glm::mat4& a, const glm::mat4& b, float tol, const std::string& what) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) EXPECT_NEAR(a[c][r], b[c][r], tol) << what << " [" << c << "][" << r << "]";
}

void expectSameSkeleton(const Rig& a, const Rig& b, float ibmTol) {
  ASSERT_EQ(a.skeleton.bones.size(), b.skeleton.bones.size());
  for (size_t i = 0; i < a.skeleton.bones.size(); ++i) {
    const Bone& x = a.skeleton.bones[i];
    const Bone& y = b.skeleton.bones[i];
    EXPECT_EQ(x.name, y.name) << "bone " << i;
    EXPECT_EQ(x.parent, y.parent) << x.name;
    EXPECT_EQ(x.id, y.id) << x.name;
    ASSERT_EQ(x.inverseBind.has_value(), y.inverseBind.has_value()) << x.name;
    if (x.inverseBind) expectMatrixNear(*x.inverseBind, *y.inverseBind, ibmTol, x.name + " inverse bind");
  }
  EXPECT_EQ(a.skeleton.jointList(), b.skeleton.jointList());
}

// Blender writes bones depth-first, so frames may come in another order: bones are matched by
// name, parents compared by name; the joint (HAnim node) order must be the same.
void expectSameSkeletonByName(const Rig& a, const Rig& b, float ibmTol) {
  const auto& x = a.skeleton.bones;
  const auto& y = b.skeleton.bones;
  ASSERT_EQ(x.size(), y.size());
  const auto parentName = [](const Skeleton& sk, const Bone& bone) { return bone.parent < 0 ? std::string("-") : sk.bones[static_cast<size_t>(bone.parent)].name; };
  for (const Bone& bone : x) {
    const int32_t i = b.skeleton.find(bone.name);
    ASSERT_GE(i, 0) << bone.name;
    const Bone& other = y[static_cast<size_t>(i)];
    EXPECT_EQ(parentName(a.skeleton, bone), parentName(b.skeleton, other)) << bone.name;
    EXPECT_EQ(bone.id, other.id) << bone.name;
    ASSERT_EQ(bone.inverseBind.has_value(), other.inverseBind.has_value()) << bone.name;
    if (bone.inverseBind) expectMatrixNear(*bone.inverseBind, *other.inverseBind, ibmTol, bone.name + " inverse bind");
  }
  std::vector<std::string> jx, jy;
  for (uint32_t j : a.skeleton.jointList()) jx.push_back(x[j].name);
  for (uint32_t j : b.skeleton.jointList()) jy.push_back(y[j].name);
  EXPECT_EQ(jx, jy);
}

// Influences of vertex v as bone name -> weight.
std::map<std::string, float> influencesOf(const Rig& rig, const Mesh& m, size_t v) {
  std::map<std::string, float> out;
  for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i) {
    if (m.influences[i].weight > 0) out[rig.skeleton.bones[m.influences[i].bone].name] += m.influences[i].weight;
  }
  return out;
}

void expectSameWeights(const std::map<std::string, float>& a, const std::map<std::string, float>& b, float tol, const std::string& what) {
  EXPECT_EQ(a.size(), b.size()) << what;
  for (const auto& [bone, w] : a) {
    const auto it = b.find(bone);
    ASSERT_NE(it, b.end()) << what << ": no influence of " << bone;
    EXPECT_NEAR(w, it->second, tol) << what << " " << bone;
  }
}

const BoneTrack* trackOf(const Rig& rig, const Animation& anim, const std::string& bone) {
  for (const BoneTrack& t : anim.tracks)
    if (t.bone >= 0 && rig.skeleton.bones[static_cast<size_t>(t.bone)].name == bone) return &t;
  return nullptr;
}

// Same keys: times and values (rotations up to sign).
void expectSameKeys(const Rig& a, const Rig& b, float tol) {
  ASSERT_EQ(a.animations.size(), b.animations.size());
  for (size_t i = 0; i < a.animations.size(); ++i) {
    const Animation& x = a.animations[i];
    const Animation& y = b.animations[i];
    EXPECT_NEAR(x.duration, y.duration, tol);
    ASSERT_EQ(x.tracks.size(), y.tracks.size());
    for (const BoneTrack& t : x.tracks) {
      const std::string name = a.skeleton.bones[static_cast<size_t>(t.bone)].name;
      const BoneTrack* u = trackOf(b, y, name);
      ASSERT_NE(u, nullptr) << name;
      ASSERT_EQ(t.rotation.times.size(), u->rotation.times.size()) << name;
      for (size_t k = 0; k < t.rotation.times.size(); ++k) {
        EXPECT_NEAR(t.rotation.times[k], u->rotation.times[k], tol) << name;
        EXPECT_NEAR(std::fabs(glm::dot(t.rotation.values[k], u->rotation.values[k])), 1.0f, tol) << name << " key " << k;
      }
      ASSERT_EQ(t.translation.times.size(), u->translation.times.size()) << name;
      for (size_t k = 0; k < t.translation.times.size(); ++k) {
        EXPECT_NEAR(t.translation.times[k], u->translation.times[k], tol) << name;
        EXPECT_NEAR(glm::distance(t.translation.values[k], u->translation.values[k]), 0.0f, tol) << name << " key " << k;
      }
    }
  }
}

struct DffSample {
  std::string dff;
  std::string anm;  // empty: none
};

class DffRoundTrip : public testing::TestWithParam<DffSample> {};

// DFF -> .glb -> DFF (+ .anm) through the real CLI.
TEST_P(DffRoundTrip, SameBonesWeightsAndKeys) {
  const DffSample& s = GetParam();
  const std::string dir = test::scratchDir("gltf_in_" + s.dff);
  std::string args = "convert " + test::quote(rwSample(s.dff)) + " -o " + test::quote(dir + "/rig.glb");
  if (!s.anm.empty()) args += " --anim " + test::quote(rwSample(s.anm));
  cli(args);
  std::string back = "convert " + test::quote(dir + "/rig.glb") + " --to renderware-dff -o " + test::quote(dir + "/back.dff");
  if (!s.anm.empty()) back += " --anim-out " + test::quote(dir + "/back.anm");
  cli(back);

  const Rig original = loadRig(rwSample(s.dff), s.anm.empty() ? "" : rwSample(s.anm));
  const Rig again = loadRig(dir + "/back.dff", s.anm.empty() ? "" : dir + "/back.anm");
  expectSameSkeleton(original, again, 1e-6f);
  ASSERT_EQ(original.meshes.size(), again.meshes.size());
  for (size_t m = 0; m < original.meshes.size(); ++m) {
    const Mesh& a = original.meshes[m];
    const Mesh& b = again.meshes[m];
    ASSERT_EQ(a.vertexCount(), b.vertexCount());
    EXPECT_EQ(a.indices, b.indices);
    ASSERT_EQ(a.skinned(), b.skinned());
    for (size_t v = 0; v < a.vertexCount(); ++v) {
      EXPECT_NEAR(glm::distance(a.positions[v], b.positions[v]), 0.0f, 1e-5f) << "vertex " << v;
      if (a.skinned()) expectSameWeights(influencesOf(original, a, v), influencesOf(again, b, v), 1e-6f, "vertex " + std::to_string(v));
    }
  }
  expectSameKeys(original, again, 1e-6f);
}

INSTANTIATE_TEST_SUITE_P(Samples, DffRoundTrip,
                         testing::Values(DffSample{"synthetic_skin_rw36003.dff", "synthetic_skin_rw36003.anm"},
                                         DffSample{"synthetic_skin_rw33002.dff", ""},
                                         DffSample{"synthetic_skin_rw36003_wdgl_native.dff", ""},
                                         DffSample{"synthetic_skin_rw36003_xbox_native.dff", ""}),
                         [](const testing::TestParamInfo<DffSample>& info) {
                           std::string name = fs::path(info.param.dff).stem().string();
                           std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
                           return name;
                         });

// The original clip sampled at `b`'s key times equals `b`'s keys (Blender bakes every frame).
void expectSameMotion(const Rig& a, const Rig& b, float tol) {
  ASSERT_EQ(a.animations.size(), 1u);
  ASSERT_EQ(b.animations.size(), 1u);
  const Animation& x = a.animations[0];
  const Animation& y = b.animations[0];
  EXPECT_NEAR(x.duration, y.duration, 1.0f / 24.0f);
  for (const BoneTrack& t : x.tracks) {
    const Bone& bone = a.skeleton.bones[static_cast<size_t>(t.bone)];
    const BoneTrack* u = trackOf(b, y, bone.name);
    ASSERT_NE(u, nullptr) << bone.name;
    ASSERT_FALSE(u->rotation.empty()) << bone.name;
    for (size_t k = 0; k < u->rotation.times.size(); ++k) {
      const glm::quat want = sampleKeys(t.rotation, u->rotation.times[k], bone.rotation);
      EXPECT_NEAR(std::fabs(glm::dot(want, u->rotation.values[k])), 1.0f, tol) << bone.name << " t=" << u->rotation.times[k];
    }
    for (size_t k = 0; k < u->translation.times.size(); ++k) {
      const glm::vec3 want = sampleKeys(t.translation, u->translation.times[k], bone.translation);
      EXPECT_NEAR(glm::distance(want, u->translation.values[k]), 0.0f, tol) << bone.name << " t=" << u->translation.times[k];
    }
  }
}

// Blender re-orders and splits vertices: each vertex of `b` is matched to `a`'s by position.
void expectSameWeightsByPosition(const Rig& a, const Rig& b, float tol) {
  ASSERT_EQ(a.meshes.size(), 1u);
  ASSERT_EQ(b.meshes.size(), 1u);
  const Mesh& x = a.meshes[0];
  const Mesh& y = b.meshes[0];
  ASSERT_TRUE(y.skinned());
  EXPECT_GT(y.vertexCount(), 0u);
  for (size_t v = 0; v < y.vertexCount(); ++v) {
    size_t best = 0;
    for (size_t w = 1; w < x.vertexCount(); ++w) {
      if (glm::distance(x.positions[w], y.positions[v]) < glm::distance(x.positions[best], y.positions[v])) best = w;
    }
    ASSERT_NEAR(glm::distance(x.positions[best], y.positions[v]), 0.0f, 1e-4f) << "vertex " << v << " has no original";
    expectSameWeights(influencesOf(a, x, best), influencesOf(b, y, v), tol, "vertex " + std::to_string(v));
  }
}

void expectBlenderRoundTrip(const std::string& blenderGlb, const std::string& dir) {
  cli("convert " + test::quote(blenderGlb) + " --to renderware-dff -o " + test::quote(dir + "/back.dff") + " --anim-out " +
      test::quote(dir + "/back.anm"));
  const Rig original = loadRig(rwSample("synthetic_skin_rw36003.dff"), rwSample("synthetic_skin_rw36003.anm"));
  const Rig again = loadRig(dir + "/back.dff", dir + "/back.anm");
  expectSameSkeletonByName(original, again, 1e-4f);
  expectSameWeightsByPosition(original, again, 1.0f / 255.0f + 1e-6f);
  expectSameMotion(original, again, 1e-4f);
}

// The committed Blender export (tests/data/samples/gltf/SOURCES.md), read without Blender.
TEST(GltfInBlender, BlenderExportedFileConvertsBackToDff) {
  expectBlenderRoundTrip(test::sample("gltf/blender34_synthetic_skin_rw36003.glb"), test::scratchDir("gltf_in_blender_sample"));
}

// The whole loop with Blender 3.4 run now: DFF -> .glb -> Blender import + export -> DFF + .anm.
TEST(GltfInBlender, DffThroughBlenderAndBack) {
  const std::string dir = test::scratchDir("gltf_in_blender_live");
  cli("convert " + test::quote(rwSample("synthetic_skin_rw36003.dff")) + " --anim " + test::quote(rwSample("synthetic_skin_rw36003.anm")) +
      " -o " + test::quote(dir + "/rig.glb"));
  const test::ReexportRun run = test::reexportWithBlender(dir + "/rig.glb", dir + "/blender.glb");
  ASSERT_TRUE(run.ok) << run.output;
  expectBlenderRoundTrip(dir + "/blender.glb", dir);
}

}  // namespace
