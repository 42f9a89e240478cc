// Mario Super Sluggers model blocks (format note shared/formats/sluggers.md): there are no public
// samples (§10), so every block here is written by rigport's writer or patched by hand from one.
// Checked: round trips (positions within the quantisation step, weights within 1/256) over
// SK1/SK2/SKAcc mixes, 255+1 full weights, duplicate records and every GX component type; the
// choice between bone-id and depth-first SK bone indices; slots beyond the position array;
// pointers that leave their section; truncation and byte-flip sweeps; CLI conversion to a
// validator-clean .glb; Blender import with the right weights; the skin rebuild's fast paths
// against the plain rules they stand for.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>

#include "../fuzz/downstream.hpp"
#include "core/validate.hpp"
#include "export/gltf.hpp"
#include "formats/registry.hpp"
#include "support/mesh_compare.hpp"
#include "formats/sluggers/sluggers.hpp"
#include "formats/sluggers/gpl.hpp"
#include "formats/sluggers/gx_quant.hpp"
#include "formats/sluggers/skin_build.hpp"
#include "support/blender.hpp"
#include "support/gltf_validator.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

using sluggers::GxType;
using sluggers::ModelWriteOptions;
using sluggers::readModel;
using sluggers::writeModel;

uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
  return (uint32_t(b[at]) << 24) | (uint32_t(b[at + 1]) << 16) | (uint32_t(b[at + 2]) << 8) | b[at + 3];
}
uint16_t be16(const std::vector<uint8_t>& b, size_t at) { return static_cast<uint16_t>((b[at] << 8) | b[at + 1]); }
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}
void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v >> 8);
  b[at + 1] = static_cast<uint8_t>(v);
}

// The SKN header of a written block (block header +0x10, §2; SKN header §6).
struct SknView {
  size_t at = 0;
  uint16_t sk1 = 0, sk2 = 0, acc = 0;
  size_t sk1At = 0, sk2At = 0, accAt = 0;
};
SknView skn(const std::vector<uint8_t>& b) {
  SknView v;
  v.at = be32(b, 0x10);
  v.sk1 = be16(b, v.at);
  v.sk2 = be16(b, v.at + 2);
  v.acc = be16(b, v.at + 4);
  v.sk1At = v.at + be32(b, v.at + 8);
  v.sk2At = v.at + be32(b, v.at + 12);
  v.accAt = v.at + be32(b, v.at + 16);
  return v;
}

// root -> spine -> {head, arm}, root -> leg; table order root, spine, leg, head, arm is not the
// depth-first order (root, spine, head, arm, leg), so the two meanings of an SK index differ.
Rig skeletonRig() {
  Rig rig;
  rig.name = "slugger";
  auto bone = [&](const char* name, int32_t parent, glm::vec3 t, glm::quat r = glm::quat(1, 0, 0, 0)) {
    Bone b;
    b.name = name;
    b.parent = parent;
    b.translation = t;
    b.rotation = r;
    rig.skeleton.bones.push_back(b);
  };
  bone("root", -1, {0, 0, 0});
  bone("spine", 0, {0, 1, 0}, glm::angleAxis(0.2f, glm::vec3(0, 0, 1)));
  bone("leg", 0, {0.3f, -1, 0});
  bone("head", 1, {0, 1, 0});
  bone("arm", 1, {0.5f, 0.8f, 0}, glm::angleAxis(-0.7f, glm::vec3(0, 0, 1)));
  return rig;
}

glm::vec3 worldOf(const Rig& rig, uint32_t bone) { return glm::vec3(rig.skeleton.worldBindMatrices()[bone][3]); }

// Vertices chosen so the writer needs every entry kind: SK1 runs (5 and 3 vertices), a single-bone
// run too short for SK1 (SKAcc, 255+1), an SK2 run, a lone pair (SKAcc), three-bone vertices
// (SKAcc) and a vertex whose two records name the same bone (merged into a full weight).
Rig skinnedRig() {
  Rig rig = skeletonRig();
  Mesh mesh;
  mesh.name = "body";
  mesh.influenceOffsets.push_back(0);
  auto vertex = [&](std::vector<Influence> infl) {
    const size_t v = mesh.positions.size();
    const glm::vec3 near = worldOf(rig, infl[0].bone);
    mesh.positions.push_back(near + glm::vec3(0.05f * static_cast<float>(v % 5), 0.031f * static_cast<float>(v), 0.1f));
    mesh.normals.push_back(glm::normalize(glm::vec3(std::sin(0.7f * v), std::cos(0.7f * v), 0.4f)));
    mesh.uvs.emplace_back(0.05f * static_cast<float>(v), 1.0f - 0.03f * static_cast<float>(v));
    mesh.influences.insert(mesh.influences.end(), infl.begin(), infl.end());
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  };
  for (int i = 0; i < 5; ++i) vertex({{1, 1.0f}});
  for (int i = 0; i < 3; ++i) vertex({{3, 1.0f}});
  for (int i = 0; i < 2; ++i) vertex({{2, 1.0f}});
  for (int i = 0; i < 4; ++i) vertex({{1, 0.7f}, {4, 0.3f}});
  vertex({{0, 0.5f}, {2, 0.5f}});
  for (int i = 0; i < 3; ++i) vertex({{0, 0.5f}, {1, 0.3f}, {2, 0.2f}});
  vertex({{4, 0.4f}, {4, 0.6f}});
  for (uint32_t v = 0; v + 2 < mesh.positions.size(); ++v) mesh.indices.insert(mesh.indices.end(), {v, v + 1, v + 2});
  rig.meshes.push_back(mesh);
  return rig;
}

// A rigid mesh on the arm: non-negative values, so every GX type (unsigned too) can hold them.
Mesh rigidMesh() {
  Mesh mesh;
  mesh.name = "bat";
  mesh.attachBone = 4;
  for (int i = 0; i < 6; ++i) {
    const float f = static_cast<float>(i);
    mesh.positions.emplace_back(0.1f + 0.2f * f, 0.05f * f, 0.3f + 0.01f * f);
    mesh.normals.push_back(glm::normalize(glm::vec3(1.0f + f, 2.0f, 0.5f * f)));
    mesh.uvs.emplace_back(0.1f * f, 0.9f - 0.1f * f);
  }
  mesh.indices = {0, 1, 2, 2, 3, 4, 3, 4, 5};
  return mesh;
}

// The weights a vertex should read back: the source's, merged per bone and normalised.
std::map<uint32_t, double> normalised(const Mesh& m, size_t v) {
  std::map<uint32_t, double> out;
  double sum = 0;
  for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i) {
    out[m.influences[i].bone] += m.influences[i].weight;
    sum += m.influences[i].weight;
  }
  for (auto& [b, w] : out) w /= sum;
  return out;
}
std::map<uint32_t, double> weightsOf(const Mesh& m, size_t v) {
  std::map<uint32_t, double> out;
  for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i) out[m.influences[i].bone] += m.influences[i].weight;
  return out;
}

void expectSameSkin(const Mesh& source, const Mesh& back) {
  ASSERT_EQ(back.vertexCount(), source.vertexCount());
  ASSERT_TRUE(back.skinned());
  for (size_t v = 0; v < source.vertexCount(); ++v) {
    const auto want = normalised(source, v);
    const auto got = weightsOf(back, v);
    ASSERT_EQ(got.size(), want.size()) << "vertex " << v;
    for (const auto& [bone, w] : want) {
      ASSERT_EQ(got.count(bone), 1u) << "vertex " << v << " lacks bone " << bone;
      EXPECT_LE(std::fabs(got.at(bone) - w), 1.0 / 256) << "vertex " << v << " bone " << bone;
    }
  }
}

bool hasWarning(const Rig& rig, const std::string& code) {
  for (const Warning& w : rig.provenance.warnings)
    if (w.code == code) return true;
  return false;
}

Rig readBack(const std::vector<uint8_t>& bytes) {
  auto rig = readModel(bytes);
  EXPECT_TRUE(rig.ok()) << rig.error().describe();
  return rig.ok() ? *rig : Rig{};
}

