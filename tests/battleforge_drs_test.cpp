// BattleForge DRS reader checked against the ground truth in tests/data/samples/battleforge (SOURCES.md):
// expected_oracle_parse.json (the SR-ImpEx-for-Blender reader's parse) and expected_derived_gltf.json
// (local T/R, inverse bind matrices and per-submesh weights derived with battleforge_drs.md §4, §8).
// Tolerance: 1e-5 absolute; the ground truth prints 6 decimals.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <fstream>
#include <map>

#include "core/fit.hpp"
#include "formats/battleforge/axes.hpp"
#include "formats/battleforge/container.hpp"
#include "formats/battleforge/influences.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "formats/registry.hpp"
#include "support/mesh_compare.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using namespace rigport::battleforge;
using nlohmann::json;

namespace {

constexpr float kTol = 1e-5f;
const char* kDrs = "synthetic_skinned_3bones_2meshes.drs";

std::vector<uint8_t> sampleBytes(const std::string& name) { return test::readBytes(test::sample("battleforge/" + name)); }

json sampleJson(const std::string& name) {
  std::ifstream in(test::sample("battleforge/" + name));
  return json::parse(in);
}

Rig readSample() {
  auto r = readDrs(sampleBytes(kDrs));
  EXPECT_TRUE(r.ok()) << (r ? "" : r.error().describe());
  return r ? *r : Rig{};
}

bool hasWarning(const Provenance& p, const std::string& code, const std::string& text = "") {
  for (const Warning& w : p.warnings)
    if (w.code == code && w.message.find(text) != std::string::npos) return true;
  return false;
}

// The rig bone whose DRS identifier is `id` (the extras keep it).
const Bone* boneById(const Rig& rig, int id) {
  for (const Bone& b : rig.skeleton.bones)
    if (b.extras["battleforge"]["identifier"].get<int>() == id) return &b;
  return nullptr;
}

}  // namespace

TEST(BattleforgeDrs, ContainerBlocksMatchOracle) {
  const std::vector<uint8_t> bytes = sampleBytes(kDrs);
  ByteReader root(bytes);
  Provenance p;
  auto blocks = readBlocks(root, &p);
  ASSERT_TRUE(blocks.ok()) << blocks.error().describe();
  const json oracle = sampleJson("expected_oracle_parse.json")[kDrs];
  ASSERT_EQ(blocks->size() + 1, oracle["node_count"].get<size_t>());
  // The oracle lists nodes in hierarchy order; the table order differs (info_index).
  for (const json& node : oracle["nodes"]) {
    const DrsBlock& b = (*blocks)[node["info_index"].get<size_t>() - 1];
    EXPECT_EQ(b.name, node["name"].get<std::string>());
    EXPECT_EQ(b.magic, node["magic"].get<int32_t>());
    EXPECT_EQ(b.identifier, node["identifier"].get<int32_t>());
    EXPECT_EQ(b.offset, node["offset"].get<uint32_t>());
    EXPECT_EQ(b.size, node["size"].get<uint32_t>());
  }
  EXPECT_TRUE(p.warnings.empty());
}

