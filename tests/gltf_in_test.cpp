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
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <glm/gtc/matrix_transform.hpp>
#include <nlohmann/json.hpp>

#include "core/assemble.hpp"
#include "core/axes.hpp"
#include "core/key_sample.hpp"
#include "core/read_context.hpp"
#include "demo/character.hpp"
#include "export/gltf.hpp"
#include "formats/gltf/gltf.hpp"
#include "core/source.hpp"
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

// ---- Synthetic documents: a two-joint skin whose attributes use every encoding glTF allows ----

constexpr int kFloat = 5126, kUByte = 5121, kUShort = 5123, kUInt = 5125;

std::string base64(const std::vector<uint8_t>& bytes) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const uint32_t n = (uint32_t{bytes[i]} << 16) | (i + 1 < bytes.size() ? uint32_t{bytes[i + 1]} << 8 : 0) |
                       (i + 2 < bytes.size() ? bytes[i + 2] : 0);
    out += abc[(n >> 18) & 63];
    out += abc[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? abc[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? abc[n & 63] : '=';
  }
  return out;
}

// Accessors over one buffer, each in its own 4-aligned view; the buffer goes in a data: URI.
class Builder {
 public:
  // `stride` > 0: each element `stride` bytes after the last, the gap zeros, as in an interleaved view.
  template <class T>
  int add(const std::vector<T>& values, size_t count, int componentType, const char* type, bool normalized = false, size_t stride = 0) {
    while (bin_.size() % 4 != 0) bin_.push_back(0);
    const size_t offset = bin_.size();
    const auto* p = reinterpret_cast<const uint8_t*>(values.data());
    const size_t element = values.size() * sizeof(T) / count;
    for (size_t i = 0; i < count; ++i) {
      bin_.insert(bin_.end(), p + i * element, p + (i + 1) * element);
      if (stride > element) bin_.insert(bin_.end(), stride - element, uint8_t{0});
    }
    views_.push_back({{"buffer", 0}, {"byteOffset", offset}, {"byteLength", bin_.size() - offset}});
    if (stride > 0) views_.back()["byteStride"] = stride;
    json a = {{"bufferView", views_.size() - 1}, {"componentType", componentType}, {"count", count}, {"type", type}};
    if (normalized) a["normalized"] = true;
    accessors_.push_back(a);
    return static_cast<int>(accessors_.size() - 1);
  }
  std::string finish(json doc) const {
    doc["asset"] = {{"version", "2.0"}, {"generator", "gltf_in_test"}};
    doc["accessors"] = accessors_;
    doc["bufferViews"] = views_;
    doc["buffers"] = json::array({{{"byteLength", bin_.size()}, {"uri", "data:application/octet-stream;base64," + base64(bin_)}}});
    return doc.dump();
  }

 private:
  std::vector<uint8_t> bin_;
  json accessors_ = json::array();
  json views_ = json::array();
};

// Two joints, root -> child (1 m up), a mesh of `positions` with `primitive` (attributes filled in).
json skinnedDoc(Builder& b, json primitive, size_t joints = 2) {
  json nodes = json::array();
  std::vector<float> ibm;
  for (size_t j = 0; j < joints; ++j) {
    json n = {{"name", j == 0 ? std::string("root") : "bone" + std::to_string(j)}};
    if (j > 0) n["translation"] = {0.0, 1.0, 0.0};
    if (j + 1 < joints) n["children"] = {j + 1};
    nodes.push_back(n);
    const glm::mat4 m = glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, -static_cast<float>(j), 0.0f));
    ibm.insert(ibm.end(), &m[0][0], &m[0][0] + 16);
  }
  nodes.push_back({{"name", "body"}, {"mesh", 0}, {"skin", 0}});
  json jointList = json::array();
  for (size_t j = 0; j < joints; ++j) jointList.push_back(j);
  return {{"scene", 0},
          {"scenes", {{{"nodes", {0, joints}}}}},
          {"nodes", nodes},
          {"meshes", {{{"name", "body"}, {"primitives", {primitive}}}}},
          {"skins", {{{"joints", jointList}, {"inverseBindMatrices", b.add(ibm, joints, kFloat, "MAT4")}}}}};
}

std::vector<float> quadPositions() { return {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}; }

std::string writeText(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

Result<Asset> readText(const std::string& text, const std::string& name = "doc.gltf") {
  const auto source = Source::fromBytes(std::vector<uint8_t>(text.begin(), text.end()), name);
  ReadContext ctx;
  return readAsset(*source, ctx);
}

struct Encoding {
  int joints;
  int weights;
};

class WeightEncodings : public testing::TestWithParam<Encoding> {};

// JOINTS_0 as u8/u16 and WEIGHTS_0 as float / normalised u8 / normalised u16 read as code / max.
TEST_P(WeightEncodings, ReadAsTheirNormalisedValues) {
  const auto [jointType, weightType] = GetParam();
  Builder b;
  const std::vector<uint16_t> j16{0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  const std::vector<uint8_t> j8(j16.begin(), j16.end());
  const int joints = jointType == kUByte ? b.add(j8, 4, kUByte, "VEC4") : b.add(j16, 4, kUShort, "VEC4");
  // Vertex 1 is split 128:127 (u8) or 32768:32767 (u16), 0.5:0.5 as floats.
  const float max = weightType == kUByte ? 255.0f : weightType == kUShort ? 65535.0f : 1.0f;
  const float hi = weightType == kFloat ? 0.5f : std::ceil(max / 2), lo = max - hi;
  const std::vector<float> wf{max, 0, 0, 0, hi, lo, 0, 0, max, 0, 0, 0, max, 0, 0, 0};
  int weights = 0;
  if (weightType == kFloat) weights = b.add(wf, 4, kFloat, "VEC4");
  if (weightType == kUByte) weights = b.add(std::vector<uint8_t>(wf.begin(), wf.end()), 4, kUByte, "VEC4", true);
  if (weightType == kUShort) weights = b.add(std::vector<uint16_t>(wf.begin(), wf.end()), 4, kUShort, "VEC4", true);
  json prim = {{"attributes", {{"POSITION", b.add(quadPositions(), 4, kFloat, "VEC3")}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}}},
               {"indices", b.add(std::vector<uint16_t>{0, 1, 2, 2, 1, 3}, 6, kUShort, "SCALAR")}};
  auto asset = readText(b.finish(skinnedDoc(b, prim)));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->rigs.size(), 1u);
  const Rig& rig = asset->rigs[0];
  ASSERT_EQ(rig.meshes.size(), 1u);
  const Mesh& m = rig.meshes[0];
  EXPECT_EQ(m.indices, (std::vector<uint32_t>{0, 1, 2, 2, 1, 3}));
  const auto v1 = influencesOf(rig, m, 1);
  ASSERT_EQ(v1.size(), 2u);
  EXPECT_FLOAT_EQ(v1.at("root"), hi / max);
  EXPECT_FLOAT_EQ(v1.at("bone1"), lo / max);
  EXPECT_EQ(influencesOf(rig, m, 2), (std::map<std::string, float>{{"bone1", 1.0f}}));
  ASSERT_TRUE(rig.skeleton.bones[1].inverseBind.has_value());
  EXPECT_FLOAT_EQ((*rig.skeleton.bones[1].inverseBind)[3][1], -1.0f);
}