TEST(SluggersModel, RoundTripKeepsBonesMeshAndWeights) {
  Rig rig = skinnedRig();
  rig.meshes.push_back(rigidMesh());
  auto bytes = writeModel(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  const Rig back = readBack(*bytes);
  ASSERT_EQ(back.skeleton.bones.size(), rig.skeleton.bones.size());
  for (size_t b = 0; b < rig.skeleton.bones.size(); ++b) {
    const Bone& s = rig.skeleton.bones[b];
    const Bone& r = back.skeleton.bones[b];
    EXPECT_EQ(r.name, s.name);
    EXPECT_EQ(r.parent, s.parent);
    EXPECT_EQ(r.id, b);
    EXPECT_LT(glm::distance(r.translation, s.translation), 1e-6f);
    EXPECT_GT(std::fabs(glm::dot(r.rotation, s.rotation)), 1.0f - 1e-6f);
    ASSERT_TRUE(r.inverseBind.has_value());
    const glm::mat4 expected = glm::inverse(rig.skeleton.worldBindMatrices()[b]);
    for (int c = 0; c < 4; ++c) EXPECT_LT(glm::distance((*r.inverseBind)[c], expected[c]), 1e-5f) << s.name;
  }
  ASSERT_EQ(back.meshes.size(), 2u);
  const Mesh& src = rig.meshes[0];
  const Mesh& got = back.meshes[0];
  EXPECT_EQ(got.name, "body");
  EXPECT_EQ(got.indices, src.indices);
  // The skinned array is s16 with the SKN shift: the largest coordinate (about 2.5) allows 13 bits.
  const float step = std::ldexp(1.0f, -13);
  for (size_t v = 0; v < src.vertexCount(); ++v) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_LE(std::fabs(got.positions[v][c] - src.positions[v][c]), step / 2) << "vertex " << v;
      EXPECT_LE(std::fabs(got.normals[v][c] - src.normals[v][c]), step / 2) << "vertex " << v;
    }
  }
  expectSameSkin(src, got);
  EXPECT_EQ(back.meshes[1].attachBone, 4);
  EXPECT_FALSE(back.meshes[1].skinned());
  EXPECT_EQ(back.name, "slugger");
  EXPECT_EQ(back.extras["sluggers"]["skin"]["boneIndex"], "boneId") << back.extras.dump();
  EXPECT_EQ(back.provenance.warningCount(), 0u);
}

TEST(SluggersModel, WriterUsesSk1Sk2AndSkAccWithFullWeightsAs255Plus1) {
  const Rig rig = skinnedRig();
  auto bytes = writeModel(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  const SknView v = skn(*bytes);
  EXPECT_EQ(v.sk1, 2);   // vertices 0-4 (spine) and 5-7 (head)
  EXPECT_EQ(v.sk2, 1);   // vertices 10-13 (spine, arm)
  EXPECT_GE(v.acc, 3);   // root, spine, leg, arm records of vertices 8-9 and 14-18
  // SK1 0: §6 fields at 0x30; count 5 at 0x3A, vertex (vertDst + offset)/12 = 0.
  EXPECT_EQ(be16(*bytes, v.sk1At + 0x3A), 5);
  EXPECT_EQ(be16(*bytes, v.sk1At + 0x40 + 0x3A), 3);
  EXPECT_EQ((be32(*bytes, v.sk1At + 0x40 + 0x34) + (*bytes)[v.sk1At + 0x40 + 0x3C]) / 12, 5u);
  // SK2 fields after the two matrices (0x60): bones 1 and 4, count 4, weights 179/77 (0.7/0.3 of 256).
  EXPECT_EQ(be16(*bytes, v.sk2At + 0x6C), 1);
  EXPECT_EQ(be16(*bytes, v.sk2At + 0x6E), 4);
  EXPECT_EQ(be16(*bytes, v.sk2At + 0x70), 4);
  const size_t w = v.at + be32(*bytes, v.sk2At + 0x64);
  EXPECT_EQ((*bytes)[w] + (*bytes)[w + 1], 256);
  // A full weight in SKAcc is two records of the same vertex: 255 then 1.
  bool found = false;
  for (size_t e = 0; e < v.acc; ++e) {
    const size_t at = v.accAt + e * 0x44;
    const size_t idx = v.at + be32(*bytes, at + 0x34);
    const size_t wts = v.at + be32(*bytes, at + 0x3C);
    const uint16_t count = be16(*bytes, at + 0x42);
    for (size_t n = 0; n + 1 < count; ++n) {
      found = found || (be16(*bytes, idx + 2 * n) == be16(*bytes, idx + 2 * n + 2) && (*bytes)[wts + n] == 255 && (*bytes)[wts + n + 1] == 1);
    }
  }
  EXPECT_TRUE(found);
  // Read back, those vertices weigh exactly 1 on their bone (255/256 + 1/256 summed).
  const Rig back = readBack(*bytes);
  ASSERT_EQ(back.meshes.size(), 1u);
  EXPECT_EQ(weightsOf(back.meshes[0], 8), (std::map<uint32_t, double>{{2, 1.0}}));
  EXPECT_EQ(weightsOf(back.meshes[0], 18), (std::map<uint32_t, double>{{4, 1.0}}));
  EXPECT_EQ(back.extras["sluggers"]["skin"]["entries"]["SK1"], 2);
}

TEST(SluggersModel, DuplicateRecordsAcrossEntriesAreSummed) {
  auto bytes = writeModel(skinnedRig());
  ASSERT_TRUE(bytes.ok());
  const SknView v = skn(*bytes);
  // Point the SK2's second bone at the first: each of its vertices gets (spine, 179) + (spine, 77).
  put16(*bytes, v.sk2At + 0x6E, 1);
  const Rig back = readBack(*bytes);
  ASSERT_EQ(back.meshes.size(), 1u);
  for (size_t vtx = 10; vtx < 14; ++vtx) {
    EXPECT_EQ(weightsOf(back.meshes[0], vtx), (std::map<uint32_t, double>{{1, 1.0}})) << vtx;
  }
}

// Every record of a slot normally carries the same bind data; when one entry's copy differs, the
// slot's bind position is the records' weighted mean (sluggers.md §6), not the first copy.
TEST(SluggersModel, SourcesThatDisagreeAreAveragedByWeight) {
  auto bytes = writeModel(skinnedRig());
  ASSERT_TRUE(bytes.ok());
  const Rig original = readBack(*bytes);
  const SknView v = skn(*bytes);
  const uint8_t shift = (*bytes)[v.at + 6];
  constexpr size_t kSlot = 15;  // the first three-bone vertex: one record in each of three SKAcc entries
  size_t patched = 0;
  uint32_t patchedWeight = 0;
  for (size_t e = 0; e < v.acc && patched == 0; ++e) {
    const size_t entry = v.accAt + e * 0x44;
    const size_t source = v.at + be32(*bytes, entry + 0x30), indices = v.at + be32(*bytes, entry + 0x34);
    const size_t weights = v.at + be32(*bytes, entry + 0x3C);
    const uint32_t base = be32(*bytes, entry + 0x38) / 12;
    for (size_t n = 0; n < be16(*bytes, entry + 0x42); ++n) {
      if (base + be16(*bytes, indices + 2 * n) != kSlot) continue;
      put16(*bytes, source + 12 * n, static_cast<uint16_t>(be16(*bytes, source + 12 * n) + (1u << shift)));  // x + 1.0
      patchedWeight = (*bytes)[weights + n];
      ++patched;
      break;
    }
  }
  ASSERT_EQ(patched, 1u) << "no SKAcc record for slot " << kSlot;
  const Rig back = readBack(*bytes);
  const glm::vec3 was = original.meshes[0].positions[kSlot], now = back.meshes[0].positions[kSlot];
  EXPECT_FLOAT_EQ(now.x, static_cast<float>(was.x + double(patchedWeight) / 256.0)) << "weight " << patchedWeight << "/256 of +1.0";
  EXPECT_EQ(now.y, was.y);
  EXPECT_EQ(now.z, was.z);
  EXPECT_EQ(back.meshes[0].positions[kSlot + 1], original.meshes[0].positions[kSlot + 1]);
}

TEST(SluggersModel, EveryGxComponentTypeRoundTripsWithinItsStep) {
  for (GxType type : {GxType::U8, GxType::S8, GxType::U16, GxType::S16, GxType::F32}) {
    SCOPED_TRACE(static_cast<int>(type));
    Rig rig = skeletonRig();
    rig.meshes.push_back(rigidMesh());
    const Mesh& src = rig.meshes[0];
    ModelWriteOptions options;
    options.positions = options.normals = options.uvs = type;
    auto bytes = writeModel(rig, options);
    ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
    const Rig back = readBack(*bytes);
    ASSERT_EQ(back.meshes.size(), 1u);
    const Mesh& got = back.meshes[0];
    ASSERT_EQ(got.vertexCount(), src.vertexCount());
    EXPECT_EQ(got.indices, src.indices);
    // The quantize byte in the file: high nibble the type, low nibble the fractional bits.
    const size_t layout = 0x20 + be32(*bytes, 0x20 + be32(*bytes, 0x20 + 0x10));
    const uint8_t q = (*bytes)[layout + be32(*bytes, layout) + 6];
    EXPECT_EQ(q >> 4, static_cast<int>(type));
    auto halfStep = [&](auto values) {
      std::vector<float> flat;
      for (const auto& v : values)
        for (int c = 0; c < v.length(); ++c) flat.push_back(v[c]);
      const auto qi = sluggers::chooseQuantizeInfo(type, flat);
      return type == GxType::F32 ? 0.0f : std::ldexp(0.5f, -static_cast<int>(*qi & 0xF));
    };
    const float p = halfStep(src.positions), n = halfStep(src.normals), t = halfStep(src.uvs);
    if (type == GxType::U8 || type == GxType::S8) EXPECT_GT(p, 0.0f);
    for (size_t v = 0; v < src.vertexCount(); ++v) {
      for (int c = 0; c < 3; ++c) {
        EXPECT_LE(std::fabs(got.positions[v][c] - src.positions[v][c]), p + 1e-7f) << v;
        EXPECT_LE(std::fabs(got.normals[v][c] - src.normals[v][c]), n + 1e-7f) << v;
      }
      for (int c = 0; c < 2; ++c) EXPECT_LE(std::fabs(got.uvs[v][c] - src.uvs[v][c]), t + 1e-7f) << v;
    }
  }
}

TEST(SluggersModel, NegativeValuesDoNotFitAnUnsignedType) {
  Rig rig = skeletonRig();
  rig.meshes.push_back(rigidMesh());
  rig.meshes[0].positions[2].x = -2.0f;  // below -0.5 no rounding reaches 0
  ModelWriteOptions options;
  options.positions = GxType::U16;
  auto bytes = writeModel(rig, options);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().describe().find("meshes[0]/positions"), std::string::npos) << bytes.error().describe();
}