TEST(BattleforgeDrs, SkeletonMatchesDerivedGroundTruth) {
  const Rig rig = readSample();
  const json truth = sampleJson("expected_derived_gltf.json")["joints_in_identifier_order"];
  ASSERT_EQ(rig.skeleton.bones.size(), truth.size());
  for (const json& j : truth) {
    const int id = j["identifier"].get<int>();
    const Bone* b = boneById(rig, id);
    ASSERT_NE(b, nullptr) << id;
    const std::string name = j["name"].get<std::string>();
    EXPECT_EQ(b->name, name);
    ASSERT_TRUE(b->id.has_value());
    EXPECT_EQ(*b->id, j["ska_bone_id(version)"].get<uint32_t>()) << name;
    const int parent = j["parent"].get<int>();
    if (parent < 0) {
      EXPECT_EQ(b->parent, -1) << name;
    } else {
      ASSERT_GE(b->parent, 0) << name;
      EXPECT_EQ(rig.skeleton.bones[b->parent].extras["battleforge"]["identifier"].get<int>(), parent) << name;
    }
    for (int k = 0; k < 4; ++k) EXPECT_EQ(b->extras["battleforge"]["boneVertexParents"][k], j["bv_parents"][k]) << name;
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(b->translation[k], j["local_translation"][k].get<float>(), kTol) << name;
    const json& q = j["local_rotation_xyzw"];
    const glm::quat expected(q[3].get<float>(), q[0].get<float>(), q[1].get<float>(), q[2].get<float>());
    EXPECT_NEAR(std::fabs(glm::dot(b->rotation, expected)), 1.0f, kTol) << name;
    ASSERT_TRUE(b->inverseBind.has_value());
    for (int k = 0; k < 16; ++k) {
      EXPECT_NEAR((*b->inverseBind)[k / 4][k % 4], j["inverse_bind_matrix_colmajor"][k].get<float>(), kTol) << name << " m" << k;
    }
  }
  // The inverse bind matrices agree with the hierarchy of local poses they came with.
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  for (size_t i = 0; i < world.size(); ++i) {
    const glm::mat4 m = world[i] * *rig.skeleton.bones[i].inverseBind;
    for (int k = 0; k < 16; ++k) EXPECT_NEAR(m[k / 4][k % 4], k / 4 == k % 4 ? 1.0f : 0.0f, kTol) << rig.skeleton.bones[i].name;
  }
}

TEST(BattleforgeDrs, WorldPoseMatchesOracleRowsAndOrigin) {
  const Rig rig = readSample();
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  for (const json& b : sampleJson("expected_oracle_parse.json")[kDrs]["skeleton"]) {
    const int i = rig.skeleton.find(b["name"].get<std::string>());
    ASSERT_GE(i, 0);
    EXPECT_EQ(rig.skeleton.bones[i].extras["battleforge"]["boneListPosition"].get<int>(), b["list_pos"].get<int>());
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(world[i][c][r], b["world_R_rows"][r][c].get<float>(), kTol) << b["name"];
      EXPECT_NEAR(world[i][3][r], b["world_t"][r].get<float>(), kTol) << b["name"];
    }
  }
}

TEST(BattleforgeDrs, SuperParentIsKeptInSkinExtras) {
  const Rig rig = readSample();
  const json expected = sampleJson("expected_oracle_parse.json")[kDrs]["super_parent"];
  ASSERT_TRUE(rig.skeleton.extras.contains("battleforge"));
  EXPECT_EQ(rig.skeleton.extras["battleforge"]["superParent"], expected);
  EXPECT_FALSE(hasWarning(rig.provenance, "super-parent"));  // identity: nothing to report
}

TEST(BattleforgeDrs, SubmeshWeightsMatchJointMapGroundTruth) {
  const Rig rig = readSample();
  const json truth = sampleJson("expected_derived_gltf.json")["submesh_skinning_from_rev12"];
  ASSERT_EQ(rig.meshes.size(), truth.size());
  for (size_t m = 0; m < truth.size(); ++m) {
    const Mesh& mesh = rig.meshes[m];
    ASSERT_TRUE(mesh.skinned());
    ASSERT_EQ(mesh.vertexCount(), truth[m].size());
    for (size_t v = 0; v < truth[m].size(); ++v) {
      std::vector<std::pair<int, float>> expected;
      for (int k = 0; k < 4; ++k) {
        const float w = truth[m][v]["weights"][k].get<float>();
        if (w > 0.0f) expected.emplace_back(truth[m][v]["joints_global"][k].get<int>(), w);
      }
      const uint32_t begin = mesh.influenceOffsets[v], end = mesh.influenceOffsets[v + 1];
      ASSERT_EQ(end - begin, expected.size()) << "mesh " << m << " vertex " << v;
      for (size_t k = 0; k < expected.size(); ++k) {
        const Influence& inf = mesh.influences[begin + k];
        EXPECT_EQ(rig.skeleton.bones[inf.bone].extras["battleforge"]["identifier"].get<int>(), expected[k].first) << m << "/" << v;
        EXPECT_NEAR(inf.weight, expected[k].second, kTol) << m << "/" << v;
      }
    }
  }
}