INSTANTIATE_TEST_SUITE_P(All, WeightEncodings,
                         testing::Values(Encoding{kUByte, kFloat}, Encoding{kUShort, kFloat}, Encoding{kUByte, kUByte}, Encoding{kUByte, kUShort},
                                         Encoding{kUShort, kUByte}, Encoding{kUShort, kUShort}));

// The reader decodes each attribute straight into the mesh: a strided view and normalised integers
// read as their values, and a normal goes through the normal matrix even when that is the identity
// (-0 becomes +0, as before the reader stopped copying: the DFF written from it keeps its bytes).
TEST(GltfInAccessors, StridedAndNormalisedAttributesReadAsTheirValues) {
  Builder b;
  const std::vector<float> normals = {-0.0f, 0, 1, 0, -1, 0, 0, 0, 1, 1, 0, 0};
  const std::vector<uint16_t> uvs = {0, 65535, 65535, 0, 32768, 0, 0, 0};
  json prim = {{"attributes",
                {{"POSITION", b.add(quadPositions(), 4, kFloat, "VEC3", false, 20)},
                 {"NORMAL", b.add(normals, 4, kFloat, "VEC3", false, 16)},
                 {"TEXCOORD_0", b.add(uvs, 4, kUShort, "VEC2", true, 8)},
                 {"JOINTS_0", b.add(std::vector<uint8_t>(16, 0), 4, kUByte, "VEC4")},
                 {"WEIGHTS_0", b.add(std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, 4, kFloat, "VEC4", false, 20)}}},
               {"indices", b.add(std::vector<uint16_t>{0, 1, 2, 2, 1, 3}, 6, kUShort, "SCALAR")}};
  auto asset = readText(b.finish(skinnedDoc(b, prim)));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  const Mesh& m = asset->rigs[0].meshes[0];
  EXPECT_EQ(m.positions, (std::vector<glm::vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}));
  EXPECT_EQ(m.normals, (std::vector<glm::vec3>{{0, 0, 1}, {0, -1, 0}, {0, 0, 1}, {1, 0, 0}}));
  EXPECT_FALSE(std::signbit(m.normals[0].x));
  ASSERT_EQ(m.uvs.size(), 4u);
  EXPECT_EQ(m.uvs[0], glm::vec2(0, 1));
  EXPECT_EQ(m.uvs[1], glm::vec2(1, 0));
  EXPECT_FLOAT_EQ(m.uvs[2].x, 32768.0f / 65535.0f);
  EXPECT_EQ(m.influenceOffsets, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
}

// A weighted joint number beyond the skin's joints (each joint's bone is looked up once, in a table
// of the skin's joints) is an error naming the set and the vertex; a joint of weight 0 is not read.
TEST(GltfInAccessors, AJointBeyondTheSkinIsAnError) {
  Builder b;
  const std::vector<uint8_t> joints = {0, 9, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
  const std::vector<float> weights = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  json prim = {{"attributes",
                {{"POSITION", b.add(quadPositions(), 4, kFloat, "VEC3")},
                 {"JOINTS_0", b.add(joints, 4, kUByte, "VEC4")},
                 {"WEIGHTS_0", b.add(weights, 4, kFloat, "VEC4")}}}};
  auto bad = readText(b.finish(skinnedDoc(b, prim)));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().describe().find("JOINTS_0"), std::string::npos) << bad.error().describe();
  EXPECT_NE(bad.error().describe().find("vertex 1 names joint 2, but the skin has 2"), std::string::npos) << bad.error().describe();
}

// One quad, drawn as `mode` with `indices` (empty: non-indexed).
Result<Asset> quad(int mode, const std::vector<uint32_t>& indices, int indexType = kUShort) {
  Builder b;
  json prim = {{"attributes",
                {{"POSITION", b.add(quadPositions(), 4, kFloat, "VEC3")},
                 {"JOINTS_0", b.add(std::vector<uint8_t>(16, 0), 4, kUByte, "VEC4")},
                 {"WEIGHTS_0", b.add(std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, 4, kFloat, "VEC4")}}},
               {"mode", mode}};
  if (!indices.empty()) {
    prim["indices"] = indexType == kUInt    ? b.add(indices, indices.size(), kUInt, "SCALAR")
                      : indexType == kUByte ? b.add(std::vector<uint8_t>(indices.begin(), indices.end()), indices.size(), kUByte, "SCALAR")
                                            : b.add(std::vector<uint16_t>(indices.begin(), indices.end()), indices.size(), kUShort, "SCALAR");
  }
  return readText(b.finish(skinnedDoc(b, prim)));
}