// The test rig's table order differs from its depth-first order (head is bone 3, depth-first 2),
// so a block whose indices were read the other way would put vertices on other bones. Here every
// vertex lies at the origin of the bone the depth-first reading would name (as a real block's
// vertices can lie nearer other bones than their own: issue 26, where choosing the reading by that
// distance moved 2,665 of 4,267 vertices of a real block on a round trip). The writer's blocks store
// bone ids and read back on the same bones, with no warning.
TEST(SluggersModel, WrittenBlocksReadBackOnTheSameBonesWhereTheReadingsDiffer) {
  Rig rig = skinnedRig();
  constexpr uint32_t kDepthFirst[] = {0, 1, 3, 4, 2};  // depth-first position -> bone (root, spine, head, arm, leg)
  Mesh& mesh = rig.meshes[0];
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    const uint32_t bone = mesh.influences[mesh.influenceOffsets[v]].bone;
    mesh.positions[v] = worldOf(rig, kDepthFirst[bone]) + glm::vec3(0.01f * static_cast<float>(v), 0.0f, 0.02f);
  }
  auto bytes = writeModel(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  EXPECT_EQ(be16(*bytes, skn(*bytes).sk1At + 0x40 + 0x38), 3) << "the head's SK1 stores its bone id";
  const Rig back = readBack(*bytes);
  ASSERT_EQ(back.meshes.size(), 1u);
  expectSameSkin(rig.meshes[0], back.meshes[0]);
  EXPECT_EQ(back.extras["sluggers"]["skin"]["boneIndex"], "boneId");
  EXPECT_FALSE(hasWarning(back, "sluggers-skin-bone-index"));
}

// §11 item 6 is settled for game data (the vanilla Mario block's public dumps: read as bone ids,
// all 10 finger chains are skinned on segments 0-2, never on the tips): a block whose indices are
// all bone ids is read so, even when they were meant depth-first (here the head's vertices, stored
// as depth-first position 2, land on bone id 2, the leg). Only an index that is no bone id (the
// arm's id made 40) makes the reader take depth-first positions, with a warning naming it.
TEST(SluggersModel, BoneIdsAreTheDefaultAndDepthFirstOnlyWhereIdsAreImpossible) {
  const Rig rig = skinnedRig();
  ModelWriteOptions options;
  options.depthFirstBoneIndex = true;
  auto bytes = writeModel(rig, options);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  EXPECT_EQ(be16(*bytes, skn(*bytes).sk1At + 0x40 + 0x38), 2) << "the head's SK1 stores its depth-first position";
  {
    const Rig back = readBack(*bytes);
    ASSERT_EQ(back.meshes.size(), 1u);
    EXPECT_EQ(weightsOf(back.meshes[0], 5), (std::map<uint32_t, double>{{2, 1.0}})) << "read as bone id 2";
    EXPECT_EQ(back.extras["sluggers"]["skin"]["boneIndex"], "boneId");
    EXPECT_FALSE(hasWarning(back, "sluggers-skin-bone-index"));
  }
  const size_t act = be32(*bytes, 0x08);
  put16(*bytes, act + 0x20 + 4 * 0x1C + 0x16, 40);  // the arm's boneID (§4 bone record +0x16)
  const Rig back = readBack(*bytes);
  ASSERT_EQ(back.meshes.size(), 1u);
  expectSameSkin(rig.meshes[0], back.meshes[0]);
  const auto& report = back.extras["sluggers"]["skin"];
  EXPECT_EQ(report["boneIndex"], "depthFirst") << report.dump();
  EXPECT_TRUE(hasWarning(back, "sluggers-skin-bone-index"));
}