TEST(BattleforgeDrs, MeshStreamsMatchOracle) {
  const Rig rig = readSample();
  const json meshes = sampleJson("expected_oracle_parse.json")[kDrs]["meshes"];
  ASSERT_EQ(rig.meshes.size(), meshes.size());
  for (size_t m = 0; m < meshes.size(); ++m) {
    const json& s = meshes[m]["streams"][0];
    const Mesh& mesh = rig.meshes[m];
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
      for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(mesh.positions[v][k], s["pos"][v][k].get<float>());
        EXPECT_EQ(mesh.normals[v][k], s["normal"][v][k].get<float>());
      }
      for (int k = 0; k < 2; ++k) EXPECT_EQ(mesh.uvs[v][k], s["uv"][v][k].get<float>());
    }
    std::vector<uint32_t> faces;
    for (const json& f : meshes[m]["faces"])
      for (const json& i : f) faces.push_back(i.get<uint32_t>());
    EXPECT_EQ(mesh.indices, faces);
    ASSERT_EQ(mesh.parts.size(), 1u);
    EXPECT_EQ(rig.materials[mesh.parts[0].material].textures, meshes[m]["textures"].get<std::vector<std::string>>());
  }
  EXPECT_EQ(rig.provenance.axes, kBattleForgeAxes);
}

TEST(BattleforgeDrs, SkinInfoDisagreementIsWarnedByPosition) {
  // Vertex B is shared by both submeshes with different weights; CSkSkinInfo can hold only one.
  const Rig rig = readSample();
  EXPECT_TRUE(hasWarning(rig.provenance, "skin-mismatch", "1 vertices")) << (rig.provenance.warnings.empty() ? "" : rig.provenance.warnings[0].message);
  EXPECT_TRUE(hasWarning(rig.provenance, "skin-mismatch", "BattleforgeMesh 1 vertex 0"));
  EXPECT_EQ(rig.provenance.warnings.size(), 1u);
}

TEST(BattleforgeDrs, ProbeAcceptsDrsOnly) {
  EXPECT_TRUE(probeDrs(sampleBytes(kDrs)));
  EXPECT_FALSE(probeDrs(sampleBytes("synthetic_type7_spine.ska")));
}

// ---- writer: round trips, then each validation rule broken in a written file -------------------

namespace {

Rig readBack(const std::vector<uint8_t>& bytes) {
  auto r = readDrs(bytes);
  EXPECT_TRUE(r.ok()) << (r ? "" : r.error().describe());
  return r ? *r : Rig{};
}

// A vertex's influences by bone (the writer orders them largest first), weights in 1/255 steps.
std::map<uint32_t, long> byBone(const Mesh& mesh, size_t v) {
  std::map<uint32_t, long> out;
  for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) {
    out[mesh.influences[i].bone] += std::lround(mesh.influences[i].weight * 255.0f);
  }
  return out;
}

void expectSameRig(const Rig& a, const Rig& b, float tol) {
  ASSERT_EQ(a.skeleton.bones.size(), b.skeleton.bones.size());
  for (size_t i = 0; i < a.skeleton.bones.size(); ++i) {
    const Bone& x = a.skeleton.bones[i];
    const Bone& y = b.skeleton.bones[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.parent, y.parent) << x.name;
    EXPECT_EQ(x.id, y.id) << x.name;
    EXPECT_EQ(x.extras, y.extras) << x.name;  // identifier, version, list position, BoneVertex parents
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(x.translation[k], y.translation[k], tol) << x.name;
    EXPECT_NEAR(std::fabs(glm::dot(x.rotation, y.rotation)), 1.0f, std::max(tol, 1e-6f)) << x.name;
    for (int k = 0; k < 16; ++k) EXPECT_NEAR((*x.inverseBind)[k / 4][k % 4], (*y.inverseBind)[k / 4][k % 4], tol) << x.name;
  }
  EXPECT_EQ(a.skeleton.extras, b.skeleton.extras);
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    const Mesh& x = a.meshes[m];
    const Mesh& y = b.meshes[m];
    EXPECT_EQ(x.positions, y.positions);
    EXPECT_EQ(x.normals, y.normals);
    EXPECT_EQ(x.uvs, y.uvs);
    EXPECT_EQ(x.indices, y.indices);
    EXPECT_EQ(x.influenceOffsets, y.influenceOffsets);
    ASSERT_EQ(x.influences.size(), y.influences.size());
    for (size_t v = 0; v + 1 < x.influenceOffsets.size(); ++v) {
      EXPECT_EQ(byBone(x, v), byBone(y, v)) << "mesh " << m << " vertex " << v;
    }
  }
  ASSERT_EQ(a.materials.size(), b.materials.size());
  for (size_t i = 0; i < a.materials.size(); ++i) EXPECT_EQ(a.materials[i].textures, b.materials[i].textures);
}