TEST(GltfInModes, StripsAndFansBecomeTriangleLists) {
  auto strip = quad(5, {0, 1, 2, 3});
  ASSERT_TRUE(strip.ok()) << strip.error().describe();
  EXPECT_EQ(strip->rigs[0].meshes[0].indices, (std::vector<uint32_t>{0, 1, 2, 2, 1, 3}));  // the second triangle keeps the winding
  auto fan = quad(6, {0, 1, 3, 2}, kUInt);
  ASSERT_TRUE(fan.ok()) << fan.error().describe();
  EXPECT_EQ(fan->rigs[0].meshes[0].indices, (std::vector<uint32_t>{0, 1, 3, 0, 3, 2}));
  auto bytes = quad(4, {0, 1, 2, 2, 1, 3}, kUByte);  // each index type is decoded by its own loop
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  EXPECT_EQ(bytes->rigs[0].meshes[0].indices, (std::vector<uint32_t>{0, 1, 2, 2, 1, 3}));
  auto plain = quad(4, {});  // non-indexed: vertices 0..3 in order, the last incomplete triangle dropped
  ASSERT_TRUE(plain.ok()) << plain.error().describe();
  EXPECT_EQ(plain->rigs[0].meshes[0].indices, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(GltfInModes, LinesAreSkippedWithAWarning) {
  auto lines = quad(1, {0, 1, 2, 3});
  ASSERT_TRUE(lines.ok()) << lines.error().describe();
  const Rig& rig = lines->rigs[0];
  EXPECT_TRUE(rig.meshes[0].indices.empty());
  ASSERT_EQ(rig.provenance.warnings.size(), 1u);
  EXPECT_EQ(rig.provenance.warnings[0].code, "primitive-mode-skipped");
}

TEST(GltfInModes, AnIndexBeyondTheVerticesNamesTheAccessor) {
  auto bad = quad(4, {0, 1, 7});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().describe().find("accessors["), std::string::npos) << bad.error().describe();
  EXPECT_NE(bad.error().describe().find("index 2 is 7"), std::string::npos) << bad.error().describe();
}

// Eight influences (JOINTS_1/WEIGHTS_1) read as eight; --to renderware-dff keeps four and says so.
TEST(GltfInLimits, MoreThanFourInfluencesAreReducedWithAWarning) {
  Builder b;
  std::vector<uint8_t> j0, j1;
  std::vector<float> w0, w1;
  for (int v = 0; v < 4; ++v) {
    j0.insert(j0.end(), {0, 1, 2, 3});
    j1.insert(j1.end(), {4, 5, 6, 7});
    w0.insert(w0.end(), {0.3f, 0.2f, 0.1f, 0.1f});
    w1.insert(w1.end(), {0.1f, 0.1f, 0.05f, 0.05f});
  }
  json prim = {{"attributes",
                {{"POSITION", b.add(quadPositions(), 4, kFloat, "VEC3")},
                 {"JOINTS_0", b.add(j0, 4, kUByte, "VEC4")},
                 {"WEIGHTS_0", b.add(w0, 4, kFloat, "VEC4")},
                 {"JOINTS_1", b.add(j1, 4, kUByte, "VEC4")},
                 {"WEIGHTS_1", b.add(w1, 4, kFloat, "VEC4")}}},
               {"indices", b.add(std::vector<uint16_t>{0, 1, 2, 2, 1, 3}, 6, kUShort, "SCALAR")}};
  const std::string text = b.finish(skinnedDoc(b, prim, 8));
  auto asset = readText(text);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  EXPECT_EQ(asset->rigs[0].maxInfluences(), 8u);

  const std::string dir = test::scratchDir("gltf_in_influences");
  const std::string out = cli("convert " + test::quote(writeText(dir, "eight.gltf", text)) + " --to renderware-dff -o " + test::quote(dir + "/four.dff"));
  EXPECT_NE(out.find("4 vertices had more than 4 influences"), std::string::npos) << out;
  EXPECT_NE(out.find("largest weight dropped: 0.100"), std::string::npos) << out;
  const Rig back = loadRig(dir + "/four.dff");
  ASSERT_EQ(back.meshes.size(), 1u);
  const auto kept = influencesOf(back, back.meshes[0], 0);
  EXPECT_EQ(kept.size(), 4u);
  float sum = 0;
  for (const auto& [bone, w] : kept) sum += w;
  EXPECT_NEAR(sum, 1.0f, 1e-6f);
  EXPECT_NEAR(kept.at("root"), 0.3f / 0.7f, 1e-6f);
}

TEST(GltfInLimits, APaletteBeyond256IsRefusedWithoutOutput) {
  Builder b;
  json prim = {{"attributes",
                {{"POSITION", b.add(quadPositions(), 4, kFloat, "VEC3")},
                 {"JOINTS_0", b.add(std::vector<uint16_t>{299, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 4, kUShort, "VEC4")},
                 {"WEIGHTS_0", b.add(std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, 4, kFloat, "VEC4")}}}};
  const std::string dir = test::scratchDir("gltf_in_palette");
  const std::string in = writeText(dir, "many.gltf", b.finish(skinnedDoc(b, prim, 300)));
  const std::string out = cli("convert " + test::quote(in) + " --to renderware-dff -o " + test::quote(dir + "/many.dff"), 1);
  EXPECT_NE(out.find("300 joints; renderware-dff holds at most 256"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir + "/many.dff"));
}

TEST(GltfInSkeleton, JointsUnderTwoRootsGetASyntheticRoot) {
  Builder b;
  json prim = {{"attributes",
                {{"POSITION", b.add(quadPositions(), 4, kFloat, "VEC3")},
                 {"JOINTS_0", b.add(std::vector<uint8_t>{0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}, 4, kUByte, "VEC4")},
                 {"WEIGHTS_0", b.add(std::vector<float>{0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0}, 4, kFloat, "VEC4")}}}};
  json doc = skinnedDoc(b, prim);
  doc["nodes"][0].erase("children");  // root and bone1 are now two separate trees
  doc["scenes"][0]["nodes"] = {0, 1, 2};
  auto asset = readText(b.finish(doc));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  const Rig& rig = asset->rigs[0];
  ASSERT_EQ(rig.skeleton.bones.size(), 3u);
  EXPECT_EQ(rig.skeleton.bones[0].name, "root_2");  // "root" is taken by a joint
  EXPECT_EQ(rig.skeleton.bones[1].parent, 0);
  EXPECT_EQ(rig.skeleton.bones[2].parent, 0);
  ASSERT_EQ(rig.provenance.warnings.size(), 1u);
  EXPECT_EQ(rig.provenance.warnings[0].code, "no-common-root");
}

// ---- Valid glTF that was refused or misread (issue 27 §2) ----

bool hasWarning(const Rig& rig, const std::string& code) {
  const auto& w = rig.provenance.warnings;
  return std::any_of(w.begin(), w.end(), [&](const Warning& x) { return x.code == code; });
}

json quadPrimitive(Builder& b) {
  return {{"attributes",
           {{"POSITION", b.add(quadPositions(), 4, kFloat, "VEC3")},
            {"JOINTS_0", b.add(std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, 4, kUByte, "VEC4")},
            {"WEIGHTS_0", b.add(std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, 4, kFloat, "VEC4")}}},
          {"indices", b.add(std::vector<uint16_t>{0, 1, 2, 2, 1, 3}, 6, kUShort, "SCALAR")}};
}

// Blender keeps a node's custom properties but writes rigport's `true` back as 1; a .glb rigport
// lifted onto the ground and Blender re-exported still drops the lifting node. Extras another tool
// wrote with other types (an event time as text, a clip name as a number) are not rigport's and
// are left out instead of stopping the read.
TEST(GltfInSkeleton, MarkersWrittenBackAsNumbersAndForeignExtrasTypesAreRead) {
  Builder b;
  json doc = skinnedDoc(b, quadPrimitive(b));
  doc["nodes"].push_back({{"name", "Ground"},
                          {"translation", {0.0, 0.25, 0.0}},
                          {"children", {0}},
                          {"extras", {{"rigportSyntheticRoot", 1}, {"rigportGroundLift", 0.25}}}});
  doc["scenes"][0]["nodes"] = {3, 2};
  doc["animations"] = {{{"name", "wave"},
                        {"channels", {{{"sampler", 0}, {"target", {{"node", 1}, {"path", "translation"}}}}}},
                        {"samplers", {{{"input", b.add(std::vector<float>{0.0f, 1.0f}, 2, kFloat, "SCALAR")},
                                       {"output", b.add(std::vector<float>{0, 1, 0, 0, 2, 0}, 2, kFloat, "VEC3")}}}},
                        {"extras", {{"events", {{{"time", "soon"}, {"type", 7}}}}}}}};
  doc["extras"] = {{"animationsWithoutChannels", {{{"name", 12}}}}};
  auto asset = readText(b.finish(doc));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  const Rig& rig = asset->rigs[0];
  ASSERT_EQ(rig.skeleton.bones.size(), 2u) << "the lifting node is not a bone";
  EXPECT_EQ(rig.skeleton.bones[0].name, "root");
  EXPECT_EQ(rig.skeleton.bones[0].parent, -1);
  ASSERT_EQ(rig.animations.size(), 2u);
  ASSERT_EQ(rig.animations[0].events.size(), 1u);
  EXPECT_EQ(rig.animations[0].events[0].time, 0.0f);
  EXPECT_EQ(rig.animations[0].events[0].type, "");
  EXPECT_EQ(rig.animations[1].name, "doc") << "a name that is not text is not read: the clip is named for the file, as any nameless clip";
}

// A node's extras.originalName is the game's name the exporter could not give the node (GTA SA's
// " Pelvis" with its leading space; a name two bones share, exported as "root_2"). Blender keeps it as
// the bone's custom property, so it holds only while the node bears the name exported for it: a
// bone renamed in Blender reads as its new name, which --base writes back (before, as the old name).
TEST(GltfInSkeleton, TheOriginalNameHoldsOnlyWhileTheNodeBearsTheNameExportedForIt) {
  const struct {
    const char* node;
    const char* original;
    const char* read;
  } cases[] = {{"Pelvis", " Pelvis", " Pelvis"}, {"root_2", "root", "root"}, {"Hips", " Pelvis", "Hips"}, {"Pelvis_L", " Pelvis", "Pelvis_L"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.node);
    Builder b;
    json doc = skinnedDoc(b, quadPrimitive(b));
    doc["nodes"][0]["name"] = c.node;
    doc["nodes"][0]["extras"] = {{"originalName", c.original}};
    auto asset = readText(b.finish(doc));
    ASSERT_TRUE(asset.ok()) << asset.error().describe();
    EXPECT_EQ(asset->rigs[0].skeleton.bones[0].name, c.read);
    EXPECT_FALSE(asset->rigs[0].skeleton.bones[0].extras.contains("originalName"));
  }
}

// Nodes under the armature that are no joint and hold none (issue 27 §2, "Nodes that are not
// joints"): a lamp and a camera parented to a bone are no bones, left out with a warning; an
// empty leaf such as assimp's '_end' tip may be a game's socket frame, so it stays a bone, named
// in a warning instead of silently.
TEST(GltfInSkeleton, LampsAndCamerasAreNoBonesAndEmptyLeavesAreNamed) {
  Builder b;
  json doc = skinnedDoc(b, quadPrimitive(b));
  doc["extensionsUsed"] = {"KHR_lights_punctual"};
  doc["extensions"] = {{"KHR_lights_punctual", {{"lights", {{{"type", "point"}}}}}}};
  doc["cameras"] = {{{"type", "perspective"}, {"perspective", {{"yfov", 0.8}, {"znear", 0.1}}}}};
  doc["nodes"].push_back({{"name", "Lamp"}, {"extensions", {{"KHR_lights_punctual", {{"light", 0}}}}}});
  doc["nodes"].push_back({{"name", "Camera"}, {"camera", 0}});
  doc["nodes"].push_back({{"name", "bone1_end"}, {"translation", {0.0, 0.5, 0.0}}});
  doc["nodes"][1]["children"] = {3, 4, 5};
  auto asset = readText(b.finish(doc));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  const Rig& rig = asset->rigs[0];
  ASSERT_EQ(rig.skeleton.bones.size(), 3u);
  EXPECT_EQ(rig.skeleton.bones[2].name, "bone1_end");
  EXPECT_EQ(rig.skeleton.find("Lamp"), -1);
  EXPECT_EQ(rig.skeleton.find("Camera"), -1);
  for (const Warning& w : rig.provenance.warnings) {
    if (w.code == "nodes-not-bones") EXPECT_NE(w.message.find("2 lamp or camera nodes under the skeleton ('Lamp', 'Camera') left out"), std::string::npos) << w.message;
    if (w.code == "bones-not-joints") EXPECT_NE(w.message.find("1 node under the skeleton ('bone1_end')"), std::string::npos) << w.message;
  }
  EXPECT_TRUE(hasWarning(rig, "nodes-not-bones"));
  EXPECT_TRUE(hasWarning(rig, "bones-not-joints"));
}

// Shape keys as Blender exports them (gltf_ecosystem.md §1.2, Spec §3.7.2.2, §3.11): morph
// targets of POSITION (and TANGENT, which rigport does not keep: named, dropped), mesh.weights, the
// names in mesh.extras.targetNames, and a weights channel on the mesh node, read into the mesh's
// targets and a morph weight track of the clip; a weights channel on a node whose mesh has no
// targets is named and skipped, not blamed on a node that is not a bone (issue 27 §2).
TEST(GltfInMesh, MorphTargetsAndTheirWeightsChannelAreRead) {
  Builder b;
  json prim = quadPrimitive(b);
  prim["targets"] = {{{"POSITION", b.add(std::vector<float>(12, 0.1f), 4, kFloat, "VEC3")},
                      {"TANGENT", b.add(std::vector<float>(12, 0.0f), 4, kFloat, "VEC3")}}};
  json doc = skinnedDoc(b, prim);
  doc["meshes"][0]["weights"] = {0.25};
  doc["meshes"][0]["extras"] = {{"targetNames", {"smile"}}};
  doc["meshes"].push_back({{"name", "plain"}, {"primitives", {quadPrimitive(b)}}});
  doc["nodes"].push_back({{"name", "plain"}, {"mesh", 1}, {"skin", 0}});
  doc["scenes"][0]["nodes"].push_back(3);
  const json times = b.add(std::vector<float>{0.0f, 1.0f}, 2, kFloat, "SCALAR");
  doc["animations"] = {{{"name", "smile"},
                        {"channels", {{{"sampler", 0}, {"target", {{"node", 2}, {"path", "weights"}}}},
                                      {{"sampler", 0}, {"target", {{"node", 3}, {"path", "weights"}}}}}},
                        {"samplers", {{{"input", times}, {"output", b.add(std::vector<float>{0.0f, 1.0f}, 2, kFloat, "SCALAR")}}}}}};
  auto asset = readText(b.finish(doc));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  std::vector<std::string> codes;
  for (const Warning& w : asset->provenance.warnings) codes.push_back(w.code);
  for (const Rig& r : asset->rigs)
    for (const Warning& w : r.provenance.warnings) codes.push_back(w.code);
  EXPECT_NE(std::find(codes.begin(), codes.end(), "morph-attribute-dropped"), codes.end()) << ::testing::PrintToString(codes);
  EXPECT_NE(std::find(codes.begin(), codes.end(), "morph-weights-skipped"), codes.end()) << ::testing::PrintToString(codes);
  EXPECT_EQ(std::find(codes.begin(), codes.end(), "channel-not-on-bone"), codes.end()) << ::testing::PrintToString(codes);
  ASSERT_EQ(asset->rigs.size(), 1u);
  const Rig& rig = asset->rigs[0];
  ASSERT_EQ(rig.meshes.size(), 2u);
  const Mesh& body = rig.meshes[0];
  ASSERT_EQ(body.morphTargets.size(), 1u);
  EXPECT_EQ(body.morphTargets[0].name, "smile");
  EXPECT_EQ(body.morphTargets[0].positionDeltas, std::vector<glm::vec3>(4, glm::vec3(0.1f)));
  EXPECT_TRUE(body.morphTargets[0].normalDeltas.empty());
  EXPECT_EQ(body.morphWeights, std::vector<float>{0.25f});
  ASSERT_EQ(rig.animations.size(), 1u);
  ASSERT_EQ(rig.animations[0].morphWeights.size(), 1u);
  const MorphWeightTrack& track = rig.animations[0].morphWeights[0];
  EXPECT_EQ(track.mesh, "body");
  EXPECT_EQ(track.meshIndex, 0);
  EXPECT_EQ(track.targetCount, 1u);
  EXPECT_EQ(track.times, (std::vector<float>{0.0f, 1.0f}));
  EXPECT_EQ(track.weights, (std::vector<float>{0.0f, 1.0f}));
}

// Weights that do not sum to 1 (glTF requires it, and a reader must not mend them): kept as stored,
// with a warning naming how many vertices and the worst (issue 27 §2, "renormalised silently").
TEST(GltfInMesh, WeightsNotSummingToOneAreKeptAndNamed) {
  Builder b;
  json prim = {{"attributes",
                {{"POSITION", b.add(quadPositions(), 4, kFloat, "VEC3")},
                 {"JOINTS_0", b.add(std::vector<uint8_t>{0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}, 4, kUByte, "VEC4")},
                 {"WEIGHTS_0", b.add(std::vector<float>{0.5f, 0.5f, 0, 0, 0.5f, 0.3f, 0, 0, 0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0}, 4, kFloat, "VEC4")}}}};
  auto asset = readText(b.finish(skinnedDoc(b, prim)));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  const Rig& rig = asset->rigs[0];
  ASSERT_TRUE(hasWarning(rig, "weights-not-normalised")) << ::testing::PrintToString(rig.provenance.warnings.size());
  for (const Warning& w : rig.provenance.warnings) {
    if (w.code == "weights-not-normalised") EXPECT_NE(w.message.find("1 vertices' weights do not sum to 1 (vertex 1: 0.8)"), std::string::npos) << w.message;
  }
  const Mesh& mesh = rig.meshes.at(0);
  EXPECT_FLOAT_EQ(mesh.influences[mesh.influenceOffsets[1] + 1].weight, 0.3f) << "kept as stored";
}

// Spec §3.12: a reader must not load a file requiring an extension it does not support. A Draco
// file's POSITION has no bufferView, which tinygltf refuses in its own words first; the error
// names the extension instead. KHR_mesh_quantization, which the accessor reader decodes, is read.
TEST(GltfInExtensions, ARequiredExtensionRigportLacksIsRefusedByName) {
  for (const std::string ext : {"KHR_draco_mesh_compression", "EXT_meshopt_compression", "EXT_made_up_by_a_tool"}) {
    Builder b;
    json doc = json::parse(b.finish(skinnedDoc(b, quadPrimitive(b))));
    doc["extensionsUsed"] = {ext};
    doc["extensionsRequired"] = {ext};
    if (ext == "KHR_draco_mesh_compression") {
      doc["meshes"][0]["primitives"][0]["extensions"] = {{ext, {{"bufferView", 0}, {"attributes", {{"POSITION", 0}}}}}};
      doc["accessors"][0].erase("bufferView");
    }
    auto asset = readText(doc.dump());
    ASSERT_FALSE(asset.ok()) << ext;
    EXPECT_NE(asset.error().describe().find("extensionsRequired[0]: '" + ext + "' is required and not supported"), std::string::npos)
        << asset.error().describe();
  }
  Builder b;
  json doc = json::parse(b.finish(skinnedDoc(b, quadPrimitive(b))));
  doc["extensionsUsed"] = {"KHR_mesh_quantization"};
  doc["extensionsRequired"] = {"KHR_mesh_quantization"};
  EXPECT_TRUE(readText(doc.dump()).ok());
}

// Khronos' SimpleSkin: the skinned mesh node is the skeleton's parent. Its transform (here 2 m
// along X) reaches the mesh only through the joints below it (Spec §3.7.3.3 ignores it for the
// mesh), so the client draws the quad 2 m along X, and so must the DFF written from it.
TEST(GltfInSkeleton, ASkinnedMeshNodeAboveTheSkeletonReadsAndKeepsThePose) {
  Builder b;
  json prim = quadPrimitive(b);
  json doc = skinnedDoc(b, prim);
  json body = doc["nodes"][2];
  body["translation"] = {2.0, 0.0, 0.0};
  body["children"] = {0};
  doc["nodes"][2] = body;
  doc["scenes"][0]["nodes"] = {2};
  const std::string dir = test::scratchDir("gltf_in_simple_skin");
  const std::string in = writeText(dir, "simple_skin.gltf", b.finish(doc));
  cli("convert " + test::quote(in) + " --to renderware-dff -o " + test::quote(dir + "/simple.dff"));
  Rig back = loadRig(dir + "/simple.dff");
  toGltfAxes(back);
  ASSERT_EQ(back.meshes.size(), 1u);
  const Mesh& mesh = back.meshes[0];
  const std::vector<glm::mat4> world = back.skeleton.worldBindMatrices();
  const std::vector<float> quad = quadPositions();
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    glm::vec3 p(0.0f);
    for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) {
      const Bone& bone = back.skeleton.bones[mesh.influences[i].bone];
      p += mesh.influences[i].weight * glm::vec3(world[mesh.influences[i].bone] * *bone.inverseBind * glm::vec4(mesh.positions[v], 1.0f));
    }
    EXPECT_NEAR(glm::distance(p, glm::vec3(quad[v * 3] + 2.0f, quad[v * 3 + 1], quad[v * 3 + 2])), 0.0f, 1e-5f) << "vertex " << v;
  }
  const int32_t child = back.skeleton.find("bone1");
  ASSERT_GE(child, 0);
  EXPECT_NEAR(glm::distance(glm::vec3(world[static_cast<size_t>(child)][3]), glm::vec3(2.0f, 1.0f, 0.0f)), 0.0f, 1e-5f);
}