// §4: every known block marks its SRTs 0x0C (rotation + translation), and community tools read other
// types as identity; the writer adds the scale bit only for a scaled bone, which reads back scaled.
TEST(SluggersModel, WriterMarksSrtsAs0x0CAndAddsScaleOnlyWhereABoneIsScaled) {
  Rig rig = skinnedRig();
  rig.skeleton.bones[2].scale = glm::vec3(1.0f, 1.5f, 1.0f);
  auto bytes = writeModel(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  const size_t act = be32(*bytes, 0x08);
  for (size_t b = 0; b < rig.skeleton.bones.size(); ++b) {
    const size_t control = act + be32(*bytes, act + 0x20 + b * 0x1C);
    EXPECT_EQ((*bytes)[control], b == 2 ? 0x0D : 0x0C) << "bone " << b;
  }
  const Rig back = readBack(*bytes);
  ASSERT_EQ(back.skeleton.bones.size(), rig.skeleton.bones.size());
  EXPECT_EQ(back.skeleton.bones[2].scale, glm::vec3(1.0f, 1.5f, 1.0f));
  EXPECT_EQ(back.skeleton.bones[1].scale, glm::vec3(1.0f));
}

TEST(SluggersModel, BoneWithoutInheritanceKeepsItsActorSpacePose) {
  auto bytes = writeModel(skinnedRig());
  ASSERT_TRUE(bytes.ok());
  const size_t act = be32(*bytes, 0x08);
  (*bytes)[act + 0x20 + 3 * 0x1C + 0x18] = 0;  // head (table index 3): inheritanceFlag 0 (§4)
  const Rig back = readBack(*bytes);
  ASSERT_EQ(back.skeleton.bones.size(), 5u);
  // §4: without inheritance the world matrix is actor · local, so the head sits at its own (0, 1, 0).
  const glm::vec3 head(back.skeleton.worldBindMatrices()[3][3]);
  EXPECT_LT(glm::distance(head, glm::vec3(0, 1, 0)), 1e-5f) << head.x << " " << head.y << " " << head.z;
  EXPECT_EQ(back.skeleton.bones[3].parent, 1) << "the hierarchy is kept";
  EXPECT_TRUE(hasWarning(back, "sluggers-inheritance"));
}

TEST(SluggersModel, EulerControlIsReportedAndItsRotationIgnored) {
  auto bytes = writeModel(skinnedRig());
  ASSERT_TRUE(bytes.ok());
  const size_t act = be32(*bytes, 0x08);
  const size_t control = act + be32(*bytes, act + 0x20 + 4 * 0x1C);  // arm's orientation
  (*bytes)[control] = 0x0B;  // scale | Euler | translation (§4 type bits)
  const Rig back = readBack(*bytes);
  ASSERT_EQ(back.skeleton.bones.size(), 5u);
  EXPECT_EQ(back.skeleton.bones[4].rotation, glm::quat(1, 0, 0, 0));
  EXPECT_LT(glm::distance(back.skeleton.bones[4].translation, glm::vec3(0.5f, 0.8f, 0)), 1e-6f);
  EXPECT_TRUE(hasWarning(back, "sluggers-euler-control"));
}

TEST(SluggersModel, SlotsBeyondThePositionArrayAreCountedNotFatal) {
  auto bytes = writeModel(skinnedRig());
  ASSERT_TRUE(bytes.ok());
  const SknView v = skn(*bytes);
  // §6: SK writes may reach past numPositions. Move the first SKAcc record of entry 0 there.
  const size_t idx = v.at + be32(*bytes, v.accAt + 0x34);
  put16(*bytes, idx, 900);
  const Rig back = readBack(*bytes);
  EXPECT_EQ(back.extras["sluggers"]["skin"]["slotsBeyondPositions"], 1) << back.extras.dump();
  bool warned = false;
  for (const Warning& w : back.provenance.warnings) {
    if (w.code != "sluggers-weight-sum") continue;
    warned = true;
    // The glTF export rescales the weights to sum 1: the warning must not claim they are kept.
    EXPECT_EQ(w.message.find("kept as stored"), std::string::npos) << w.message;
    EXPECT_NE(w.message.find("rescales"), std::string::npos) << w.message;
  }
  EXPECT_TRUE(warned) << "the vertex that lost a record no longer sums to 256/256";
}

// buildSkin's fast paths (one table lookup an index, both readings' distances in one SSE2 register,
// influences kept in order by insertion as the records come) against the rules they stand for,
// written here the plain way: the report's mean distances are glm::distance in single precision
// from each record's decoded source to its bone's bind origin, times the weight, summed in double
// in record order, bit for bit; each slot's influences are its named records stably sorted by
// bone, duplicates' weights summed as floats and divided by 256; a slot's bind position and normal
// are its source's decode (one source) or the weighted mean (sources that differ). Random sections
// (every s16 value, every shift) and indices that each reading, one of them or neither can name.
TEST(SluggersModel, BuildSkinFollowsTheScalarRules) {
  std::mt19937 random(30);
  Skeleton skeleton;
  for (int b = 0; b < 9; ++b) {
    Bone bone;
    bone.name = "b" + std::to_string(b);
    bone.parent = b == 0 ? -1 : static_cast<int32_t>(random() % b);
    bone.translation = {std::ldexp(float(random() % 2001) - 1000.0f, -7), float(random() % 301) / 97.0f, -float(random() % 777) / 13.0f};
    bone.rotation = glm::angleAxis(float(random() % 628) / 100.0f, glm::normalize(glm::vec3(1.0f, float(random() % 5), 0.5f)));
    skeleton.bones.push_back(bone);
  }
  const std::vector<glm::mat4> world = skeleton.worldBindMatrices();
  sluggers::BoneIndexMaps maps;
  maps.byId = {4, -1, 0, 7, 1, 8, -1, 2, 3, 5, 6};  // index 1 and 6 name no bone by id, 11 and above none at all
  maps.byDepthFirst = {0, 1, 5, 2, 6, 3, 7, 4, 8};  // 9 and above name no bone depth-first
  enum Names { kBoth, kIdOnly, kDepthFirstOnly, kMixedNaming };
  for (const Names names : {kBoth, kIdOnly, kDepthFirstOnly, kMixedNaming}) {
    SCOPED_TRACE(names);
    for (const uint8_t shift : {uint8_t{1}, uint8_t{8}, uint8_t{15}, uint8_t{31}}) {
      SCOPED_TRACE(static_cast<int>(shift));
      constexpr size_t kSlots = 300, kSources = 700;
      constexpr size_t kRecords = 2000;
      // The sources, then each record's vertex index and weight (an SKAcc entry's of one vertex).
      std::vector<uint8_t> section(kSources * sluggers::kSkinVertexBytes + kRecords * 3);
      for (uint8_t& b : section) b = static_cast<uint8_t>(random());
      for (size_t i = 0; i < 12; ++i) {  // the extremes of an s16, big-endian, in every component
        section[i * 2] = i % 2 == 0 ? 0x80 : 0x7F;
        section[i * 2 + 1] = i % 2 == 0 ? 0x00 : 0xFF;
      }
      sluggers::SknData skn;
      skn.shift = shift;
      skn.scale = 1.0f / static_cast<float>(1u << shift);
      skn.section = section;
      std::vector<sluggers::SkinRecord> records;
      // Most slots take one source for all their records, as written blocks do; some differ.
      std::vector<uint32_t> slotSource(kSlots + 20);
      for (uint32_t& s : slotSource) s = static_cast<uint32_t>(random() % kSources);
      auto index = [&]() -> uint16_t {
        switch (names) {
          case kBoth: return static_cast<uint16_t>(std::array{0, 2, 3, 4, 5, 7, 8}[random() % 7]);
          case kIdOnly: return static_cast<uint16_t>(std::array{0, 2, 3, 4, 5, 7, 8, 9, 10}[random() % 9]);
          case kDepthFirstOnly: return static_cast<uint16_t>(random() % 9);
          case kMixedNaming: break;
        }
        return static_cast<uint16_t>(random() % 14);
      };
      for (size_t i = 0; i < kRecords; ++i) {
        const uint32_t vertex = static_cast<uint32_t>(random() % (kSlots + 20));  // some beyond the array
        const uint32_t source = random() % 10 == 0 ? static_cast<uint32_t>(random() % kSources) : slotSource[vertex];
        const uint16_t weight = static_cast<uint16_t>(random() % 4 == 0 ? sluggers::kFullWeight : random() % 256);
        records.push_back(sluggers::SkinRecord{vertex, index(), weight, static_cast<uint32_t>(source * sluggers::kSkinVertexBytes)});
        // Each record an entry of one vertex: SK1 for a full weight, else SKAcc (index and weight stored).
        const auto at = static_cast<uint32_t>(kSources * sluggers::kSkinVertexBytes + i * 3);
        section[at] = static_cast<uint8_t>(vertex >> 8);
        section[at + 1] = static_cast<uint8_t>(vertex);
        section[at + 2] = static_cast<uint8_t>(weight);
        const bool full = weight == sluggers::kFullWeight;
        skn.entries.push_back(sluggers::SknEntry{full ? vertex : 0, records.back().source, at, at + 2, 1, records.back().boneIndex, 0,
                                                 full ? sluggers::SkinEntryKind::SK1 : sluggers::SkinEntryKind::SKAcc});
      }
      skn.recordCount = records.size();
      std::vector<glm::vec3> positions(kSlots, glm::vec3(-7.0f)), normals(kSlots - 10, glm::vec3(-7.0f));
      Provenance provenance;
      const sluggers::SlotSkin skin = sluggers::buildSkin(skn, maps, skeleton, positions, normals, provenance);

      // The mean distances.
      auto meanDistance = [&](const std::vector<int32_t>& map) -> nlohmann::json {
        double sum = 0.0, weight = 0.0;
        for (const sluggers::SkinRecord& r : records) {
          if (r.vertex >= kSlots) continue;
          if (r.boneIndex >= map.size() || map[r.boneIndex] < 0) return "an index names no bone";
          const glm::vec3 origin(world[static_cast<size_t>(map[r.boneIndex])][3]);
          sum += r.weight * static_cast<double>(glm::distance(skn.position(r), origin));
          weight += r.weight;
        }
        return weight > 0.0 ? sum / weight : 0.0;
      };
      const nlohmann::json& distances = skin.report["meanDistance"];
      EXPECT_EQ(distances["boneId"], meanDistance(maps.byId)) << distances.dump();
      EXPECT_EQ(distances["depthFirst"], meanDistance(maps.byDepthFirst)) << distances.dump();
      EXPECT_EQ(distances["boneId"].is_number(), names == kBoth || names == kIdOnly) << distances.dump();
      EXPECT_EQ(distances["depthFirst"].is_number(), names == kBoth || names == kDepthFirstOnly) << distances.dump();

      // The influences and bind data.
      const bool depthFirst = names == kDepthFirstOnly;
      EXPECT_EQ(skin.report["boneIndex"], depthFirst ? "depthFirst" : "boneId");
      const std::vector<int32_t>& map = depthFirst ? maps.byDepthFirst : maps.byId;
      ASSERT_EQ(skin.first.size(), kSlots + 1);
      for (uint32_t slot = 0; slot < kSlots; ++slot) {
        std::vector<sluggers::SkinRecord> named;
        for (const sluggers::SkinRecord& r : records) {
          if (r.vertex == slot && r.boneIndex < map.size() && map[r.boneIndex] >= 0) named.push_back(r);
        }
        std::stable_sort(named.begin(), named.end(), [&](const auto& a, const auto& b) { return map[a.boneIndex] < map[b.boneIndex]; });
        std::vector<Influence> want;
        uint32_t total = 0;
        glm::dvec3 p(0.0), n(0.0);
        for (const sluggers::SkinRecord& r : named) {
          const auto bone = static_cast<uint32_t>(map[r.boneIndex]);
          if (!want.empty() && want.back().bone == bone) {
            want.back().weight += static_cast<float>(r.weight);
          } else {
            want.push_back(Influence{bone, static_cast<float>(r.weight)});
          }
          total += r.weight;
          p += glm::dvec3(skn.position(r)) * static_cast<double>(r.weight);
          n += glm::dvec3(skn.normal(r)) * static_cast<double>(r.weight);
        }
        ASSERT_EQ(skin.first[slot + 1] - skin.first[slot], want.size()) << "slot " << slot;
        for (size_t i = 0; i < want.size(); ++i) {
          const Influence& got = skin.influences[skin.first[slot] + i];
          EXPECT_EQ(got.bone, want[i].bone) << "slot " << slot << " influence " << i;
          EXPECT_EQ(got.weight, want[i].weight / 256.0f) << "slot " << slot << " influence " << i;
        }
        if (total == 0) {
          EXPECT_EQ(positions[slot], glm::vec3(-7.0f)) << "slot " << slot << ": no weight, no bind data";
          continue;
        }
        const bool oneSource = std::all_of(records.begin(), records.end(), [&](const auto& r) {
          return r.vertex != slot || std::memcmp(&section[r.source], &section[named[0].source], sluggers::kSkinVertexBytes) == 0;
        });
        const glm::vec3 position = oneSource ? skn.position(named[0]) : glm::vec3(p / static_cast<double>(total));
        const glm::vec3 normal = oneSource ? skn.normal(named[0]) : glm::vec3(n / static_cast<double>(total));
        EXPECT_EQ(std::memcmp(&positions[slot], &position, sizeof position), 0) << "slot " << slot << (oneSource ? ", one source" : "");
        if (slot < normals.size()) {
          EXPECT_EQ(std::memcmp(&normals[slot], &normal, sizeof normal), 0) << "slot " << slot << (oneSource ? ", one source" : "");
        }
      }
    }
  }
}

// The reader stores a mesh's corner normal and uv indices only once a corner's differ from its
// position index (GplMesh::cornerRuns); then every earlier corner's are filled in as they were read.
// Here the writer's list takes two commands (65,535 corners at most each), every corner of the
// first sharing its index, and one corner of the second is given another uv: every corner still
// reads its own normal and uv, and that one its new uv, on a vertex of its own.
TEST(SluggersModel, CornerIndicesStoredLateKeepEveryEarlierCorner) {
  Rig rig = skeletonRig();
  rig.meshes.push_back(rigidMesh());
  Mesh& source = rig.meshes[0];
  source.indices.clear();
  for (uint32_t t = 0; t < 25000; ++t) source.indices.insert(source.indices.end(), {t % 6, (t + 1 + t / 7 % 4) % 6, (t + 5) % 6});
  auto bytes = writeModel(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  constexpr size_t kTuple = 6;  // position, normal and uv indices, 16-bit each
  const std::array<uint8_t, 3> full{0x90, 0xFF, 0xFF};  // triangles, 65,535 corners
  const auto first = std::search(bytes->begin(), bytes->end(), full.begin(), full.end());
  ASSERT_NE(first, bytes->end());
  const size_t second = static_cast<size_t>(first - bytes->begin()) + 3 + 65535 * kTuple;
  ASSERT_EQ((*bytes)[second], 0x90) << "the list's second command";
  const size_t patched = 65535;  // its first corner
  const uint32_t was = be16(*bytes, second + 3);
  const uint16_t uv = static_cast<uint16_t>((was + 1) % 6);
  put16(*bytes, second + 3 + 4, uv);
  const Rig back = readBack(*bytes);
  ASSERT_EQ(back.meshes.size(), 1u);
  const Mesh& got = back.meshes[0];
  ASSERT_EQ(got.indices.size(), source.indices.size());
  EXPECT_EQ(got.vertexCount(), 7u) << "the six vertices and the patched corner's own";
  for (size_t c = 0; c < got.indices.size(); ++c) {
    const uint32_t v = got.indices[c], s = source.indices[c];
    ASSERT_LT(v, got.vertexCount());
    EXPECT_LT(glm::distance(got.positions[v], source.positions[s]), 1e-3f) << "corner " << c;
    EXPECT_LT(glm::distance(got.normals[v], source.normals[s]), 1e-3f) << "corner " << c;
    EXPECT_LT(glm::distance(got.uvs[v], source.uvs[c == patched ? uv : s]), 1e-3f) << "corner " << c;
    if (HasFailure()) break;
  }
}

TEST(SluggersModel, PointersLeavingTheirSectionNameFieldAndOffset) {
  auto written = writeModel(skinnedRig());
  ASSERT_TRUE(written.ok());
  {
    std::vector<uint8_t> bytes = *written;
    const SknView v = skn(bytes);
    put32(bytes, v.sk1At + 0x30, 0x00FFFF00);  // SK1[0].vertSrc
    auto r = readModel(bytes);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::BadValue);
    EXPECT_EQ(r.error().path, "SKN/SK1[0]/vertSrc") << r.error().describe();
    EXPECT_EQ(r.error().offset, v.sk1At + 0x30);
    EXPECT_NE(r.error().message.find("leaves the SKN section"), std::string::npos) << r.error().message;
  }
  {
    std::vector<uint8_t> bytes = *written;
    const size_t descriptors = 0x20 + be32(bytes, 0x20 + 0x10);
    put32(bytes, descriptors, be32(bytes, 0x08));  // mesh 0's layout pointer, GPL-relative, past the GPL section
    auto r = readModel(bytes);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().path, "GPL/mesh[0]/layout") << r.error().describe();
    EXPECT_EQ(r.error().offset, descriptors);
  }
  {
    std::vector<uint8_t> bytes = *written;
    put32(bytes, 0x08, static_cast<uint32_t>(bytes.size() + 64));  // ACT pointer beyond the block
    auto r = readModel(bytes);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().path, "header/act") << r.error().describe();
    EXPECT_EQ(r.error().offset, 0x08u);
  }
}