// Offsets of a written CSkSkeleton's fields, found by walking it (§3 layout).
struct SkeletonFields {
  size_t start = 0, matrixCount = 0, boneCount = 0;
  std::vector<size_t> bone, identifier, nameLen, name, children;
  size_t matrix(size_t id) const { return start + 12 + 64 * id; }
};

uint32_t le32(const std::vector<uint8_t>& b, size_t at) { return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | uint32_t{b[at + 3]} << 24; }
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

SkeletonFields skeletonFields(const std::vector<uint8_t>& bytes) {
  ByteReader root(bytes);
  auto blocks = readBlocks(root, nullptr);
  EXPECT_TRUE(blocks.ok());
  SkeletonFields f;
  f.start = findBlock(*blocks, kCSkSkeleton)->offset;
  f.matrixCount = f.start + 8;
  const uint32_t n = le32(bytes, f.matrixCount);
  f.boneCount = f.start + 12 + 64 * n;
  size_t at = f.boneCount + 4;
  for (uint32_t i = 0; i < n; ++i) {
    f.bone.push_back(at);
    f.identifier.push_back(at + 4);
    f.nameLen.push_back(at + 8);
    f.name.push_back(at + 12);
    at += 12 + le32(bytes, at + 8);
    f.children.push_back(at + 4);
    at += 4 + 4 * le32(bytes, at);
  }
  return f;
}

// Three bones with names of one length (so a name can be overwritten in place) and versions that
// put the Bone list in another order than the identifiers: root(300) -> spine(100) -> headd(200).
Rig threeBoneRig() {
  Rig rig;
  rig.provenance.axes = kBattleForgeAxes;
  const char* names[] = {"rootb", "spine", "headd"};
  const uint32_t versions[] = {300, 100, 200};
  for (int i = 0; i < 3; ++i) {
    Bone b;
    b.name = names[i];
    b.parent = i - 1;
    b.id = versions[i];
    b.translation = {0.0f, i == 0 ? 0.0f : 1.0f, 0.0f};
    b.rotation = glm::angleAxis(0.3f * static_cast<float>(i), glm::vec3(0, 0, 1));
    rig.skeleton.bones.push_back(b);
  }
  Mesh mesh;
  mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 2, 0}};
  mesh.indices = {0, 1, 2};
  mesh.influenceOffsets = {0, 1, 3, 4};
  mesh.influences = {{0, 1.0f}, {0, 0.25f}, {1, 0.75f}, {2, 1.0f}};
  rig.meshes.push_back(mesh);
  return rig;
}

std::vector<uint8_t> writtenThreeBones() {
  auto w = writeDrs(threeBoneRig());
  EXPECT_TRUE(w.ok()) << (w ? "" : w.error().describe());
  return w ? *w : std::vector<uint8_t>{};
}

void expectSkeletonError(const std::vector<uint8_t>& bytes, ErrorCode code, const std::string& text, const std::string& path) {
  auto r = readDrs(bytes);
  ASSERT_FALSE(r.ok()) << "accepted; wanted: " << text;
  const std::string described = r.error().describe();
  EXPECT_EQ(r.error().code, code) << described;
  EXPECT_NE(described.find(text), std::string::npos) << described;
  EXPECT_NE(r.error().path.find(path), std::string::npos) << described;
  EXPECT_TRUE(r.error().offset.has_value()) << described;
}

}  // namespace

TEST(BattleforgeDrsWrite, RoundTripOfSampleReproducesModel) {
  const Rig rig = readSample();
  auto bytes = writeDrs(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  const Rig back = readBack(*bytes);
  expectSameRig(rig, back, 1e-6f);
  // CSkSkinInfo is written from each position's first use, as the sample's is: the same disagreement.
  EXPECT_TRUE(hasWarning(back.provenance, "skin-mismatch", "BattleforgeMesh 1 vertex 0"));
  // Written again: the same layout (BoneMatrix floats may move by an ulp through the quaternion).
  auto again = writeDrs(back);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->size(), bytes->size());
  expectSameRig(back, readBack(*again), 1e-6f);
}