// Spec: sampler input times strictly increase. Equal ones read with a warning, the last key kept.
TEST(GltfInAnimation, EqualKeyTimesGiveAWarning) {
  Builder b;
  json doc = skinnedDoc(b, quadPrimitive(b));
  const int times = b.add(std::vector<float>{0.0f, 0.5f, 0.5f, 1.0f}, 4, kFloat, "SCALAR");
  const int values = b.add(std::vector<float>{0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0}, 4, kFloat, "VEC3");
  doc["animations"] = {{{"name", "jump"},
                        {"samplers", {{{"input", times}, {"output", values}}}},
                        {"channels", {{{"sampler", 0}, {"target", {{"node", 1}, {"path", "translation"}}}}}}}};
  auto asset = readText(b.finish(doc));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  const Rig& rig = asset->rigs[0];
  EXPECT_TRUE(hasWarning(rig, "equal-key-times"));
  ASSERT_EQ(rig.animations.size(), 1u);
  const Keys<glm::vec3>& keys = rig.animations[0].tracks.at(0).translation;
  EXPECT_EQ(keys.times, (std::vector<float>{0.0f, 0.5f, 1.0f}));
  EXPECT_EQ(keys.values[1], glm::vec3(0, 3, 0));
}

// NODE_SKIN_NO_SCENE: joints no scene shows read as joints, with a warning.
TEST(GltfInSkeleton, JointsOutsideEverySceneGiveAWarning) {
  Builder b;
  json doc = skinnedDoc(b, quadPrimitive(b));
  doc["scenes"][0]["nodes"] = {2};  // the mesh only: the joints' tree is in no scene
  auto asset = readText(b.finish(doc));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  EXPECT_TRUE(hasWarning(asset->rigs[0], "joints-outside-scene"));
  EXPECT_EQ(asset->rigs[0].skeleton.bones.size(), 2u);
}