TEST(SluggersModel, EveryTruncationAndByteFlipFailsCleanly) {
  Rig rig = skinnedRig();
  rig.meshes.push_back(rigidMesh());
  auto written = writeModel(rig);
  ASSERT_TRUE(written.ok());
  const std::vector<uint8_t>& original = *written;
  size_t failures = 0;
  for (size_t len = 0; len < original.size(); ++len) {
    auto r = readModel(std::span(original.data(), len));
    if (r.ok()) continue;  // only trailing padding was cut
    ++failures;
    EXPECT_TRUE(r.error().offset.has_value()) << "truncated at " << len << ": " << r.error().describe();
  }
  EXPECT_GT(failures, original.size() / 2);
  std::vector<uint8_t> bytes = original;
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] ^= 0xFF;
    auto r = readModel(bytes);
    if (!r) {
      ++failures;
      EXPECT_TRUE(r.error().offset.has_value() || !r.error().path.empty()) << "flipped at " << i << ": " << r.error().describe();
    } else {
      const Status valid = validate(*r);  // the reader checks only its meshes' structure
      EXPECT_TRUE(valid) << "flipped at " << i << ": " << valid.error().describe();
      (void)exportGlb(*r);
    }
    bytes[i] ^= 0xFF;
  }
}

TEST(SluggersModel, ProbeTakesModelBlocksOnly) {
  auto bytes = writeModel(skinnedRig());
  ASSERT_TRUE(bytes.ok());
  EXPECT_TRUE(sluggers::probeModel(*bytes));
  EXPECT_EQ(detectFormat(*bytes, "block.bin")->name, "sluggers-model");
  std::vector<uint8_t> archive = *bytes;
  put32(archive, 0, 3);  // §2: a non-zero first word is an archive or an ANM bank
  EXPECT_FALSE(sluggers::probeModel(archive));
  EXPECT_FALSE(sluggers::probeModel(test::readBytes(test::sample("renderware/synthetic_skin_rw36003.dff"))));
  std::vector<uint8_t> zeros(256, 0);
  EXPECT_FALSE(sluggers::probeModel(zeros));
}

