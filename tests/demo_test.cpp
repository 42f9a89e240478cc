// The procedural demo character is a well-formed skinned, animated humanoid; runDemo round-trips it
// through every writable format with a small error and writes .glb files that the Khronos validator
// and Blender's importer accept.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "platform/files.hpp"
#include "core/validate.hpp"
#include "demo/character.hpp"
#include "demo/demo_run.hpp"
#include "export/gltf.hpp"
#include "formats/registry.hpp"
#include "support/blender.hpp"
#include "support/gltf_validator.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

const Rig& character() {
  static const Rig rig = makeDemoCharacter();
  return rig;
}

std::vector<size_t> childCounts(const Skeleton& sk) {
  std::vector<size_t> n(sk.bones.size(), 0);
  for (const Bone& b : sk.bones)
    if (b.parent >= 0) ++n[static_cast<size_t>(b.parent)];
  return n;
}

}  // namespace

TEST(DemoCharacter, PassesValidate) {
  const Status s = validate(character());
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().describe());
}

TEST(DemoCharacter, HasABranchingSkeletonOfAtLeastTwentyUniquelyNamedBones) {
  const Skeleton& sk = character().skeleton;
  EXPECT_GE(sk.bones.size(), 20u);
  EXPECT_EQ(sk.bones.size(), kDemoHumanoidBones);
  const std::vector<size_t> children = childCounts(sk);
  // pelvis (spine + 2 thighs), chest (neck + 2 clavicles), hands (fingers + thumb) branch.
  EXPECT_EQ(children[static_cast<size_t>(sk.find("pelvis"))], 3u);
  EXPECT_EQ(children[static_cast<size_t>(sk.find("spine_03"))], 3u);
  EXPECT_EQ(children[static_cast<size_t>(sk.find("hand_l"))], 2u);
  std::set<std::string> names;
  for (const Bone& b : sk.bones) {
    names.insert(b.name);
    EXPECT_TRUE(b.id.has_value()) << b.name;
  }
  EXPECT_EQ(names.size(), sk.bones.size());
}

TEST(DemoCharacter, InverseBindMatricesInvertTheWorldBindPose) {
  const Skeleton& sk = character().skeleton;
  const std::vector<glm::mat4> world = sk.worldBindMatrices();
  for (size_t i = 0; i < sk.bones.size(); ++i) {
    ASSERT_TRUE(sk.bones[i].inverseBind.has_value());
    const glm::mat4 product = *sk.bones[i].inverseBind * world[i];
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) EXPECT_NEAR(product[c][r], c == r ? 1.0f : 0.0f, 1e-5f) << sk.bones[i].name;
  }
}

TEST(DemoCharacter, BodyHasAFewThousandVerticesWithNormalsUvsAndTriangles) {
  ASSERT_EQ(character().meshes.size(), 1u);
  const Mesh& m = character().meshes[0];
  EXPECT_GE(m.vertexCount(), 2000u);
  EXPECT_LE(m.vertexCount(), 10000u);
  EXPECT_EQ(m.normals.size(), m.vertexCount());
  EXPECT_EQ(m.uvs.size(), m.vertexCount());
  EXPECT_GT(m.indices.size(), m.vertexCount());
  for (const glm::vec3& n : m.normals) ASSERT_NEAR(glm::length(n), 1.0f, 1e-5f);
}

TEST(DemoCharacter, EveryVertexHasOneToFourInfluencesSummingToOne) {
  const Mesh& m = character().meshes[0];
  ASSERT_TRUE(m.skinned());
  size_t blended = 0;
  for (size_t v = 0; v < m.vertexCount(); ++v) {
    const uint32_t n = m.influenceOffsets[v + 1] - m.influenceOffsets[v];
    ASSERT_GE(n, 1u) << "vertex " << v;
    ASSERT_LE(n, 4u) << "vertex " << v;
    float sum = 0.0f;
    for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i) sum += m.influences[i].weight;
    ASSERT_NEAR(sum, 1.0f, 1e-5f) << "vertex " << v;
    blended += n > 1 ? 1 : 0;
  }
  // Joints blend: a good share of the vertices (rings near joints) has more than one influence.
  EXPECT_GT(blended, m.vertexCount() / 5);
  EXPECT_EQ(m.maxInfluences(), 4u);
}

