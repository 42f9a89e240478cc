// Blender headless import of an exported rig (format note gltf_ecosystem.md §2.3): one Blender run
// reads the .glb back and tools/blender_inspect.py reports what it built. Checked: bone names and
// parents, every vertex's group weights (within 1e-4: Blender stores them as float and they were
// renormalised in float32), and the keyframe count of each animated bone's fcurves.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>

#include <glm/gtc/quaternion.hpp>

#include "export/gltf.hpp"
#include "support/blender.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

constexpr int kGrid = 6;          // kGrid × kGrid vertices
constexpr size_t kKeys = 7;       // keys per animated channel

// pelvis -> spine -> {head, arm_l, arm_r}, pelvis -> leg: branching, six bones.
Rig proceduralRig() {
  Rig rig;
  rig.name = "Puppet";
  auto bone = [&](const char* name, int32_t parent, glm::vec3 t) {
    Bone b;
    b.name = name;
    b.parent = parent;
    b.translation = t;
    rig.skeleton.bones.push_back(b);
  };
  bone("pelvis", -1, {0, 1, 0});
  bone("spine", 0, {0, 0.4f, 0});
  bone("head", 1, {0, 0.5f, 0});
  bone("arm_l", 1, {0.3f, 0.4f, 0});
  bone("arm_r", 1, {-0.3f, 0.4f, 0});
  bone("leg", 0, {0, -0.5f, 0});
  rig.skeleton.bones[3].rotation = glm::angleAxis(glm::radians(-70.0f), glm::vec3(0, 0, 1));

  Mesh mesh;
  mesh.name = "Body";
  mesh.influenceOffsets.push_back(0);
  for (int y = 0; y < kGrid; ++y) {
    for (int x = 0; x < kGrid; ++x) {
      mesh.positions.push_back({(x - kGrid / 2) * 0.2f, 0.5f + y * 0.3f, 0.05f * static_cast<float>(x % 2)});
      // 1 to 4 influences per vertex, with uneven weights that do not sum to 1.
      const uint32_t count = 1 + static_cast<uint32_t>((x + y) % 4);
      for (uint32_t k = 0; k < count; ++k) {
        mesh.influences.push_back({static_cast<uint32_t>((x + 2 * y + k) % 6), 0.2f + 0.3f * static_cast<float>(k) + 0.01f * static_cast<float>(x)});
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
  rig.meshes.push_back(mesh);

  Animation anim;
  anim.name = "Wave";
  anim.duration = 1.0f;
  BoneTrack arm;
  arm.bone = 3;
  BoneTrack pelvis;
  pelvis.bone = 0;
  for (size_t k = 0; k < kKeys; ++k) {
    const float t = static_cast<float>(k) / static_cast<float>(kKeys - 1);
    arm.rotation.times.push_back(t);
    arm.rotation.values.push_back(glm::angleAxis(glm::radians(-70.0f + 60.0f * std::sin(t * 6.2831853f)), glm::vec3(0, 0, 1)));
    pelvis.translation.times.push_back(t);
    pelvis.translation.values.push_back({0, 1.0f + 0.1f * std::sin(t * 6.2831853f), 0.2f * t});
  }
  anim.tracks = {arm, pelvis};
  rig.animations.push_back(anim);
  return rig;
}

// The exported weights of vertex v by bone name: merged and renormalised (these influences have no
// duplicates, zeros or more than 4 entries, so that is a plain division).
std::map<std::string, double> expectedWeights(const Rig& rig, size_t v) {
  const Mesh& mesh = rig.meshes[0];
  double sum = 0;
  for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) sum += mesh.influences[i].weight;
  std::map<std::string, double> out;
  for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) {
    out[rig.skeleton.bones[mesh.influences[i].bone].name] += mesh.influences[i].weight / sum;
  }
  return out;
}

TEST(BlenderImport, BonesWeightsAndKeyframesSurviveTheRoundTrip) {
  const Rig rig = proceduralRig();
  const std::string dir = test::scratchDir("blender_import");
  const std::string glbPath = dir + "/puppet.glb";
  auto glb = exportGlb(rig);
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  {
    std::ofstream out(glbPath, std::ios::binary);
    out.write(reinterpret_cast<const char*>(glb->data()), static_cast<std::streamsize>(glb->size()));
  }
  const test::BlenderRun run = test::inspectWithBlender(glbPath, dir + "/puppet.json");
  ASSERT_TRUE(run.ok) << run.output;
  const nlohmann::json& report = run.report;

  ASSERT_EQ(report["armatures"].size(), 1u);
  const auto& bones = report["armatures"][0]["bones"];
  std::map<std::string, std::string> parentOf;
  for (const auto& b : bones) parentOf[b["name"]] = b["parent"].is_null() ? "" : b["parent"].get<std::string>();
  ASSERT_EQ(parentOf.size(), rig.skeleton.bones.size());
  for (const Bone& b : rig.skeleton.bones) {
    ASSERT_EQ(parentOf.count(b.name), 1u) << b.name;
    EXPECT_EQ(parentOf[b.name], b.parent >= 0 ? rig.skeleton.bones[static_cast<size_t>(b.parent)].name : "") << b.name;
  }

  ASSERT_EQ(report["meshes"].size(), 1u);
  const auto& mesh = report["meshes"][0];
  const Mesh& source = rig.meshes[0];
  ASSERT_EQ(mesh["vertexCount"], source.vertexCount());
  // Blender may reorder vertices, so they are matched by position; its importer turns glTF's
  // Y-up (x, y, z) into Blender's Z-up (x, -z, y).
  for (size_t bv = 0; bv < source.vertexCount(); ++bv) {
    const auto& p = mesh["positions"][bv];
    const glm::vec3 gltf(p[0].get<float>(), p[2].get<float>(), -p[1].get<float>());
    size_t v = source.vertexCount();
    for (size_t i = 0; i < source.vertexCount(); ++i) {
      if (glm::distance(source.positions[i], gltf) < 1e-4f) v = i;
    }
    ASSERT_LT(v, source.vertexCount()) << "Blender vertex " << bv << " matches no exported position";
    const std::map<std::string, double> expected = expectedWeights(rig, v);
    const auto& got = mesh["weights"][bv];
    EXPECT_EQ(got.size(), expected.size()) << "vertex " << v << ": " << got.dump();
    for (const auto& [bone, weight] : expected) {
      ASSERT_TRUE(got.contains(bone)) << "vertex " << v << " lacks group " << bone << ": " << got.dump();
      EXPECT_NEAR(got[bone].get<double>(), weight, 1e-4) << "vertex " << v << " group " << bone;
    }
  }

  // Keyframes per animated bone: arm_l's 4 quaternion fcurves and pelvis's 3 location fcurves, each with kKeys keys.
  std::map<std::string, int> curves;
  for (const auto& action : report["actions"]) {
    for (const auto& fc : action["fcurves"]) {
      const std::string path = fc["data_path"];
      EXPECT_EQ(fc["keyframes"], kKeys) << path << "[" << fc["array_index"] << "]";
      // Seconds become frames at the scene rate: the keys span 0 .. duration.
      EXPECT_NEAR(fc["first_frame"].get<double>(), 0.0, 1e-3) << path;
      EXPECT_NEAR(fc["last_frame"].get<double>(), rig.animations[0].duration * report["fps"].get<double>(), 1e-3) << path;
      ++curves[path];
    }
  }
  EXPECT_EQ(curves["pose.bones[\"arm_l\"].rotation_quaternion"], 4);
  EXPECT_EQ(curves["pose.bones[\"pelvis\"].location"], 3);
}

}  // namespace
}  // namespace rigport