TEST(SluggersModel, WriterRefusesWhatTheFormatCannotHold) {
  Rig two = skinnedRig();
  two.meshes.push_back(two.meshes[0]);
  auto r = writeModel(two);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("second skinned mesh"), std::string::npos) << r.error().describe();
  Rig loose = skeletonRig();
  loose.meshes.push_back(rigidMesh());
  loose.meshes[0].attachBone = -1;
  EXPECT_FALSE(writeModel(loose).ok());
}

// The fuzz target's seeds and kept findings (tests/data/fuzz/sluggers_model/) take the target's path:
// read, export, JSON report, write, and read back with the same bones.
TEST(SluggersModel, FuzzCorpusReadsExportsAndRoundTrips) {
  const std::filesystem::path dir = std::filesystem::path(RIGPORT_SOURCE_DIR) / "tests/data/fuzz/sluggers_model";
  size_t files = 0, read = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    SCOPED_TRACE(e.path().string());
    auto rig = readModel(test::readBytes(e.path().string()));
    if (!rig) continue;
    ++read;
    const Status valid = validate(*rig);  // the reader checks only its meshes' structure
    EXPECT_TRUE(valid) << valid.error().describe();
    fuzz::exerciseDownstream(*rig);
    auto bytes = writeModel(*rig);
    if (!bytes) continue;
    auto again = readModel(*bytes);
    ASSERT_TRUE(again.ok()) << again.error().describe();
    EXPECT_EQ(again->skeleton.bones.size(), rig->skeleton.bones.size());
  }
  EXPECT_GT(files, 0u);
  EXPECT_GT(read, 0u) << "the written seed block reads";
}

// §2 archive: fileCount, member offsets (0 = empty slot), members on 32-byte boundaries.
std::vector<uint8_t> archiveOf(const std::vector<std::vector<uint8_t>>& members) {
  std::vector<uint8_t> out(32, 0);
  put32(out, 0, static_cast<uint32_t>(members.size() + 1));
  for (size_t i = 0; i < members.size(); ++i) {
    out.resize((out.size() + 31) / 32 * 32, 0);
    put32(out, 4 + 4 * (i + 1), static_cast<uint32_t>(out.size()));  // slot 0 stays empty
    out.insert(out.end(), members[i].begin(), members[i].end());
  }
  return out;
}

TEST(SluggersModel, ArchiveGivesOneRigPerModelBlockAndListsTheRest) {
  auto a = writeModel(skinnedRig());
  Rig rigid = skeletonRig();
  rigid.name = "bat";
  rigid.meshes.push_back(rigidMesh());
  auto b = writeModel(rigid);
  ASSERT_TRUE(a.ok() && b.ok());
  std::vector<uint8_t> anm(64, 0);
  put32(anm, 0, 0x01321AFD);  // §2: an ANM bank's first word
  const std::vector<uint8_t> archive = archiveOf({*a, anm, *b});
  EXPECT_TRUE(sluggers::probeArchive(archive));
  EXPECT_FALSE(sluggers::probeModel(archive));
  EXPECT_FALSE(sluggers::probeArchive(*a));
  EXPECT_EQ(detectFormat(archive, "x.sluggers")->name, "sluggers-archive");
  EXPECT_EQ(detectFormat(*a, "x.sluggers")->name, "sluggers-model");

  const auto source = Source::fromBytes(archive, "dt_entry.sluggers");
  ReadContext ctx;
  auto items = sluggers::listArchive(*source, ctx);
  ASSERT_TRUE(items.ok()) << items.error().describe();
  ASSERT_EQ(items->size(), 3u);
  EXPECT_EQ((*items)[0].id, "1");
  EXPECT_EQ((*items)[0].kind, "rig");
  EXPECT_EQ((*items)[1].kind, "clip bank");
  EXPECT_EQ((*items)[2].kind, "rig");
  auto asset = readAsset(*source, ctx);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->rigs.size(), 2u);
  EXPECT_EQ(asset->rigs[0].name, "1_slugger");
  EXPECT_EQ(asset->rigs[1].name, "3_bat");
  EXPECT_EQ(asset->rigs[0].meshes[0].vertexCount(), skinnedRig().meshes[0].vertexCount());
  EXPECT_EQ(asset->provenance.warnings.size(), 1u);

  // A damaged member: the error names it, then the field inside it.
  std::vector<uint8_t> bad = archive;
  const size_t member = be32(bad, 8);
  put32(bad, member + skn(*a).sk1At + 0x30, 0x00FFFF00);
  auto failed = sluggers::readArchive(*Source::fromBytes(bad, "bad.sluggers"), ctx);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().describe().find("member 1 (at 0x"), std::string::npos) << failed.error().describe();
  EXPECT_NE(failed.error().describe().find("SK1[0]/vertSrc"), std::string::npos) << failed.error().describe();
  // Offsets that run backwards are not an archive.
  std::vector<uint8_t> backwards = archive;
  put32(backwards, 12, 32);
  EXPECT_FALSE(sluggers::probeArchive(backwards));
  EXPECT_FALSE(sluggers::readArchive(*Source::fromBytes(backwards, "b.sluggers"), ctx).ok());
}

std::string writeBlock(const std::string& dir, const Rig& rig) {
  auto bytes = writeModel(rig);
  EXPECT_TRUE(bytes.ok());
  const std::string path = dir + "/slugger.sluggers";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
  return path;
}

