// repairRig() (core/repair.hpp): damaged vertices move to the bind position of the bone weighing
// them most, triangles standing only on them go, one folded warning per kind names the count and
// the first indices, a clip starting before 0 is shifted whole, and `strict` turns each into an error
// that leaves the rig untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <glm/gtc/matrix_transform.hpp>

#include "core/repair.hpp"
#include "core/validate.hpp"
#include "export/gltf.hpp"

namespace rigport {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// root at (0, 0, 1) -> arm at +0.5 x; a 4-vertex quad of two triangles, plus a triangle (4, 5, 6)
// of its own; vertices 4-6 are weighted to the arm, the others to the root.
Rig rig() {
  Rig r;
  Bone root;
  root.name = "root";
  root.translation = {0, 0, 1};
  Bone arm;
  arm.name = "arm";
  arm.parent = 0;
  arm.translation = {0.5f, 0, 0};
  arm.rotation = glm::angleAxis(0.5f, glm::vec3(0, 0, 1));
  r.skeleton.bones = {root, arm};
  const auto world = r.skeleton.worldBindMatrices();
  for (size_t b = 0; b < 2; ++b) r.skeleton.bones[b].inverseBind = glm::inverse(world[b]);
  Mesh m;
  m.name = "body";
  m.positions = {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}, {1, 0, 1.2f}, {1.2f, 0, 1.2f}, {1.1f, 0, 1.4f}};
  m.normals.assign(7, glm::vec3(0, -1, 0));
  m.uvs.assign(7, glm::vec2(0.5f));
  m.indices = {0, 1, 2, 0, 2, 3, 4, 5, 6};
  m.influenceOffsets = {0, 1, 2, 3, 4, 6, 7, 8};
  m.influences = {{0, 1}, {0, 1}, {0, 1}, {0, 1}, {1, 0.8f}, {0, 0.2f}, {1, 1}, {1, 1}};
  r.meshes.push_back(m);
  Animation a;
  a.name = "walk";
  a.duration = 1.0f;
  BoneTrack t;
  t.bone = 1;
  t.rotation.times = {0.0f, 1.0f};
  t.rotation.values = {glm::quat(1, 0, 0, 0), glm::angleAxis(0.3f, glm::vec3(0, 0, 1))};
  a.tracks.push_back(t);
  r.animations.push_back(a);
  return r;
}

const Warning* warning(const Rig& r, const std::string& code) {
  for (const Warning& w : r.provenance.warnings)
    if (w.code == code) return &w;
  return nullptr;
}

TEST(Repair, IntactRigIsLeftAsItIsWithoutWarnings) {
  Rig r = rig();
  ASSERT_TRUE(repairRig(r));
  EXPECT_TRUE(r.provenance.warnings.empty());
  EXPECT_EQ(r.meshes[0].positions, rig().meshes[0].positions);
  EXPECT_EQ(r.meshes[0].indices, rig().meshes[0].indices);
}

TEST(Repair, NonFinitePositionsMoveToTheHeaviestBonesBindPositionAndOrphanTrianglesGo) {
  Rig r = rig();
  r.materials.resize(2);
  Mesh& m = r.meshes[0];
  m.parts = {MeshPart{0, 0, 6}, MeshPart{1, 6, 3}};
  m.positions[4] = {kNan, 0, 0};
  m.positions[5] = {0, kInf, 0};
  m.positions[6] = {0, 0, -kInf};
  m.positions[1] = {kNan, kNan, kNan};
  ASSERT_TRUE(repairRig(r));
  const glm::vec3 armBind(r.skeleton.worldBindMatrices()[1][3]);
  EXPECT_EQ(m.positions[4], armBind) << "vertex 4 weighs the arm 0.8, the root 0.2";
  EXPECT_EQ(m.positions[6], armBind);
  EXPECT_EQ(m.positions[1], glm::vec3(0, 0, 1)) << "the root's bind position";
  // Triangle (4, 5, 6) stood only on damaged vertices; (0, 1, 2) keeps two intact ones. The parts
  // still tile the indices: the second part lost its only triangle.
  EXPECT_EQ(m.indices, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3}));
  ASSERT_EQ(m.parts.size(), 2u);
  EXPECT_EQ(m.parts[0].indexCount, 6u);
  EXPECT_EQ(m.parts[1].firstIndex, 6u);
  EXPECT_EQ(m.parts[1].indexCount, 0u);
  const Warning* w = warning(r, "repaired-position");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->count, 1u);
  EXPECT_NE(w->message.find("4 vertex position(s) not finite (first: 1, 4, 5, 6)"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("1 triangle(s)"), std::string::npos) << w->message;
  EXPECT_TRUE(validate(r));
  EXPECT_TRUE(exportGlb(r)) << "the exporter refuses non-finite positions; repaired ones go through";
}