// ---- Errors: exit 1, a message naming the file and what is wrong, no output ----

TEST(GltfInErrors, AGltfWithoutASkin) {
  const std::string dir = test::scratchDir("gltf_in_noskin");
  const std::string in = writeText(dir, "static.gltf", R"({"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"nodes":[{"name":"prop"}]})");
  const std::string out = cli("convert " + test::quote(in) + " --to renderware-dff -o " + test::quote(dir + "/static.dff"), 1);
  EXPECT_NE(out.find("static.gltf: skins: no skin"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir + "/static.dff"));
}

TEST(GltfInErrors, ABrokenGlb) {
  const std::string dir = test::scratchDir("gltf_in_broken");
  cli("convert " + test::quote(rwSample("synthetic_skin_rw36003.dff")) + " -o " + test::quote(dir + "/rig.glb"));
  std::vector<uint8_t> glb = test::readBytes(dir + "/rig.glb");
  const std::vector<uint8_t> half(glb.begin(), glb.begin() + static_cast<std::ptrdiff_t>(glb.size() / 2));
  std::ofstream(dir + "/half.glb", std::ios::binary).write(reinterpret_cast<const char*>(half.data()), static_cast<std::streamsize>(half.size()));
  std::string out = cli("convert " + test::quote(dir + "/half.glb") + " --to renderware-dff -o " + test::quote(dir + "/half.dff"), 1);
  EXPECT_NE(out.find("half.glb: glb/length: header says"), std::string::npos) << out;
  EXPECT_NE(out.find("(at 0x8)"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir + "/half.dff"));
  glb[21] = '[';  // the JSON chunk no longer holds an object
  std::ofstream(dir + "/bad.glb", std::ios::binary).write(reinterpret_cast<const char*>(glb.data()), static_cast<std::streamsize>(glb.size()));
  out = cli("convert " + test::quote(dir + "/bad.glb") + " --to renderware-dff -o " + test::quote(dir + "/bad.dff"), 1);
  EXPECT_NE(out.find("bad.glb: json:"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir + "/bad.dff"));
}