TEST(SluggersModel, CliConvertsAWrittenBlockToAValidGlb) {
  const std::string dir = test::scratchDir("sluggers_cli");
  Rig rig = skinnedRig();
  rig.meshes.push_back(rigidMesh());
  const std::string block = writeBlock(dir, rig);
  const test::CliRun r = test::runCli("convert " + test::quote(block) + " -o " + test::quote(dir + "/out.glb"));
  ASSERT_EQ(r.code, 0) << r.text;
  const test::ValidatorRun v = test::validateGltfFile(dir + "/out.glb");
  EXPECT_TRUE(v.ok) << v.output;
  const test::CliRun dump = test::runCli("dump " + test::quote(block), test::Capture::StdoutOnly);
  ASSERT_EQ(dump.code, 0) << dump.text;
  EXPECT_NE(dump.text.find("\"boneIndex\""), std::string::npos) << "the JSON dump reports the SK bone-index choice";

  std::vector<uint8_t> bad = test::readBytes(block);
  put32(bad, skn(bad).sk1At + 0x30, 0x7FFFFFF0);
  const std::string badPath = dir + "/bad.sluggers";
  std::ofstream(badPath, std::ios::binary).write(reinterpret_cast<const char*>(bad.data()), static_cast<std::streamsize>(bad.size()));
  const test::CliRun b = test::runCli("convert " + test::quote(badPath) + " -o " + test::quote(dir + "/bad.glb"), test::Capture::StderrOnly);
  EXPECT_EQ(b.code, 1) << b.text;
  EXPECT_NE(b.text.find("SK1[0]/vertSrc"), std::string::npos) << b.text;
  EXPECT_NE(b.text.find("0x"), std::string::npos) << b.text;
  EXPECT_FALSE(std::filesystem::exists(dir + "/bad.glb"));
}

// Blender imports the converted block with each vertex's weights (format note gltf_ecosystem.md §2.3).
TEST(SluggersModel, BlenderImportsAConvertedBlockWithItsWeights) {
  const std::string dir = test::scratchDir("sluggers_blender");
  auto bytes = writeModel(skinnedRig());
  ASSERT_TRUE(bytes.ok());
  const Rig rig = readBack(*bytes);
  auto glb = exportGlb(rig);
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  const std::string glbPath = dir + "/slugger.glb";
  std::ofstream(glbPath, std::ios::binary).write(reinterpret_cast<const char*>(glb->data()), static_cast<std::streamsize>(glb->size()));
  const test::BlenderRun run = test::inspectWithBlender(glbPath, dir + "/slugger.json");
  ASSERT_TRUE(run.ok) << run.output;
  ASSERT_EQ(run.report["meshes"].size(), 1u);
  const auto& mesh = run.report["meshes"][0];
  const Mesh& source = rig.meshes[0];
  ASSERT_EQ(mesh["vertexCount"], source.vertexCount());
  for (size_t bv = 0; bv < source.vertexCount(); ++bv) {
    const auto& p = mesh["positions"][bv];
    const glm::vec3 gltf(p[0].get<float>(), p[2].get<float>(), -p[1].get<float>());  // Blender is Z up
    size_t v = source.vertexCount();
    for (size_t i = 0; i < source.vertexCount(); ++i)
      if (glm::distance(source.positions[i], gltf) < 1e-4f) v = i;
    ASSERT_LT(v, source.vertexCount()) << "Blender vertex " << bv;
    const auto want = weightsOf(source, v);
    const auto& got = mesh["weights"][bv];
    EXPECT_EQ(got.size(), want.size()) << "vertex " << v << ": " << got.dump();
    for (const auto& [bone, w] : want) {
      const std::string name = rig.skeleton.bones[bone].name;
      ASSERT_TRUE(got.contains(name)) << "vertex " << v << " lacks group " << name << ": " << got.dump();
      EXPECT_NEAR(got[name].get<double>(), w, 1e-4) << "vertex " << v << " group " << name;
    }
  }
}

// Where a written block's submesh m lies (§3): its layout, and its display states' first primitive
// list (file offsets).
struct SubmeshView {
  size_t layout = 0, firstList = 0;
};
SubmeshView submesh(const std::vector<uint8_t>& b, size_t m) {
  SubmeshView v;
  const size_t gpl = be32(b, 0x04);
  v.layout = gpl + be32(b, gpl + be32(b, gpl + 0x10) + m * 8);
  const size_t display = v.layout + be32(b, v.layout + 0x10);
  const size_t states = v.layout + be32(b, display + 4);
  for (size_t s = 0; s < be16(b, display + 8) && v.firstList == 0; ++s) {
    const uint32_t list = be32(b, states + s * 16 + 8);
    if (list != 0) v.firstList = v.layout + list;
  }
  return v;
}

// `info` reads a model block mesh by mesh (ReadOptions::meshBuilt): each submesh decoded just
// before its mesh is built and its file bytes given back before the mesh is handed over (the last
// one's with the GPL section's), the ACT's and SKN's once decoded, the SKN's sources (read in again
// by the skin) once the skin is built; each mesh handed over as the ordinary read builds it,
// released before the next is built; in an archive each block's meshes as those of the rig it
// becomes; a damaged block (every byte flipped) ends as the ordinary read does, its error included.
TEST(SluggersModel, AReadMeshByMeshHandsOverTheOrdinaryReadsMeshesAndTheirBytes) {
  const auto read = [](const Source& source, ReadContext& ctx) { return readAsset(source, ctx); };
  Rig rig = skinnedRig();
  rig.meshes.push_back(rigidMesh());
  auto written = writeModel(rig);
  ASSERT_TRUE(written.ok());
  std::vector<std::string> order;
  EXPECT_EQ(test::expectMeshByMeshReadIsTheOrdinaryRead(read, *written, "x.sluggers", "block", &order), 9u);
  EXPECT_EQ(order, (std::vector<std::string>{"bytes", "bytes", "bytes", "bytes", "bytes", "bytes", "mesh 0.0", "bytes", "bytes", "bytes",
                                             "mesh 0.1"}))
      << "ACT, SKN; submesh 0's arrays, its list, all of it, the SKN's, mesh 0; submesh 1's arrays, its list and the GPL "
         "section, mesh 1";
  Rig bat = skeletonRig();
  bat.meshes.push_back(rigidMesh());
  auto other = writeModel(bat);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(test::expectMeshByMeshReadIsTheOrdinaryRead(read, archiveOf({*written, *other}), "x.sluggers", "archive"), 13u);
  std::vector<uint8_t> bytes = *written;
  for (size_t i = 0; i < bytes.size() && !HasFailure(); ++i) {
    bytes[i] ^= 0xFF;
    test::expectMeshByMeshReadIsTheOrdinaryRead(read, bytes, "x.sluggers", fmt::format("flipped at {}", i));
    bytes[i] ^= 0xFF;
  }
}

// The SKN's records are not held (1.8 MB on the benchmark's block): readSkn keeps its checked
// entries, and the records are made from the section's bytes as they are used, the same records,
// in the same order, as readSkn gives where it is asked where each lies (a block's places).
TEST(SluggersModel, SknRecordsAreMadeFromTheSectionNotHeld) {
  auto written = writeModel(skinnedRig());
  ASSERT_TRUE(written.ok());
  const SknView v = skn(*written);
  const std::span<const uint8_t> section = std::span<const uint8_t>(*written).subspan(v.at);
  ByteReader plainReader(section, Endian::Big), placesReader(section, Endian::Big);
  const auto plain = sluggers::readSkn(plainReader);
  std::vector<sluggers::SkinRecordWhere> where;
  const auto placed = sluggers::readSkn(placesReader, &where);
  ASSERT_TRUE(plain.ok() && placed.ok());
  EXPECT_TRUE(plain->records.empty());
  EXPECT_EQ(plain->entries.size(), size_t{v.sk1} + v.sk2 + v.acc);
  ASSERT_EQ(plain->recordCount, placed->records.size());
  ASSERT_EQ(where.size(), placed->records.size());
  size_t k = 0, entries = 0;
  plain->forEachRecord(
      [&](const sluggers::SkinRecord& r) {
        ASSERT_LT(k, where.size());
        const sluggers::SkinRecord& want = placed->records[k];
        EXPECT_EQ(std::tie(r.vertex, r.boneIndex, r.weight, r.source), std::tie(want.vertex, want.boneIndex, want.weight, want.source))
            << "record " << k;
        // Each weight is the byte stored for it (SK1: a full weight, none stored).
        EXPECT_EQ(r.weight, where[k].weightAt == sluggers::kImpliedWeight ? sluggers::kFullWeight : section[where[k].weightAt]) << "record " << k;
        ++k;
      },
      [&](const sluggers::SknEntry&) { ++entries; });
  EXPECT_EQ(k, where.size());
  EXPECT_EQ(entries, plain->entries.size());
}