TEST(BattleforgeDrsWrite, RoundTripOfConstructedRigInGltfAxes) {
  Rig rig = threeBoneRig();
  toGltfAxes(rig);
  auto bytes = writeDrs(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  Rig back = readBack(*bytes);
  EXPECT_TRUE(back.provenance.warnings.empty()) << back.provenance.warnings[0].message;
  toGltfAxes(back);
  ASSERT_EQ(back.skeleton.bones.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const Bone& x = rig.skeleton.bones[i];
    const Bone& y = back.skeleton.bones[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.parent, y.parent);
    EXPECT_EQ(x.id, y.id);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(x.translation[k], y.translation[k], 1e-5f);
    EXPECT_NEAR(std::fabs(glm::dot(x.rotation, y.rotation)), 1.0f, 1e-5f);
  }
  // Mirrored twice: positions and winding come back as they were; weights within one 8-bit step.
  EXPECT_EQ(back.meshes[0].indices, rig.meshes[0].indices);
  for (size_t v = 0; v < 3; ++v)
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(back.meshes[0].positions[v][k], rig.meshes[0].positions[v][k], 1e-6f);
  for (size_t v = 0; v < 3; ++v) EXPECT_EQ(byBone(back.meshes[0], v), byBone(rig.meshes[0], v)) << "vertex " << v;
}

TEST(BattleforgeDrsWrite, TriangleWindingFlipsWithTheMirror) {
  Rig rig = threeBoneRig();
  const std::vector<uint32_t> before = rig.meshes[0].indices;
  toGltfAxes(rig);
  EXPECT_EQ(rig.meshes[0].indices, (std::vector<uint32_t>{before[0], before[2], before[1]}));
  EXPECT_EQ(rig.meshes[0].positions[2], glm::vec3(0, 2, 0));
  EXPECT_EQ(rig.meshes[0].positions[1], glm::vec3(1, 0, 0));
}

// Blender names its armature object after the root bone it imported, so its exports hold two bones
// of one name (the armature node, no joint, and the root joint). DRS names are unique: the fit
// renames the one that is no joint, names the rename, and the writer takes the rig.
TEST(BattleforgeDrsWrite, RepeatedBoneNameIsRenamedNotRefused) {
  Rig rig = threeBoneRig();
  Bone socket = rig.skeleton.bones[0];
  socket.parent = 2;
  socket.id.reset();
  rig.skeleton.bones.push_back(socket);
  rig.skeleton.joints = {0, 1, 2};
  ASSERT_FALSE(writeDrs(rig).ok());
  const FormatInfo* drs = findFormat("battleforge-drs");
  ASSERT_NE(drs, nullptr);
  ASSERT_TRUE(fitToLimits(rig, drs->limits, drs->name).ok());
  EXPECT_EQ(rig.skeleton.bones[0].name, "rootb");
  EXPECT_EQ(rig.skeleton.bones[3].name, "rootb_2");
  EXPECT_TRUE(hasWarning(rig.provenance, "names-unique", "'rootb' (no joint) as 'rootb_2'"));
  auto bytes = writeDrs(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  EXPECT_EQ(readBack(*bytes).skeleton.bones.size(), 4u);
}

TEST(BattleforgeDrsRules, WrittenSkeletonIsValid) {
  const Rig back = readBack(writtenThreeBones());
  ASSERT_EQ(back.skeleton.bones.size(), 3u);
  // Bone list sorted by version: spine(100), headd(200), rootb(300).
  EXPECT_EQ(back.skeleton.bones[0].extras["battleforge"]["boneListPosition"], 2);
  EXPECT_EQ(back.skeleton.bones[1].extras["battleforge"]["boneListPosition"], 0);
}

TEST(BattleforgeDrsRules, Magic) {
  std::vector<uint8_t> b = writtenThreeBones();
  put32(b, skeletonFields(b).start, 1234);
  expectSkeletonError(b, ErrorCode::BadValue, "CSkSkeleton magic 1234, expected 1558308612", "CSkSkeleton/magic");
}

TEST(BattleforgeDrsRules, VersionThree) {
  std::vector<uint8_t> b = writtenThreeBones();
  put32(b, skeletonFields(b).start + 4, 4);
  expectSkeletonError(b, ErrorCode::Unsupported, "CSkSkeleton version 4", "CSkSkeleton/version");
}

TEST(BattleforgeDrsRules, MatrixCountEqualsBoneCount) {
  std::vector<uint8_t> b = writtenThreeBones();
  put32(b, skeletonFields(b).boneCount, 4);
  expectSkeletonError(b, ErrorCode::BadValue, "bone_count 4 but bone_matrix_count 3", "CSkSkeleton/bone_count");
}

TEST(BattleforgeDrsRules, BoneCountEqualsBonesListed) {
  // The block ends inside the last Bone: fewer bones than bone_count.
  std::vector<uint8_t> b = writtenThreeBones();
  const SkeletonFields f = skeletonFields(b);
  ByteReader root(b);
  auto blocks = readBlocks(root, nullptr);
  const DrsBlock* s = findBlock(*blocks, kCSkSkeleton);
  const size_t record = static_cast<size_t>(s - blocks->data()) + 1;
  const size_t infoOffset = le32(b, 8);
  put32(b, infoOffset + 32 * record + 12, static_cast<uint32_t>(f.bone[2] + 6 - f.start));
  expectSkeletonError(b, ErrorCode::Truncated, "needs 4 bytes", "CSkSkeleton/bones[2]");
}

TEST(BattleforgeDrsRules, IdentifiersSequential) {
  std::vector<uint8_t> b = writtenThreeBones();
  put32(b, skeletonFields(b).identifier[1], 7);
  expectSkeletonError(b, ErrorCode::BadValue, "bone 'headd' (identifier 7, Bone list position 1): identifier outside 0..2", "CSkSkeleton/bones[1]");
}

TEST(BattleforgeDrsRules, IdentifiersUnique) {
  std::vector<uint8_t> b = writtenThreeBones();
  const SkeletonFields f = skeletonFields(b);
  put32(b, f.identifier[1], le32(b, f.identifier[0]));
  expectSkeletonError(b, ErrorCode::BadValue, "identifier 1 is also bone 'spine' (identifier 1, Bone list position 0)'s (identifiers must be unique)",
                      "CSkSkeleton/bones[1]");
}

TEST(BattleforgeDrsRules, ChildrenAreBones) {
  std::vector<uint8_t> b = writtenThreeBones();
  put32(b, skeletonFields(b).children[0], 9);  // spine's child
  expectSkeletonError(b, ErrorCode::BadValue, "bone 'spine' (identifier 1, Bone list position 0): child 9 is not the identifier of another bone",
                      "CSkSkeleton/bones[0]");
}

TEST(BattleforgeDrsRules, ChildrenFormNoLoop) {
  std::vector<uint8_t> b = writtenThreeBones();
  put32(b, skeletonFields(b).children[0], 0);  // spine's child becomes the root, whose child is spine
  expectSkeletonError(b, ErrorCode::BadValue, "its children links form a loop", "CSkSkeleton/bones[");
}

TEST(BattleforgeDrsRules, ParentVertexNamesABone) {
  std::vector<uint8_t> b = writtenThreeBones();
  put32(b, skeletonFields(b).matrix(2) + 12, 5);
  expectSkeletonError(b, ErrorCode::BadValue, "bone 'headd' (identifier 2, Bone list position 1): BoneVertex[0].parent 5 is neither -1 nor",
                      "CSkSkeleton/bone_matrices[2]");
}

TEST(BattleforgeDrsRules, SecondVertexIsTheBoneListPosition) {
  std::vector<uint8_t> b = writtenThreeBones();
  put32(b, skeletonFields(b).matrix(0) + 16 + 12, 0);  // the root is at list position 2
  expectSkeletonError(b, ErrorCode::BadValue, "bone 'rootb' (identifier 0, Bone list position 2): BoneVertex[1].parent 0 is not the bone's Bone list position 2",
                      "CSkSkeleton/bone_matrices[0]");
}

TEST(BattleforgeDrsRules, NamesUnique) {
  std::vector<uint8_t> b = writtenThreeBones();
  const SkeletonFields f = skeletonFields(b);
  std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(f.name[0]), 5, b.begin() + static_cast<std::ptrdiff_t>(f.name[2]));
  expectSkeletonError(b, ErrorCode::BadValue, "bone 'spine' (identifier 0, Bone list position 2): name also used by bone 'spine' (identifier 1",
                      "CSkSkeleton/bones[2]");
}

TEST(BattleforgeDrsRules, NamesAtMost63Characters) {
  std::vector<uint8_t> b = writtenThreeBones();
  put32(b, skeletonFields(b).nameLen[1], 64);
  expectSkeletonError(b, ErrorCode::BadValue, "bone with identifier 2: name of 64 characters (at most 63)", "CSkSkeleton/bones[1]/name_len");
}

TEST(BattleforgeDrsRules, WriterRefusesWhatTheReaderWould) {
  Rig rig = threeBoneRig();
  rig.skeleton.bones[2].name = std::string(64, 'x');
  auto w = writeDrs(rig);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("at most 63"), std::string::npos);
  rig.skeleton.bones[2].name = "spine";
  w = writeDrs(rig);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("twice"), std::string::npos);
}