TEST(GltfInErrors, AGltfWithoutItsBin) {
  const std::string dir = test::scratchDir("gltf_in_nobin");
  cli("convert " + test::quote(rwSample("synthetic_skin_rw36003.dff")) + " --gltf -o " + test::quote(dir + "/rig.gltf"));
  ASSERT_TRUE(fs::exists(dir + "/rig.bin"));
  // With its .bin the .gltf converts.
  cli("convert " + test::quote(dir + "/rig.gltf") + " --to renderware-dff -o " + test::quote(dir + "/ok.dff"));
  EXPECT_TRUE(fs::exists(dir + "/ok.dff"));
  fs::remove(dir + "/rig.bin");
  const std::string out = cli("convert " + test::quote(dir + "/rig.gltf") + " --to renderware-dff -o " + test::quote(dir + "/rig.dff"), 1);
  EXPECT_NE(out.find("rig.gltf: buffers[0].uri: cannot open 'rig.bin'"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir + "/rig.dff"));
}

TEST(GltfInErrors, ToAFormatWithoutAWriter) {
  const std::string out = cli("convert " + test::quote(rwSample("synthetic_skin_rw36003.dff")) + " --to gta-ifp -o /tmp", 2);
  EXPECT_NE(out.find("--to gta-ifp: rigport has no writer for it; formats with a writer: renderware-dff (.dff)"), std::string::npos) << out;
}

