// repairRig() (core/repair.hpp): damaged vertices move to the bind position of the bone weighing
// them most, triangles standing only on them go, one folded warning per kind names the count and
// the first indices, a clip starting before 0 is shifted whole, and `strict` turns each into an error
// that leaves the rig untouched. Bone rest poses and animation keys glTF cannot carry are mended or
// dropped the same way.
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

TEST(Repair, BonesWithNonFiniteOrNonUnitRestPosesAreMendedAndTheModelExports) {
  Rig r = rig();
  Bone& root = r.skeleton.bones[0];
  Bone& arm = r.skeleton.bones[1];
  arm.translation = {kNan, 0.25f, 0};
  const auto before = exportGlb(r);
  ASSERT_FALSE(before) << "a NaN translation has no JSON form: the exporter refuses it";
  EXPECT_EQ(before.error().path, "skeleton/bones[1]");
  root.rotation = glm::quat(0, 0, 0, 0);  // cannot be normalised
  arm.scale = {1, kInf, 2};
  arm.rotation = glm::quat(0, 0, 0, 3);  // a half turn about z, three times too long
  (*arm.inverseBind)[3][0] = kNan;
  ASSERT_TRUE(repairRig(r));
  EXPECT_EQ(root.rotation, glm::quat(1, 0, 0, 0));
  EXPECT_EQ(arm.translation, glm::vec3(0, 0.25f, 0));
  EXPECT_EQ(arm.scale, glm::vec3(1, 1, 2));
  EXPECT_EQ(arm.rotation, glm::quat(0, 0, 0, 1));
  EXPECT_FALSE(arm.inverseBind.has_value());
  EXPECT_TRUE(root.inverseBind.has_value()) << "a finite inverse bind matrix stays";
  const Warning* w = warning(r, "repaired-bone");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("2 bone(s)"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("first: 0, 1"), std::string::npos) << w->message;
  EXPECT_TRUE(validate(r));
  EXPECT_TRUE(exportGlb(r));
}

TEST(Repair, AJointWhoseBindPoseCannotBeInvertedGetsTheIdentityAsItsInverseBindMatrix) {
  Rig r = rig();
  Bone& arm = r.skeleton.bones[1];
  arm.inverseBind.reset();
  arm.scale = {0, 1, 1};  // flat: no inverse
  ASSERT_FALSE(exportGlb(r)) << "the exporter cannot derive an inverse bind matrix from it";
  Rig strict = r;
  const auto refused = repairRig(strict, RepairOptions{true});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().path, "skeleton/bones[1]");
  EXPECT_FALSE(strict.skeleton.bones[1].inverseBind.has_value());
  ASSERT_TRUE(repairRig(r));
  ASSERT_TRUE(arm.inverseBind.has_value());
  EXPECT_EQ(*arm.inverseBind, glm::mat4(1.0f));
  EXPECT_EQ(arm.scale, glm::vec3(0, 1, 1)) << "the pose itself is what the file says";
  const Warning* w = warning(r, "repaired-bone");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("1 joint(s) without an inverse bind matrix whose bind pose cannot be inverted (first: 1)"), std::string::npos)
      << w->message;
  EXPECT_TRUE(exportGlb(r));
}

// Scales of 1e13: float glm::inverse multiplies three entries (1e39) and overflows, though the
// inverse (scales of 1e-13) fits float. It is derived in double then, so nothing is repaired.
TEST(Repair, AJointWithAHugeButInvertibleBindPoseKeepsItsDerivedInverse) {
  Rig r = rig();
  Bone& arm = r.skeleton.bones[1];
  arm.inverseBind.reset();
  arm.scale = glm::vec3(1e13f);
  const glm::mat4 world = r.skeleton.worldBindMatrices()[1];
  EXPECT_EQ(glm::inverse(world)[0][0], 0.0f) << "float alone cannot invert it: its determinant overflows";
  const std::optional<glm::mat4> inverse = inverseOfBindPose(world);
  ASSERT_TRUE(inverse.has_value());
  const glm::mat4 product = *inverse * world;
  for (int c = 0; c < 4; ++c)
    for (int row = 0; row < 4; ++row) EXPECT_NEAR(product[c][row], c == row ? 1.0f : 0.0f, 1e-5f) << c << "," << row;
  ASSERT_TRUE(repairRig(r));
  EXPECT_EQ(warning(r, "repaired-bone"), nullptr);
  EXPECT_FALSE(arm.inverseBind.has_value());
  EXPECT_TRUE(exportGlb(r));
}