// ---- hostile input ---------------------------------------------------------------------------

TEST(BattleforgeDrs, EveryTruncationAndByteFlipFailsCleanly) {
  size_t runs = 0, failures = 0;
  for (const std::vector<uint8_t>& original : {sampleBytes(kDrs), writtenThreeBones()}) {
    for (size_t len = 0; len < original.size(); ++len) {
      auto r = readDrs(std::span(original.data(), len));
      ++runs;
      // The NodeInformation table and hierarchy end the file; any prefix loses part of the table or
      // only the redundant hierarchy (a warning).
      if (!r) {
        ++failures;
        EXPECT_TRUE(r.error().offset.has_value()) << "truncated at " << len << ": " << r.error().describe();
      } else {
        EXPECT_TRUE(hasWarning(r->provenance, "node-hierarchy")) << "truncated at " << len;
      }
    }
    std::vector<uint8_t> bytes = original;
    for (size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] ^= 0xFF;
      auto r = readDrs(bytes);
      ++runs;
      failures += r.ok() ? 0 : 1;
      if (!r) EXPECT_TRUE(r.error().offset.has_value()) << "flipped at " << i << ": " << r.error().describe();
      bytes[i] ^= 0xFF;
    }
  }
  EXPECT_GT(failures, 0u);
  RecordProperty("runs", static_cast<int>(runs));
}