TEST(Repair, NonFiniteNormalsUvsAndWeightsAreReplacedOrDropped) {
  Rig r = rig();
  r.provenance.axes.up = AxisSystem::Up::Z;
  r.provenance.axes.forward = AxisSystem::Axis::PosY;
  Mesh& m = r.meshes[0];
  m.normals[2] = {kNan, 0, 1};
  m.uvs[3] = {0, kInf};
  m.influences[5].weight = -0.2f;  // vertex 4's second influence
  ASSERT_TRUE(repairRig(r));
  EXPECT_EQ(m.normals[2], glm::vec3(0, 0, 1)) << "the rig's up axis";
  EXPECT_EQ(m.uvs[3], glm::vec2(0, 0));
  EXPECT_EQ(m.influenceOffsets, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(m.influences[4].bone, 1u);
  EXPECT_NE(warning(r, "repaired-normal"), nullptr);
  EXPECT_NE(warning(r, "repaired-uv"), nullptr);
  ASSERT_NE(warning(r, "repaired-weight"), nullptr);
  EXPECT_NE(warning(r, "repaired-weight")->message.find("first: 4"), std::string::npos);
}

TEST(Repair, ClipStartingBeforeZeroIsShiftedWholeAndOtherClipsStay) {
  Rig r = rig();
  Animation early = r.animations[0];
  early.name = "early";
  early.tracks[0].rotation.times = {-0.25f, 0.5f};
  early.events.push_back({-0.1f, "step", ""});
  r.animations.push_back(early);
  ASSERT_TRUE(repairRig(r));
  ASSERT_EQ(r.animations.size(), 2u);
  EXPECT_EQ(r.animations[0].tracks[0].rotation.times, (std::vector<float>{0.0f, 1.0f}));
  EXPECT_EQ(r.animations[1].tracks[0].rotation.times, (std::vector<float>{0.0f, 0.75f}));
  EXPECT_FLOAT_EQ(r.animations[1].events[0].time, 0.15f);
  EXPECT_FLOAT_EQ(r.animations[1].duration, 1.25f);
  const Warning* w = warning(r, "negative-key-time");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("'early' starts at -0.25 s"), std::string::npos) << w->message;
  EXPECT_TRUE(exportGlb(r));
}

TEST(Repair, StrictTurnsEachRepairIntoAnErrorAndChangesNothing) {
  Rig damaged = rig();
  damaged.meshes[0].positions[5] = {kNan, 0, 0};
  Rig r = damaged;
  auto status = repairRig(r, RepairOptions{true});
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().path, "meshes[0]/positions[5]");
  EXPECT_NE(status.error().message.find("strict"), std::string::npos);
  EXPECT_TRUE(std::isnan(r.meshes[0].positions[5].x));
  EXPECT_TRUE(r.provenance.warnings.empty());

  Rig early = rig();
  early.animations[0].tracks[0].rotation.times[0] = -1.0f;
  status = repairRig(early, RepairOptions{true});
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().path, "animations[0]");
  EXPECT_EQ(early.animations[0].tracks[0].rotation.times[0], -1.0f);
}

}  // namespace
}  // namespace rigport