// The skinned submesh's normal header points into its position array, one vector in (§3): those
// normals are the interleaved ones bit for bit, which the skin takes. Decoded as the skinned
// submesh (GplMeshes::next's `skinned`), `normals` stays empty instead of a second decoded copy
// (0.7 MB on the benchmark's block, held while its skin was built); decoded as any other, they
// are the interleaved normals, and all else is the same either way.
TEST(SluggersModel, TheSkinnedSubmeshsAliasingNormalsAreNotDecodedTwice) {
  auto written = writeModel(skinnedRig());
  ASSERT_TRUE(written.ok());
  const size_t gplAt = be32(*written, 0x04), actAt = be32(*written, 0x08);
  ASSERT_LT(gplAt, actAt) << "the GPL section, then the ACT's";
  const auto decode = [&](bool skinned) {
    auto meshes = sluggers::GplMeshes::open(ByteReader(std::span<const uint8_t>(*written).subspan(gplAt, actAt - gplAt), Endian::Big));
    EXPECT_TRUE(meshes.ok());
    Provenance warnings;
    auto mesh = meshes->next(warnings, nullptr, skinned);
    EXPECT_TRUE(mesh.ok()) << mesh.error().describe();
    return std::move(*mesh);
  };
  const sluggers::GplMesh asSkinned = decode(true), asAny = decode(false);
  ASSERT_TRUE(asAny.normalsAliasPositions);
  ASSERT_EQ(asAny.normals.size(), asAny.positions.size());
  EXPECT_EQ(0, std::memcmp(asAny.normals.data(), asAny.interleavedNormals.data(), asAny.normals.size() * sizeof(glm::vec3)));
  EXPECT_TRUE(asSkinned.normalsAliasPositions);
  EXPECT_TRUE(asSkinned.normals.empty());
  EXPECT_EQ(asSkinned.normalArray.count, asAny.normalArray.count);
  EXPECT_EQ(asSkinned.interleavedNormals, asAny.interleavedNormals);
  EXPECT_EQ(asSkinned.positions, asAny.positions);
  EXPECT_EQ(asSkinned.uvs, asAny.uvs);
  EXPECT_EQ(asSkinned.cornerPosition, asAny.cornerPosition);
}

// What a read holds of the file at once (issue 30): the skinned submesh's arrays' bytes go back
// before its lists are decoded and each list's once it is, and the SKN section goes back again and
// again as the skin is built from it (every 16,384 vertices its two passes go through), not only
// after.
TEST(SluggersModel, TheFilesBytesGoBackAsTheSkinnedMeshIsBuilt) {
  Rig rig = skeletonRig();
  Mesh mesh;
  mesh.name = "body";
  mesh.influenceOffsets.push_back(0);
  constexpr uint32_t kVertices = 40000;
  for (uint32_t v = 0; v < kVertices; ++v) {
    const float t = static_cast<float>(v) * 0.001f;
    mesh.positions.emplace_back(std::cos(t), std::sin(t), t);
    mesh.normals.emplace_back(std::cos(t), std::sin(t), 0.0f);
    mesh.uvs.emplace_back(t, 0.5f);
    mesh.influences.push_back({1 + v / 100 % 4, 1.0f});
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
  for (uint32_t v = 0; v + 2 < kVertices; ++v) mesh.indices.insert(mesh.indices.end(), {v, v + 1, v + 2});
  rig.meshes.push_back(mesh);
  auto written = writeModel(rig);
  ASSERT_TRUE(written.ok());
  const auto source = Source::fromBytes(*written, "x.sluggers");
  const uint8_t* const file = source->bytes().data();
  const size_t sknAt = be32(*written, 0x10), gplAt = be32(*written, 0x04);
  struct Release {
    size_t from = 0, size = 0;
  };
  std::vector<Release> released;
  size_t beforeMesh = 0;
  ReadOptions options;
  options.meshBuilt = [&](Rig&, size_t, size_t) -> Status {
    beforeMesh = released.size();
    return Ok{};
  };
  ReadContext ctx(options);
  ctx.releaseBytes = [&](std::span<const uint8_t> bytes) { released.push_back({static_cast<size_t>(bytes.data() - file), bytes.size()}); };
  const auto read = readAsset(*source, ctx);
  ASSERT_TRUE(read.ok()) << read.error().describe();
  // ACT, SKN; the submesh's arrays, its one list, then all of the submesh (its section, the last).
  ASSERT_GE(released.size(), 5u);
  EXPECT_EQ(released[1].from, sknAt);
  const Release arrays = released[2], list = released[3], submesh = released[4];
  EXPECT_EQ(submesh.from, gplAt);
  EXPECT_GE(arrays.from, gplAt);
  EXPECT_LE(arrays.from + arrays.size, list.from) << "the arrays go back before the list they precede";
  EXPECT_GE(arrays.size, kVertices * 12) << "the positions (with their normals), the uvs";
  EXPECT_GE(list.size, (kVertices - 2) * 3) << "a corner's indices";
  // Then the SKN section again and again while the skin is built, and once after.
  size_t skn = 0;
  for (size_t i = 5; i < beforeMesh; ++i) skn += released[i].from == sknAt && released[i].size == written->size() - sknAt;
  EXPECT_EQ(skn, beforeMesh - 5);
  EXPECT_GE(skn, 1 + 2 * kVertices / (16384 + 100))
      << "every 16,384 vertices or a few more (an entry's, 100 here) of two passes over them, and once after";
}

// The submeshes are decoded as their meshes are built, after the other sections, yet the read says
// what it says when they are decoded first: the GPL's warnings before the ACT's, and a damaged
// submesh's error rather than a later section's, or an error meshBuilt returns for an earlier mesh.
TEST(SluggersModel, ASubmeshsErrorAndWarningsComeBeforeTheLaterSections) {
  Rig rig = skinnedRig();
  rig.meshes.push_back(rigidMesh());
  auto written = writeModel(rig);
  ASSERT_TRUE(written.ok());
  const size_t act = be32(*written, 0x08);

  std::vector<uint8_t> warns = *written;
  warns[submesh(warns, 1).firstList] = 0xA8;                  // lines: skipped, with a warning
  warns[act + be32(warns, act + 0x20 + 4 * 0x1C)] = 0x0B;  // an Euler control (§4), with a warning
  const Rig back = readBack(warns);
  ASSERT_EQ(back.provenance.warnings.size(), 2u);
  EXPECT_EQ(back.provenance.warnings[0].code, "gx-lines-points");
  EXPECT_EQ(back.provenance.warnings[1].code, "sluggers-euler-control");

  std::vector<uint8_t> damaged = *written;
  put32(damaged, submesh(damaged, 1).layout + 0x10, 0xFFFFFF00);  // submesh 1's display header pointer
  ReadContext plain;
  const auto gplError = readModel(damaged, plain);
  ASSERT_FALSE(gplError.ok());
  EXPECT_NE(gplError.error().describe().find("GPL/mesh[1]/displayHeader"), std::string::npos) << gplError.error().describe();
  put32(damaged, act, 0);  // the ACT's magic
  ReadContext actToo;
  const auto both = readModel(damaged, actToo);
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().describe(), gplError.error().describe());
  ReadOptions refusing;
  refusing.meshBuilt = [](Rig&, size_t, size_t) -> Status { return makeError(ErrorCode::BadValue, "refused"); };
  put32(damaged, act, be32(*written, act));
  ReadContext byMesh(refusing);
  const auto refused = readModel(damaged, byMesh);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().describe(), gplError.error().describe());
  put32(damaged, submesh(damaged, 0).layout + 0x10, 0xFFFFFF00);  // and submesh 0's: the first error wins
  ReadContext first;
  const auto firstError = readModel(damaged, first);
  ASSERT_FALSE(firstError.ok());
  EXPECT_NE(firstError.error().describe().find("GPL/mesh[0]/displayHeader"), std::string::npos) << firstError.error().describe();
}

}  // namespace
}  // namespace rigport