TEST(BattleforgeDrs, UnknownBlockIsSkippedAndListed) {
  // Re-label the CGeoMesh record with another class's magic (CGeoOBBTree): skipped, named in a warning.
  std::vector<uint8_t> b = sampleBytes(kDrs);
  const size_t infoOffset = le32(b, 8);
  for (size_t rec = 1; rec < le32(b, 16); ++rec) {
    if (static_cast<int32_t>(le32(b, infoOffset + 32 * rec)) == kCGeoMesh) put32(b, infoOffset + 32 * rec, static_cast<uint32_t>(-933519637));
  }
  auto r = readDrs(b);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(hasWarning(r->provenance, "unknown-block", "CGeoMesh (magic -933519637) at 0x14, 88 bytes"));
  EXPECT_EQ(r->meshes.size(), 2u);
}

TEST(BattleforgeDrs, WithoutMeshFileTheCGeoMeshIsSkinnedByCSkSkinInfo) {
  // Hide the CDspMeshFile (re-label it): the selection mesh and its parallel CSkSkinInfo remain.
  std::vector<uint8_t> b = writtenThreeBones();
  const size_t infoOffset = le32(b, 8);
  for (size_t rec = 1; rec < le32(b, 16); ++rec) {
    if (static_cast<int32_t>(le32(b, infoOffset + 32 * rec)) == kCDspMeshFile) put32(b, infoOffset + 32 * rec, 12345);
  }
  auto r = readDrs(b);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(hasWarning(r->provenance, "unknown-block", "CDspMeshFile (magic 12345)"));
  ASSERT_EQ(r->meshes.size(), 1u);
  const Rig source = threeBoneRig();
  EXPECT_EQ(r->meshes[0].name, "CGeoMesh");
  EXPECT_EQ(r->meshes[0].positions, source.meshes[0].positions);
  EXPECT_EQ(r->meshes[0].indices, source.meshes[0].indices);
  for (size_t v = 0; v < 3; ++v) EXPECT_EQ(byBone(r->meshes[0], v), byBone(source.meshes[0], v)) << "vertex " << v;
}

