// BattleForge DRS + SKA through the CLI to glTF: `rigport convert unit.drs --anim a.ska --anim b.ska`
// gives one .glb that the Khronos glTF-Validator passes with 0 errors and 0 warnings and that
// Blender imports with the sample's hierarchy, vertex groups and both actions. The game's one
// reflection (battleforge_drs.md §4: negate Z) is checked on the root's rotation and the positions.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "support/blender.hpp"
#include "support/gltf_pose.hpp"
#include "support/gltf_validator.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

const char* kDrs = "synthetic_skinned_3bones_2meshes.drs";
const char* kSka7 = "synthetic_type7_spine.ska";
const char* kSka6 = "synthetic_type6_root_head.ska";

std::string bfSample(const std::string& name) { return test::sample("battleforge/" + name); }

// The converted sample with both clips; empty on failure.
std::string convertSample(const std::string& dir) {
  const std::string glb = dir + "/unit.glb";
  const test::CliRun r = test::runCli("convert " + test::quote(bfSample(kDrs)) + " --anim " + test::quote(bfSample(kSka7)) + " --anim " +
                                      test::quote(bfSample(kSka6)) + " -o " + test::quote(glb));
  EXPECT_EQ(r.code, 0) << r.text;
  return r.code == 0 ? glb : std::string();
}