// Truncations and byte flips of a .glb: an error or a rig, never a crash; a truncated GLB is always
// an error (its header's length no longer fits).
TEST(GltfInSweep, TruncationsAndByteFlips) {
  const std::string dir = test::scratchDir("gltf_in_sweep");
  cli("convert " + test::quote(rwSample("synthetic_skin_rw36003.dff")) + " --anim " + test::quote(rwSample("synthetic_skin_rw36003.anm")) + " -o " +
      test::quote(dir + "/rig.glb"));
  const std::vector<uint8_t> glb = test::readBytes(dir + "/rig.glb");
  ASSERT_GT(glb.size(), 1000u);
  const auto read = [](std::vector<uint8_t> bytes) {
    const auto source = Source::fromBytes(std::move(bytes), "sweep.glb");
    ReadContext ctx(ReadOptions{.memoryLimit = 64u << 20});
    return readAsset(*source, ctx);
  };
  ASSERT_TRUE(read(glb).ok());
  for (size_t n = 0; n < glb.size(); ++n) {
    EXPECT_FALSE(read(std::vector<uint8_t>(glb.begin(), glb.begin() + static_cast<std::ptrdiff_t>(n))).ok()) << "prefix " << n;
  }
  size_t accepted = 0;
  for (size_t i = 0; i < glb.size(); ++i) {
    std::vector<uint8_t> flipped = glb;
    flipped[i] ^= 0xFF;
    auto asset = read(std::move(flipped));
    if (asset) accepted += 1;
  }
  // Flips inside key values or names still read; flips of the header, chunk lengths or JSON
  // syntax do not: both kinds occur.
  EXPECT_GT(accepted, 0u);
  EXPECT_LT(accepted, glb.size());
}

// ---- Animations beside a format that stores none ----