TEST(DemoCharacter, WalkIsAOneSecondThirtyFpsLoopWithFootstepEvents) {
  ASSERT_EQ(character().animations.size(), 1u);
  const Animation& walk = character().animations[0];
  EXPECT_FLOAT_EQ(walk.duration, 1.0f);
  bool hasTranslation = false;
  for (const BoneTrack& t : walk.tracks) {
    ASSERT_GE(t.bone, 0);
    const std::string& name = character().skeleton.bones[static_cast<size_t>(t.bone)].name;
    ASSERT_EQ(t.rotation.times.size(), 31u) << name;
    EXPECT_EQ(t.rotation.times.front(), 0.0f);
    EXPECT_EQ(t.rotation.times.back(), 1.0f);
    EXPECT_EQ(t.rotation.values.front(), t.rotation.values.back()) << name;
    if (!t.translation.empty()) {
      hasTranslation = true;
      EXPECT_EQ(t.translation.values.front(), t.translation.values.back()) << name;
    }
  }
  EXPECT_TRUE(hasTranslation);
  ASSERT_FALSE(walk.events.empty());
  EXPECT_EQ(walk.events[0].type, "footstep");
  EXPECT_FLOAT_EQ(walk.events[0].time, 0.25f);
}

TEST(DemoCharacter, OptionsScaleBonesVerticesAndKeys) {
  DemoOptions o;
  o.vertices = 100000;
  o.bones = 256;
  o.keys = 10000;
  const Rig big = makeDemoCharacter(o);
  const Status s = validate(big);
  ASSERT_TRUE(s.ok()) << (s.ok() ? "" : s.error().describe());
  EXPECT_EQ(big.skeleton.bones.size(), 256u);
  EXPECT_NEAR(static_cast<double>(big.vertexCount()), 100000.0, 10000.0);
  EXPECT_NEAR(static_cast<double>(big.animations[0].keyCount()), 10000.0, 1000.0);
  EXPECT_EQ(big.maxInfluences(), 4u);
}

TEST(DemoRun, RoundTripsEveryWritableFormatWithinOneTenthMillimetre) {
  const std::string dir = test::scratchDir("demo_run");
  auto report = runDemo(dir);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  std::vector<std::string> writable;
  for (const FormatInfo& f : formats())
    if (f.write != nullptr) writable.emplace_back(f.name);
  ASSERT_EQ(report->rows.size(), writable.size());
  for (size_t i = 0; i < writable.size(); ++i) {
    const DemoRow& row = report->rows[i];
    EXPECT_EQ(row.format, writable[i]);
    ASSERT_FALSE(row.failure.has_value()) << row.format << ": " << row.failure->describe();
    EXPECT_TRUE(std::filesystem::is_regular_file(row.file)) << row.file;
    EXPECT_EQ(std::filesystem::file_size(row.file), row.bytes);
    EXPECT_EQ(row.bones, character().skeleton.bones.size()) << row.format;
    EXPECT_EQ(row.vertices, character().vertexCount()) << row.format;
    // Animation formats bring keys back (an .anm stores every node's rotation and translation).
    if (findFormat(row.format)->animationOnly()) EXPECT_GE(row.keys, character().animations[0].keyCount()) << row.format;
    // Every format writes 32-bit floats, so only float rounding may separate the two sides;
    // 1e-4 is 0.1 mm for positions and 1e-4 of a unit for rotations and weights.
    // Except The Sims 3's CLIP (alone or in a package), which quantises keys (sims3_clip.md R4, R5):
    // half a 10-bit step of a translation channel spanning up to 1 m is 4.9e-4 m, half a 12-bit
    // step of a quaternion component 1.2e-4. And Sluggers blocks, which store skin weights as
    // u8/256 (sluggers.md §6): a weight moves by up to 1/256.
    double bound = 1e-4;
    if (row.format.rfind("sims3-", 0) == 0) bound = 5e-4;
    if (row.format == "sluggers-model") bound = 1.0 / 256;
    EXPECT_LT(row.error.max, bound) << row.format << ": worst at " << row.error.where;
  }
}

TEST(DemoRun, EveryWrittenGlbPassesTheKhronosValidator) {
  const std::string dir = test::scratchDir("demo_validate");
  auto report = runDemo(dir);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  const std::vector<std::string> glbs = report->glbFiles();
  EXPECT_EQ(glbs.size(), report->rows.size() + 1);
  for (const std::string& glb : glbs) {
    const test::ValidatorRun run = test::validateGltfFile(glb);
    EXPECT_TRUE(run.ok) << glb << ": " << run.output;
  }
}

// The JSON chunk of a .glb (12-byte header, then chunk length, type, JSON).
nlohmann::json glbJson(const std::string& path) {
  const std::vector<uint8_t> bytes = test::readBytes(path);
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + 12, 4);
  return nlohmann::json::parse(bytes.begin() + 20, bytes.begin() + 20 + length);
}

// Each round trip's .glb names the axes of the file that was read back (an .anm is Z up even
// though it was bound onto the Y-up character), not those of the demo character.
TEST(DemoRun, EachGlbReportsTheAxesOfTheFileReadBack) {
  const std::string dir = test::scratchDir("demo_axes");
  auto report = runDemo(dir);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  for (const DemoRow& row : report->rows) {
    ASSERT_FALSE(row.failure.has_value()) << row.format;
    auto read = loadAsset(row.file);
    ASSERT_TRUE(read.ok()) << row.format << ": " << read.error().describe();
    const nlohmann::json axes = glbJson(row.glb)["asset"]["extras"]["sourceAxes"];
    EXPECT_EQ(axes["up"], read->provenance.axes.up == AxisSystem::Up::Z ? "Z" : "Y") << row.format;
    EXPECT_EQ(axes["metresPerUnit"], read->provenance.axes.metresPerUnit) << row.format;
  }
}

