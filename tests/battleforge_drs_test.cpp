// BattleForge DRS reader checked against the ground truth in tests/data/samples/battleforge (SOURCES.md):
// expected_oracle_parse.json (the SR-ImpEx-for-Blender reader's parse) and expected_derived_gltf.json
// (local T/R, inverse bind matrices and per-submesh weights derived with battleforge_drs.md §4, §8).
// Tolerance: 1e-5 absolute; the ground truth prints 6 decimals.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "formats/battleforge/bf_axes.hpp"
#include "formats/battleforge/container.hpp"
#include "formats/battleforge/drs_io.hpp"
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