TEST(BattleforgeDrs, SuperParentThatIsNotIdentityIsKeptAndReported) {
  std::vector<uint8_t> b = writtenThreeBones();
  const SkeletonFields f = skeletonFields(b);
  // super_parent follows the last Bone's children (child_count just before them).
  const size_t superParent = f.children[2] + 4 * le32(b, f.children[2] - 4);
  put32(b, superParent + 4 * 12, std::bit_cast<uint32_t>(2.5f));  // a translation x
  auto r = readDrs(b);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(hasWarning(r->provenance, "super-parent", "not applied"));
  EXPECT_EQ(r->skeleton.extras["battleforge"]["superParent"][12].get<float>(), 2.5f);
}

// sameInfluences' pairwise shortcut against the rule it stands for (both lists merged first): every
// list of up to 4 influences over 3 bones (repeats included) against every list of as many, with
// the weights in their order, reversed or rotated, one of them moved by about one 8-bit step.
TEST(BattleforgeDrs, SameInfluencesMatchesTheMergedRule) {
  std::vector<Influences4> lists;
  for (uint32_t n = 0; n <= 4; ++n) {
    uint32_t combos = 1;
    for (uint32_t k = 0; k < n; ++k) combos *= 3;
    for (uint32_t c = 0; c < combos; ++c) {
      Influences4 v;
      v.n = n;
      for (uint32_t k = 0, rest = c; k < n; ++k, rest /= 3) v.at[k] = {rest % 3, 0.125f * static_cast<float>(k + 1)};
      lists.push_back(v);
    }
  }
  const float steps[] = {0.0f, 1.0f / 255.0f, 1.0f / 255.0f + 2e-5f, -1.0f / 255.0f - 2e-5f};
  size_t alike = 0, checked = 0;
  for (const Influences4& x : lists) {
    for (const Influences4& z : lists) {
      if (z.n != x.n) continue;
      for (uint32_t order = 0; order < 3; ++order) {
        for (float step : steps) {
          for (uint32_t nudged = 0; nudged < std::max(x.n, 1u); ++nudged) {
            Influences4 y = z;
            for (uint32_t k = 0; k < y.n; ++k) {
              const uint32_t from = order == 0 ? k : order == 1 ? y.n - 1 - k : (k + 1) % y.n;
              y.at[k].weight = x.at[from].weight + (k == nudged ? step : 0.0f);
            }
            const bool rule = sameMergedInfluences(x, y);
            ASSERT_EQ(sameInfluences(x, y), rule) << "n " << x.n << " order " << order << " step " << step;
            alike += rule ? 1 : 0;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(alike, 100u);  // both answers occur
  EXPECT_LT(alike, checked);
}

// `info` reads a DRS mesh by mesh (ReadOptions::meshBuilt): each mesh handed over as the ordinary
// read builds it, released before the next is built, with each block's file bytes given back once
// decoded; a damaged file (every byte of the sample flipped, every truncation) ends as the ordinary
// read does, its error included.
TEST(BattleforgeDrs, AReadMeshByMeshHandsOverTheOrdinaryReadsMeshesAndTheirBytes) {
  const auto read = [](const Source& source, ReadContext& ctx) { return readAsset(source, ctx); };
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skinned_3bones_2meshes.drs");
  ASSERT_EQ(readSample().meshes.size(), 2u);
  EXPECT_EQ(test::expectMeshByMeshReadIsTheOrdinaryRead(read, bytes, "x.drs", "sample"), 5u) << "one release per block";
  for (size_t i = 0; i < bytes.size() && !HasFailure(); ++i) {
    bytes[i] ^= 0xFF;
    test::expectMeshByMeshReadIsTheOrdinaryRead(read, bytes, "x.drs", fmt::format("flipped at {}", i));
    bytes[i] ^= 0xFF;
  }
  for (size_t len = 0; len < bytes.size() && !HasFailure(); ++len) {
    const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(len));
    test::expectMeshByMeshReadIsTheOrdinaryRead(read, cut, "x.drs", fmt::format("cut at {}", len));
  }
}