TEST(Repair, AnEmptySkinInARigWithoutBonesIsDropped) {
  Rig r;
  Mesh m;
  m.name = "prop";
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  m.indices = {0, 1, 2};
  m.influenceOffsets = {0, 0, 0, 0};  // skinned, every vertex without influences
  r.meshes.push_back(m);
  ASSERT_TRUE(validate(r));
  ASSERT_FALSE(exportGlb(r)) << "a skin needs a joint";
  Rig strict = r;
  const auto refused = repairRig(strict, RepairOptions{true});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().path, "meshes[0]");
  EXPECT_TRUE(strict.meshes[0].skinned());
  ASSERT_TRUE(repairRig(r));
  EXPECT_FALSE(r.meshes[0].skinned());
  const Warning* w = warning(r, "repaired-skin");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("mesh 0 'prop'"), std::string::npos) << w->message;
  EXPECT_TRUE(exportGlb(r));
  Rig boned = rig();  // with bones, vertices without influences ride the root joint: left alone
  boned.meshes[0].influences.clear();
  boned.meshes[0].influenceOffsets.assign(boned.meshes[0].positions.size() + 1, 0);
  ASSERT_TRUE(repairRig(boned));
  EXPECT_TRUE(boned.meshes[0].skinned());
}

TEST(Repair, DamagedKeysAndEventsAreDroppedBeforeTheClipIsShifted) {
  Rig r = rig();
  Animation& a = r.animations[0];
  a.duration = kNan;
  BoneTrack far;  // keys float cannot square: the axis change and normalisation would zero them
  far.bone = 0;
  far.rotation.times = {0.0f, 1.0f};
  far.rotation.values = {glm::quat(std::numeric_limits<float>::max(), 0, 0, 5e-8f), glm::quat(0, 1e-40f, 0, 0)};
  a.tracks.push_back(far);
  BoneTrack& t = a.tracks[0];
  const glm::quat turn = glm::angleAxis(0.3f, glm::vec3(0, 0, 1));
  t.rotation.times = {-0.5f, kNan, 0.5f, 1.0f};
  t.rotation.values = {glm::quat(1, 0, 0, 0), turn, glm::quat(0, 0, 0, 0), turn};
  t.translation.times = {0.0f, 1.0f};
  t.translation.values = {glm::vec3(0.5f, 0, 0), glm::vec3(kInf, 0, 0)};
  ScalarChannel blink;
  blink.name = "blink";
  blink.keys.interpolation = Interpolation::CubicSpline;
  blink.keys.times = {0.0f, 1.0f};
  blink.keys.values = {0.0f, 1.0f};
  blink.keys.inTangents = {0.0f, kNan};
  blink.keys.outTangents = {0.0f, 0.0f};
  a.scalars.push_back(blink);
  a.events = {{kNan, "step", ""}, {0.25f, "step", ""}};
  const Animation untouched = r.animations[0];
  ASSERT_TRUE(repairRig(r));
  // Left: rotation keys at -0.5 and 1.0, shifted by 0.5 (an infinite time would have shifted the
  // clip to infinity); the finite translation key; the blink's first key; the finite event.
  EXPECT_EQ(t.rotation.times, (std::vector<float>{0.0f, 1.5f}));
  EXPECT_EQ(t.rotation.values, (std::vector<glm::quat>{glm::quat(1, 0, 0, 0), turn}));
  EXPECT_EQ(t.translation.times, (std::vector<float>{0.5f}));
  EXPECT_EQ(t.translation.values, (std::vector<glm::vec3>{glm::vec3(0.5f, 0, 0)}));
  EXPECT_EQ(a.scalars[0].keys.times, (std::vector<float>{0.5f}));
  EXPECT_EQ(a.scalars[0].keys.inTangents.size(), 1u);
  EXPECT_EQ(a.scalars[0].keys.outTangents.size(), 1u);
  ASSERT_EQ(a.events.size(), 1u);
  EXPECT_FLOAT_EQ(a.events[0].time, 0.75f);
  EXPECT_FLOAT_EQ(a.duration, 1.5f) << "the last time (1.0), shifted with the clip";
  EXPECT_EQ(a.tracks[1].rotation.values, (std::vector<glm::quat>{glm::quat(1, 0, 0, 0), glm::quat(0, 1, 0, 0)}));
  const Warning* w = warning(r, "repaired-key");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("'walk': 4 key(s)"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("2 rotation key(s) too long or too short"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("1 event(s)"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("duration"), std::string::npos) << w->message;
  EXPECT_NE(warning(r, "negative-key-time"), nullptr);
  EXPECT_TRUE(validate(r));
  EXPECT_TRUE(exportGlb(r));

  Rig strict = rig();
  strict.animations[0] = untouched;
  const auto status = repairRig(strict, RepairOptions{true});
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().path, "animations[0]/tracks[0]");
  EXPECT_EQ(strict.animations[0].tracks[0].rotation.times.size(), 4u) << "strict changes nothing";
}

// The repair looks for zero rotation keys and keys out of float range four at a time in SSE2 lanes
// (core/repair.cpp): in every lane and in the tail after the lanes, a zero key (+0 or -0) is
// dropped and one whose squared length is no normal float (tiny, huge, denormal) rescaled to unit
// length; every other key is left as it was. A key with a NaN or infinite component is dropped: that
// pass finds it too (its squared length is no normal float either), and nothing else looks.
TEST(Repair, ZeroAndOutOfRangeRotationKeysAreFoundInEveryLane) {
  const glm::quat turn = glm::angleAxis(0.3f, glm::vec3(0, 0, 1));
  struct Odd {
    glm::quat key;
    bool dropped;
  };
  for (const Odd& odd : {Odd{glm::quat(0, 0, 0, 0), true}, Odd{glm::quat(-0.0f, -0.0f, -0.0f, -0.0f), true},
                         Odd{glm::quat(1e-30f, 1e-30f, 0, 0), false}, Odd{glm::quat(1e30f, 1e30f, 1, 0), false},
                         Odd{glm::quat(0, 1e-45f, 0, 0), false}, Odd{glm::quat(kNan, 0, 0, 1), true}, Odd{glm::quat(0, 0, -kInf, 0), true}}) {
    for (size_t count : {1u, 3u, 4u, 5u, 8u, 9u, 13u}) {
      for (size_t at = 0; at < count; ++at) {
        SCOPED_TRACE(::testing::Message() << "key " << at << " of " << count << ": " << odd.key.x << " " << odd.key.y << " " << odd.key.z
                                          << " " << odd.key.w);
        Rig r = rig();
        BoneTrack& t = r.animations[0].tracks[0];
        t.rotation.times.clear();
        t.rotation.values.clear();
        for (size_t k = 0; k < count; ++k) {
          t.rotation.times.push_back(0.1f * static_cast<float>(k));
          t.rotation.values.push_back(k == at ? odd.key : turn);
        }
        ASSERT_TRUE(repairRig(r));
        ASSERT_EQ(t.rotation.values.size(), odd.dropped ? count - 1 : count);
        for (size_t k = 0; k < t.rotation.values.size(); ++k) {
          if (!odd.dropped && k == at) {
            EXPECT_NEAR(glm::length(t.rotation.values[k]), 1.0f, 1e-6f) << "rescaled";
          } else {
            EXPECT_EQ(t.rotation.values[k], turn) << "key " << k;
          }
        }
        const Warning* w = warning(r, "repaired-key");
        ASSERT_NE(w, nullptr);
        EXPECT_NE(w->message.find(odd.dropped ? "1 key(s)" : "1 rotation key(s) too long or too short"), std::string::npos) << w->message;
      }
    }
  }
}

TEST(Repair, KeysAShiftPushesBeyondFloatsRangeAreDropped) {
  Rig r = rig();
  BoneTrack& t = r.animations[0].tracks[0];
  t.rotation.times = {-2e38f, 0.0f, 2e38f};
  t.rotation.values = {glm::quat(1, 0, 0, 0), glm::quat(1, 0, 0, 0), glm::quat(1, 0, 0, 0)};
  ASSERT_TRUE(repairRig(r));
  EXPECT_EQ(t.rotation.times, (std::vector<float>{0.0f, 2e38f})) << "+2e38 + 2e38 is infinite in float";
  EXPECT_TRUE(std::isfinite(r.animations[0].duration));
  EXPECT_NE(warning(r, "negative-key-time"), nullptr);
  EXPECT_NE(warning(r, "repaired-key"), nullptr);
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

  Rig bone = rig();
  bone.skeleton.bones[1].scale.x = kNan;
  status = repairRig(bone, RepairOptions{true});
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().path, "skeleton/bones[1]");
  EXPECT_TRUE(std::isnan(bone.skeleton.bones[1].scale.x));

  Rig early = rig();
  early.animations[0].tracks[0].rotation.times[0] = -1.0f;
  status = repairRig(early, RepairOptions{true});
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().path, "animations[0]");
  EXPECT_EQ(early.animations[0].tracks[0].rotation.times[0], -1.0f);
}

}  // namespace
}  // namespace rigport