int nodeNamed(const tinygltf::Model& m, const std::string& name) {
  for (size_t i = 0; i < m.nodes.size(); ++i)
    if (m.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

TEST(BattleforgeGltf, DrsWithTwoSkaGivesOneValidGlb) {
  const std::string dir = test::scratchDir("bf_gltf_convert");
  const std::string glb = convertSample(dir);
  ASSERT_FALSE(glb.empty());
  const test::ValidatorRun v = test::validateGltfFile(glb);
  EXPECT_TRUE(v.ok) << v.output;

  const tinygltf::Model m = test::loadGlbModel(glb);
  ASSERT_EQ(m.skins.size(), 1u);
  EXPECT_EQ(m.skins[0].joints.size(), 3u);
  ASSERT_EQ(m.animations.size(), 2u);
  std::map<std::string, std::string> interpolation;  // "clip/node/path" -> sampler interpolation
  for (const tinygltf::Animation& a : m.animations) {
    for (const tinygltf::AnimationChannel& c : a.channels) {
      interpolation[a.name + "/" + m.nodes[c.target_node].name + "/" + c.target_path] = a.samplers[c.sampler].interpolation;
    }
  }
  // The Hermite keys are CUBICSPLINE; a one-key channel can only be LINEAR (glTF needs 2 for a spline).
  EXPECT_EQ(interpolation["synthetic_type7_spine/Bip01_Spine/rotation"], "CUBICSPLINE");
  EXPECT_EQ(interpolation["synthetic_type7_spine/Bip01_Spine/translation"], "CUBICSPLINE");
  EXPECT_EQ(interpolation["synthetic_type6_root_head/Bip01/rotation"], "LINEAR");
  EXPECT_EQ(interpolation["synthetic_type6_root_head/Bip01_Head/translation"], "LINEAR");

  // Game rot_x(−90°) mirrored in z is rot_x(+90°): (x, y, z, w) = (0.7071, 0, 0, 0.7071).
  const int root = nodeNamed(m, "Bip01");
  ASSERT_GE(root, 0);
  const std::vector<double>& q = m.nodes[root].rotation;
  ASSERT_EQ(q.size(), 4u);
  const double s = q[3] < 0 ? -1.0 : 1.0;
  EXPECT_NEAR(s * q[0], std::sqrt(0.5), 1e-6);
  EXPECT_NEAR(s * q[1], 0.0, 1e-6);
  EXPECT_NEAR(s * q[2], 0.0, 1e-6);
  EXPECT_NEAR(s * q[3], std::sqrt(0.5), 1e-6);
  // Spine's local translation (0, 0, 1) in game space is (0, 0, −1) in glTF.
  const int spine = nodeNamed(m, "Bip01_Spine");
  ASSERT_GE(spine, 0);
  ASSERT_EQ(m.nodes[spine].translation.size(), 3u);
  EXPECT_NEAR(m.nodes[spine].translation[2], -1.0, 1e-6);
}

TEST(BattleforgeGltf, BrokenSkeletonFailsWithFieldAndOffsetAndNoOutput) {
  const std::string dir = test::scratchDir("bf_gltf_broken");
  std::vector<uint8_t> bytes = test::readBytes(bfSample(kDrs));
  bytes[108 + 4] = 4;  // CSkSkeleton (payload at 108) version 3 -> 4
  const std::string path = dir + "/broken.drs";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const test::CliRun r = test::runCli("convert " + test::quote(path) + " -o " + test::quote(dir), test::Capture::StderrOnly);
  EXPECT_EQ(r.code, 1) << r.text;
  EXPECT_NE(r.text.find("broken.drs"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("CSkSkeleton/version"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("0x70"), std::string::npos) << r.text;
  EXPECT_FALSE(std::filesystem::exists(dir + "/broken.glb"));
}

TEST(BattleforgeGltf, SkaAloneNeedsASkeletonAndBindsToTheOneNamed) {
  const std::string dir = test::scratchDir("bf_gltf_skeleton");
  const test::CliRun r = test::runCli("convert " + test::quote(bfSample(kSka7)) + " --skeleton " + test::quote(bfSample(kDrs)) + " -o " +
                                      test::quote(dir + "/walk.glb"));
  EXPECT_EQ(r.code, 0) << r.text;
  const test::ValidatorRun v = test::validateGltfFile(dir + "/walk.glb");
  EXPECT_TRUE(v.ok) << v.output;
}

TEST(BattleforgeGltf, BlenderImportsHierarchyWeightsAndBothActions) {
  const std::string dir = test::scratchDir("bf_gltf_blender");
  const std::string glb = convertSample(dir);
  ASSERT_FALSE(glb.empty());
  const test::BlenderRun run = test::inspectWithBlender(glb, dir + "/report.json");
  ASSERT_TRUE(run.ok) << run.output;
  const nlohmann::json& report = run.report;

  ASSERT_EQ(report["armatures"].size(), 1u);
  std::map<std::string, std::string> parentOf;
  for (const auto& b : report["armatures"][0]["bones"]) parentOf[b["name"]] = b["parent"].is_null() ? "" : b["parent"].get<std::string>();
  EXPECT_EQ(parentOf, (std::map<std::string, std::string>{{"Bip01", ""}, {"Bip01_Spine", "Bip01"}, {"Bip01_Head", "Bip01_Spine"}}));

  // Submesh 1's first vertex (B) is weighted Bip01_Spine 127/255, Bip01_Head 128/255 (rev-12 + joint map).
  ASSERT_EQ(report["meshes"].size(), 2u);
  bool found = false;
  for (const auto& mesh : report["meshes"]) {
    for (const auto& w : mesh["weights"]) {
      if (w.size() == 2 && w.contains("Bip01_Head") && w.contains("Bip01_Spine") && std::fabs(w["Bip01_Head"].get<double>() - 128.0 / 255.0) < 1e-4) {
        EXPECT_NEAR(w["Bip01_Spine"].get<double>(), 127.0 / 255.0, 1e-4);
        found = true;
      }
    }
  }
  EXPECT_TRUE(found) << report["meshes"].dump();

  // Actions: type 7 keys spine over 1.25 s (2 translation, 3 rotation keys); type 6 one key each.
  const double fps = report["fps"].get<double>();
  std::map<std::string, int> keys;  // "action|data_path" -> keyframes of each component
  for (const auto& action : report["actions"]) {
    for (const auto& fc : action["fcurves"]) {
      const std::string name = action["name"].get<std::string>();  // Blender appends "_<armature>"
      const std::string id = name.substr(0, name.rfind('_')) + "|" + fc["data_path"].get<std::string>();
      keys[id] = fc["keyframes"].get<int>();
      EXPECT_NEAR(fc["first_frame"].get<double>(), 0.0, 1e-3) << id;
      if (fc["keyframes"].get<int>() > 1) EXPECT_NEAR(fc["last_frame"].get<double>(), 1.25 * fps, 1e-3) << id;
    }
  }
  EXPECT_EQ(keys["synthetic_type7_spine|pose.bones[\"Bip01_Spine\"].location"], 2);
  EXPECT_EQ(keys["synthetic_type7_spine|pose.bones[\"Bip01_Spine\"].rotation_quaternion"], 3);
  EXPECT_EQ(keys["synthetic_type6_root_head|pose.bones[\"Bip01\"].rotation_quaternion"], 1);
  EXPECT_EQ(keys["synthetic_type6_root_head|pose.bones[\"Bip01_Head\"].location"], 1);
}