// Blender 3.4's importer: the armature keeps our names and parents, the vertex groups our weights,
// and the action one keyframe per source key over the 1 s loop (at the scene's frame rate).
TEST(DemoRun, BlenderImportKeepsBonesWeightsAndKeyframes) {
  const Rig& rig = character();
  const std::string dir = test::scratchDir("demo_blender");
  const std::string glbPath = dir + "/demo_character.glb";
  auto glb = exportGlb(rig);
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  ASSERT_TRUE(platform::writeFileAtomic(glbPath, *glb).ok());
  const test::BlenderRun run = test::inspectWithBlender(glbPath, dir + "/blender.json");
  ASSERT_TRUE(run.ok) << run.output;
  const nlohmann::json& report = run.report;

  ASSERT_EQ(report["armatures"].size(), 1u);
  const auto& bones = report["armatures"][0]["bones"];
  ASSERT_EQ(bones.size(), rig.skeleton.bones.size());
  for (const auto& b : bones) {
    const int32_t i = rig.skeleton.find(b["name"].get<std::string>());
    ASSERT_GE(i, 0) << b["name"];
    const int32_t parent = rig.skeleton.bones[static_cast<size_t>(i)].parent;
    if (parent < 0) {
      EXPECT_TRUE(b["parent"].is_null()) << b["name"];
    } else {
      EXPECT_EQ(b["parent"], rig.skeleton.bones[static_cast<size_t>(parent)].name) << b["name"];
    }
  }

  ASSERT_EQ(report["meshes"].size(), 1u);
  const auto& mesh = report["meshes"][0];
  const Mesh& body = rig.meshes[0];
  ASSERT_EQ(mesh["vertexCount"].get<size_t>(), body.vertexCount());
  for (size_t v = 0; v < body.vertexCount(); ++v) {
    // Blender is Z up: (x, y, z) in glTF is (x, -z, y) in Blender; the order of vertices is kept.
    const auto& p = mesh["positions"][v];
    ASSERT_NEAR(p[0].get<float>(), body.positions[v].x, 1e-5f) << "vertex " << v;
    ASSERT_NEAR(p[1].get<float>(), -body.positions[v].z, 1e-5f) << "vertex " << v;
    ASSERT_NEAR(p[2].get<float>(), body.positions[v].y, 1e-5f) << "vertex " << v;
    const auto& weights = mesh["weights"][v];
    ASSERT_EQ(weights.size(), body.influenceOffsets[v + 1] - body.influenceOffsets[v]) << "vertex " << v;
    for (uint32_t i = body.influenceOffsets[v]; i < body.influenceOffsets[v + 1]; ++i) {
      const std::string& bone = rig.skeleton.bones[body.influences[i].bone].name;
      ASSERT_TRUE(weights.contains(bone)) << "vertex " << v << " lacks " << bone;
      ASSERT_NEAR(weights[bone].get<float>(), body.influences[i].weight, 1e-5f) << "vertex " << v << " " << bone;
    }
  }

  ASSERT_EQ(report["actions"].size(), 1u);
  const auto& fcurves = report["actions"][0]["fcurves"];
  const double lastFrame = rig.animations[0].duration * report["fps"].get<double>();
  for (const BoneTrack& t : rig.animations[0].tracks) {
    const std::string& name = rig.skeleton.bones[static_cast<size_t>(t.bone)].name;
    const std::string rotation = fmt::format("pose.bones[\"{}\"].rotation_quaternion", name);
    const std::string location = fmt::format("pose.bones[\"{}\"].location", name);
    size_t rotationCurves = 0, locationCurves = 0;
    for (const auto& fc : fcurves) {
      const bool isRotation = fc["data_path"] == rotation;
      const bool isLocation = fc["data_path"] == location;
      if (!isRotation && !isLocation) continue;
      ++(isRotation ? rotationCurves : locationCurves);
      const size_t keys = isRotation ? t.rotation.times.size() : t.translation.times.size();
      EXPECT_EQ(fc["keyframes"].get<size_t>(), keys) << fc["data_path"];
      EXPECT_DOUBLE_EQ(fc["first_frame"].get<double>(), 0.0) << fc["data_path"];
      EXPECT_NEAR(fc["last_frame"].get<double>(), lastFrame, 1e-3) << fc["data_path"];
    }
    EXPECT_EQ(rotationCurves, 4u) << name;
    EXPECT_EQ(locationCurves, t.translation.empty() ? 0u : 3u) << name;
  }
}