TEST(GltfInAnimOut, OneFilePerClipOrAWarningNamingThem) {
  const std::string dir = test::scratchDir("gltf_in_anim_out");
  cli("convert " + test::quote(rwSample("synthetic_skin_rw36003.dff")) + " --anim " + test::quote(rwSample("synthetic_skin_rw36003.anm")) + " -o " +
      test::quote(dir + "/rig.glb"));
  cli("convert " + test::quote(dir + "/rig.glb") + " --to renderware-dff -o " + test::quote(dir + "/rig.dff") + " --anim-out " +
      test::quote(dir + "/clips/{clip}.anm"));
  const Rig back = loadRig(dir + "/rig.dff", dir + "/clips/synthetic_skin_rw36003.anm");
  ASSERT_EQ(back.animations.size(), 1u);
  EXPECT_EQ(back.animations[0].tracks.size(), 6u);

  const std::string out = cli("convert " + test::quote(dir + "/rig.glb") + " --to renderware-dff -o " + test::quote(dir + "/bare.dff"));
  EXPECT_NE(out.find("1 animation ('synthetic_skin_rw36003') not written: renderware-dff stores none; give --anim-out FILE"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(dir + "/bare.dff"));
  const std::string ifp = cli("convert " + test::quote(dir + "/rig.glb") + " --to renderware-dff -o " + test::quote(dir + "/x.dff") + " --anim-out x.ifp", 2);
  EXPECT_NE(ifp.find("--anim-out x.ifp: no animation writer for '.ifp' files; animation writers: renderware-anm (.anm)"), std::string::npos) << ifp;
  EXPECT_FALSE(fs::exists(dir + "/x.dff"));
}

// A mesh beyond RenderWare's 65535 vertices is split, each piece under the limit, nothing lost.
TEST(GltfInLimits, AMeshBeyondTheIndexWidthIsSplit) {
  Builder b;
  constexpr uint32_t kQuads = 17000;  // 68000 vertices, 34000 triangles
  std::vector<float> pos;
  std::vector<uint8_t> joints(kQuads * 16, 0);
  std::vector<float> weights;
  std::vector<uint32_t> idx;
  for (uint32_t q = 0; q < kQuads; ++q) {
    const float x = static_cast<float>(q);
    pos.insert(pos.end(), {x, 0, 0, x + 1, 0, 0, x, 1, 0, x + 1, 1, 0});
    for (int v = 0; v < 4; ++v) weights.insert(weights.end(), {1, 0, 0, 0});
    idx.insert(idx.end(), {q * 4, q * 4 + 1, q * 4 + 2, q * 4 + 2, q * 4 + 1, q * 4 + 3});
  }
  json prim = {{"attributes",
                {{"POSITION", b.add(pos, kQuads * 4, kFloat, "VEC3")},
                 {"JOINTS_0", b.add(joints, kQuads * 4, kUByte, "VEC4")},
                 {"WEIGHTS_0", b.add(weights, kQuads * 4, kFloat, "VEC4")}}},
               {"indices", b.add(idx, idx.size(), kUInt, "SCALAR")}};
  const std::string dir = test::scratchDir("gltf_in_split");
  const std::string in = writeText(dir, "big.gltf", b.finish(skinnedDoc(b, prim)));
  const std::string out = cli("convert " + test::quote(in) + " --to renderware-dff -o " + test::quote(dir + "/big.dff"));
  EXPECT_NE(out.find("mesh 'body': 68000 vertices; renderware-dff indexes at most 65535 per mesh, so it was split into 2 meshes"),
            std::string::npos)
      << out;
  const Rig back = loadRig(dir + "/big.dff");
  ASSERT_EQ(back.meshes.size(), 2u);
  size_t triangles = 0;
  for (const Mesh& m : back.meshes) {
    EXPECT_LE(m.vertexCount(), 65535u);
    triangles += m.indices.size() / 3;
  }
  EXPECT_EQ(triangles, 34000u);
}

// ---- rigport's own extras come back: ids, hashes, events, scalar channels, cubic and step keys ----

TEST(GltfInExtras, ExportThenReadKeepsWhatGltfHasNoFieldFor) {
  Rig rig = makeDemoCharacter();
  ASSERT_GE(rig.skeleton.bones.size(), 3u);
  rig.skeleton.bones[1].nameHash = fnv1_32Lower(rig.skeleton.bones[1].name);
  rig.skeleton.bones[1].nameHashKind = HashKind::Fnv1_32Lower;
  rig.skeleton.bones[2].nameHash = 0xF00DFACEBEEF1234ull;  // a 64-bit hash survives JSON exactly
  rig.skeleton.bones[2].extras = {{"game", {{"flags", 7}}}};
  rig.extras = {{"renderware", {{"version", "3.6.0.3"}}}};
  Animation cue;  // events only: no channel, so it travels in the root's extras
  cue.name = "cue";
  cue.duration = 2.0f;
  cue.events.push_back(Event{1.5f, "sound", R"({"id":12})"});
  rig.animations.push_back(cue);
  Animation& walk = rig.animations.at(0);
  ASSERT_FALSE(walk.events.empty());
  ScalarChannel blink{"blink", "face/eyelids", {}};
  blink.keys.times = {0.0f, 0.5f, 1.0f};
  blink.keys.values = {0.0f, 1.0f, 0.0f};
  blink.keys.interpolation = Interpolation::CubicSpline;
  blink.keys.inTangents = {0.0f, 0.5f, -1.0f};
  blink.keys.outTangents = {1.0f, -0.5f, 0.0f};
  walk.scalars.push_back(blink);
  BoneTrack& track = walk.tracks.at(0);
  track.translation.interpolation = Interpolation::Step;

  auto glb = exportGlb(rig);
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  const auto source = Source::fromBytes(*glb, "demo.glb");
  ReadContext ctx;
  auto asset = gltf_in::readGltf(*source, ctx);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->rigs.size(), 1u);
  const Rig& back = asset->rigs[0];

  expectSameSkeleton(rig, back, 1e-6f);
  for (size_t b = 0; b < rig.skeleton.bones.size(); ++b) {
    const Bone& x = rig.skeleton.bones[b];
    const Bone& y = back.skeleton.bones[b];
    EXPECT_EQ(x.nameHash, y.nameHash) << x.name;
    EXPECT_EQ(x.nameHashKind, y.nameHashKind) << x.name;
    EXPECT_NEAR(glm::distance(x.translation, y.translation), 0.0f, 1e-6f) << x.name;
    EXPECT_NEAR(std::fabs(glm::dot(x.rotation, y.rotation)), 1.0f, 1e-6f) << x.name;
  }
  EXPECT_EQ(back.skeleton.bones[2].extras, rig.skeleton.bones[2].extras);
  EXPECT_EQ(back.extras, rig.extras);
  ASSERT_EQ(back.meshes.size(), rig.meshes.size());
  for (size_t v = 0; v < rig.meshes[0].vertexCount(); v += 97) {
    expectSameWeights(influencesOf(rig, rig.meshes[0], v), influencesOf(back, back.meshes[0], v), 1e-6f, "vertex " + std::to_string(v));
  }

  ASSERT_EQ(back.animations.size(), 2u);
  const Animation& w = back.animations[0];
  EXPECT_EQ(w.name, walk.name);
  EXPECT_FLOAT_EQ(w.duration, walk.duration);
  ASSERT_EQ(w.events.size(), walk.events.size());
  for (size_t e = 0; e < walk.events.size(); ++e) {
    EXPECT_FLOAT_EQ(w.events[e].time, walk.events[e].time);
    EXPECT_EQ(w.events[e].type, walk.events[e].type);
    EXPECT_EQ(w.events[e].payload, walk.events[e].payload);
  }
  ASSERT_EQ(w.scalars.size(), 1u);
  EXPECT_EQ(w.scalars[0].name, "blink");
  EXPECT_EQ(w.scalars[0].target, "face/eyelids");
  EXPECT_EQ(w.scalars[0].keys.interpolation, Interpolation::CubicSpline);
  EXPECT_EQ(w.scalars[0].keys.values, blink.keys.values);
  EXPECT_EQ(w.scalars[0].keys.outTangents, blink.keys.outTangents);
  const BoneTrack* t = trackOf(back, w, rig.skeleton.bones[static_cast<size_t>(track.bone)].name);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->translation.interpolation, Interpolation::Step);
  EXPECT_EQ(t->translation.times, track.translation.times);
  EXPECT_EQ(t->target.id, rig.skeleton.bones[static_cast<size_t>(track.bone)].id);
  const Animation& c = back.animations[1];
  EXPECT_EQ(c.name, "cue");
  EXPECT_FLOAT_EQ(c.duration, 2.0f);
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].payload, R"({"id":12})");
}

// CUBICSPLINE samplers: in-tangent, value, out-tangent per key, read into Keys as they were.
TEST(GltfInExtras, CubicSplineRotationsKeepTheirTangents) {
  Rig rig = makeDemoCharacter();
  BoneTrack& track = rig.animations.at(0).tracks.at(1);
  Keys<glm::quat>& r = track.rotation;
  ASSERT_GE(r.times.size(), 2u);
  r.interpolation = Interpolation::CubicSpline;
  r.inTangents.assign(r.times.size(), glm::quat(0.0f, 0.1f, 0.0f, 0.0f));
  r.outTangents.assign(r.times.size(), glm::quat(0.0f, 0.0f, 0.2f, 0.0f));
  auto glb = exportGlb(rig);
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  const auto source = Source::fromBytes(*glb, "cubic.glb");
  ReadContext ctx;
  auto asset = gltf_in::readGltf(*source, ctx);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  const Rig& back = asset->rigs[0];
  const BoneTrack* t = trackOf(back, back.animations[0], rig.skeleton.bones[static_cast<size_t>(track.bone)].name);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->rotation.interpolation, Interpolation::CubicSpline);
  ASSERT_EQ(t->rotation.inTangents.size(), r.times.size());
  EXPECT_FLOAT_EQ(t->rotation.outTangents[0].y, 0.2f);  // glm::quat(w, x, y, z)
  EXPECT_FLOAT_EQ(t->rotation.inTangents[1].x, 0.1f);
}

}  // namespace
