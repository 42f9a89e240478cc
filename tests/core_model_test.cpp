// The neutral model: validation catches each broken invariant, axis conversion keeps skinning
// consistent, animation binding resolves by id, hash, name and position, key normalisation
// produces what glTF samplers need.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "core/axes.hpp"
#include "core/bind.hpp"
#include "core/finite_scan.hpp"
#include "core/hash.hpp"
#include "core/onto.hpp"
#include "core/rig.hpp"
#include "core/rig_copy.hpp"
#include "core/validate.hpp"

using namespace rigport;

namespace {

// root -> spine -> head, root -> leg; one triangle skinned to spine and leg.
Rig smallRig() {
  Rig rig;
  auto add = [&](const char* name, int32_t parent, glm::vec3 t, glm::quat q, uint32_t id) {
    Bone b;
    b.name = name;
    b.parent = parent;
    b.translation = t;
    b.rotation = q;
    b.id = id;
    rig.skeleton.bones.push_back(b);
  };
  add("root", -1, {0, 0, 1}, glm::angleAxis(0.3f, glm::vec3(0, 0, 1)), 0);
  add("spine", 0, {0, 0, 0.5f}, glm::angleAxis(-0.2f, glm::vec3(1, 0, 0)), 1);
  add("head", 1, {0, 0, 0.4f}, glm::quat(1, 0, 0, 0), 5);
  add("leg", 0, {0.2f, 0, -0.1f}, glm::angleAxis(3.0f, glm::vec3(0, 1, 0)), 41);
  const auto world = rig.skeleton.worldBindMatrices();
  for (size_t i = 0; i < world.size(); ++i) rig.skeleton.bones[i].inverseBind = glm::inverse(world[i]);
  Mesh m;
  m.positions = {{0, 0, 1.2f}, {0.1f, 0, 1.6f}, {0.2f, 0.1f, 0.8f}};
  m.normals = {{0, 1, 0}, {0, 1, 0}, {1, 0, 0}};
  m.indices = {0, 1, 2};
  m.influenceOffsets = {0, 1, 3, 4};
  m.influences = {{1, 1.0f}, {1, 0.5f}, {2, 0.5f}, {3, 1.0f}};
  rig.meshes.push_back(m);
  Animation a;
  a.name = "walk";
  a.duration = 1.0f;
  BoneTrack t;
  t.bone = 1;
  t.rotation.times = {0.0f, 1.0f};
  t.rotation.values = {glm::angleAxis(0.1f, glm::vec3(1, 0, 0)), glm::angleAxis(0.4f, glm::vec3(0, 1, 0))};
  t.translation.times = {0.0f, 1.0f};
  t.translation.values = {{0, 0, 0.5f}, {0.1f, 0, 0.5f}};
  a.tracks.push_back(t);
  rig.animations.push_back(a);
  rig.provenance.axes.up = AxisSystem::Up::Z;
  rig.provenance.axes.forward = AxisSystem::Axis::PosY;
  return rig;
}

// Skinned world position of vertex v, the way glTF evaluates it: sum w * world(j) * IBM(j) * p.
glm::vec3 skinnedPosition(const Rig& rig, size_t v) {
  const Mesh& m = rig.meshes[0];
  const auto world = rig.skeleton.worldBindMatrices();
  glm::vec4 out(0.0f);
  for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i) {
    const Influence& inf = m.influences[i];
    out += inf.weight * (world[inf.bone] * *rig.skeleton.bones[inf.bone].inverseBind * glm::vec4(m.positions[v], 1.0f));
  }
  return glm::vec3(out);
}

}  // namespace

// assignWithoutAnimations() gives a copy of the rig without animations, whatever `to` held; a
// skeleton identical to the rig's is kept where it is (its bones' extras not copied again), one that
// differs by a bit or an extra is copied over.
TEST(RigCopy, AssigningKeepsAnIdenticalSkeletonAndCopiesAChangedOne) {
  Rig from = smallRig();
  from.name = "rig";
  from.skeleton.bones[1].extras = {{"game", {{"flags", 3}}}};
  from.extras = {{"game", 1}};
  from.animations.emplace_back().name = "walk";
  Rig to;
  to.animations.emplace_back().name = "old";
  EXPECT_FALSE(assignWithoutAnimations(to, from)) << "the empty skeleton is not kept";
  EXPECT_TRUE(identical(to.skeleton, from.skeleton));
  EXPECT_EQ(to.name, "rig");
  EXPECT_EQ(to.extras, from.extras);
  EXPECT_EQ(to.meshes.size(), from.meshes.size());
  EXPECT_TRUE(to.animations.empty());

  // A JSON object copied is made anew: its storage staying where it was says it was not copied.
  const auto* kept = to.skeleton.bones[1].extras.get_ptr<const nlohmann::json::object_t*>();
  to.animations.emplace_back().name = "next";
  EXPECT_TRUE(assignWithoutAnimations(to, from));
  EXPECT_EQ(to.skeleton.bones[1].extras.get_ptr<const nlohmann::json::object_t*>(), kept) << "an identical skeleton is not copied again";
  EXPECT_TRUE(to.animations.empty());

  to.skeleton.bones[0].translation.x = -0.0f;  // 0 before: -0 is another bit pattern
  EXPECT_FALSE(identical(to.skeleton, from.skeleton));
  EXPECT_FALSE(assignWithoutAnimations(to, from));
  EXPECT_TRUE(identical(to.skeleton, from.skeleton));
  to.skeleton.bones[1].extras["game"]["flags"] = 4;
  EXPECT_FALSE(identical(to.skeleton, from.skeleton));
  EXPECT_FALSE(assignWithoutAnimations(to, from));
  EXPECT_EQ(to.skeleton.bones[1].extras, from.skeleton.bones[1].extras);
}

TEST(Validate, AcceptsAConsistentRig) { EXPECT_TRUE(validate(smallRig())); }

TEST(Validate, RejectsAParentThatFollowsItsChild) {
  Rig rig = smallRig();
  rig.skeleton.bones[1].parent = 2;
  auto s = validate(rig);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().path, "skeleton/bones[1]");
}

TEST(Validate, RejectsInfluenceOnMissingBoneAndBadWeights) {
  Rig rig = smallRig();
  rig.meshes[0].influences[2].bone = 9;
  EXPECT_EQ(validate(rig).error().path, "meshes[0]/influences[2]");
  rig = smallRig();
  rig.meshes[0].influences[0].weight = -0.5f;
  EXPECT_FALSE(validate(rig));
  rig = smallRig();
  rig.meshes[0].influences[0].weight = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(validate(rig));
}

// The meshes given in place of the rig's are the ones checked (the glTF exporter's copy of a rig the
// caller keeps, whose vertex arrays it reads from the caller's), on the rig's bones.
TEST(Validate, ChecksTheMeshesGivenInPlaceOfTheRigs) {
  const Rig rig = smallRig();
  std::vector<Mesh> meshes = rig.meshes;
  meshes[0].influences[2].bone = 9;
  EXPECT_EQ(validate(rig, meshes, MeshChecks::Every, AnimationChecks::Every).error().path, "meshes[0]/influences[2]");
  Rig stale = rig;
  stale.meshes = meshes;
  EXPECT_TRUE(validate(stale, rig.meshes, MeshChecks::Every, AnimationChecks::Every));
}

TEST(Validate, RejectsIndexOutOfRangeAndUnevenKeys) {
  Rig rig = smallRig();
  rig.meshes[0].indices[1] = 3;
  EXPECT_EQ(validate(rig).error().path, "meshes[0]/indices[1]");
  rig = smallRig();
  rig.animations[0].tracks[0].rotation.values.pop_back();
  EXPECT_EQ(validate(rig).error().path, "animations[0]/tracks[0]/rotation");
}

TEST(Validate, RejectsNonUnitBindRotationAndBadOffsets) {
  Rig rig = smallRig();
  rig.skeleton.bones[2].rotation = glm::quat(0.5f, 0, 0, 0);
  EXPECT_FALSE(validate(rig));
  rig = smallRig();
  rig.meshes[0].influenceOffsets.back() = 3;
  EXPECT_FALSE(validate(rig));
}

TEST(Axes, ZUpToYUpMapsUpToUpAndKeepsSkinningConsistent) {
  Rig rig = smallRig();
  std::vector<glm::vec3> before;
  for (size_t v = 0; v < 3; ++v) before.push_back(skinnedPosition(rig, v));
  toGltfAxes(rig);
  EXPECT_TRUE(rig.provenance.axes.isGltf());
  const glm::mat3 p = basisToGltf(AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::PosY, true, 1.0f});
  EXPECT_NEAR(glm::length(p * glm::vec3(0, 0, 1) - glm::vec3(0, 1, 0)), 0.0f, 1e-7f);
  EXPECT_NEAR(glm::length(p * glm::vec3(0, 1, 0) - glm::vec3(0, 0, 1)), 0.0f, 1e-7f) << "forward +Y must face glTF's +Z";
  EXPECT_NEAR(glm::determinant(p), 1.0f, 1e-7f);
  for (size_t v = 0; v < 3; ++v) {
    const glm::vec3 expected = p * before[v];
    EXPECT_NEAR(glm::length(skinnedPosition(rig, v) - expected), 0.0f, 1e-5f) << "vertex " << v;
  }
  // IBMs remain inverses of the converted world bind pose, with an exact last row.
  const auto world = rig.skeleton.worldBindMatrices();
  for (size_t b = 0; b < world.size(); ++b) {
    const glm::mat4 id = world[b] * *rig.skeleton.bones[b].inverseBind;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) EXPECT_NEAR(id[c][r], c == r ? 1.0f : 0.0f, 1e-5f);
    EXPECT_EQ((*rig.skeleton.bones[b].inverseBind)[3][3], 1.0f);
  }
}

TEST(Axes, LeftHandedAndUnitScaleAreApplied) {
  Rig rig = smallRig();
  rig.provenance.axes = AxisSystem{AxisSystem::Up::Y, AxisSystem::Axis::NegZ, false, 0.01f};  // centimetres, Direct3D (faces -Z)
  const glm::vec3 p0 = skinnedPosition(rig, 1);
  toGltfAxes(rig);
  const glm::vec3 p1 = skinnedPosition(rig, 1);
  EXPECT_NEAR(p1.x, 0.01f * p0.x, 1e-6f);
  EXPECT_NEAR(p1.y, 0.01f * p0.y, 1e-6f);
  EXPECT_NEAR(p1.z, -0.01f * p0.z, 1e-6f);
  EXPECT_NEAR(rig.animations[0].tracks[0].translation.values[1].x, 0.001f, 1e-7f);
}

// Each up/forward/handedness combination maps up to +Y and forward to +Z, and only a left-handed
// source needs a mirror (determinant -1).
TEST(Axes, EveryForwardAxisFacesGltfFront) {
  using A = AxisSystem::Axis;
  const std::pair<AxisSystem::Up, A> cases[] = {{AxisSystem::Up::Z, A::PosY}, {AxisSystem::Up::Z, A::NegY},
                                                {AxisSystem::Up::Z, A::PosX}, {AxisSystem::Up::Y, A::PosZ},
                                                {AxisSystem::Up::Y, A::NegZ}, {AxisSystem::Up::Y, A::NegX}};
  const glm::vec3 unit[] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  for (const auto& [up, forward] : cases) {
    for (bool rightHanded : {true, false}) {
      const glm::mat3 p = basisToGltf(AxisSystem{up, forward, rightHanded, 1.0f});
      const glm::vec3 upVector = up == AxisSystem::Up::Z ? glm::vec3(0, 0, 1) : glm::vec3(0, 1, 0);
      EXPECT_EQ(p * upVector, glm::vec3(0, 1, 0));
      EXPECT_EQ(p * unit[static_cast<int>(forward)], glm::vec3(0, 0, 1));
      EXPECT_EQ(glm::determinant(p), rightHanded ? 1.0f : -1.0f);
    }
  }
}

// A bone's "framePose" extras is a pose in the rig's axes: one equal to the bone's own TRS stays
// equal to it through the conversion.
TEST(Axes, FramePoseExtrasMoveWithTheBone) {
  Rig rig = smallRig();
  Bone& b = rig.skeleton.bones[3];
  b.extras = {{"framePose", {{"translation", {b.translation.x, b.translation.y, b.translation.z}},
                             {"rotation", {b.rotation.x, b.rotation.y, b.rotation.z, b.rotation.w}},
                             {"scale", {2.0f, 1.0f, 1.0f}}}}};
  b.scale = {2.0f, 1.0f, 1.0f};
  toGltfAxes(rig);
  const Bone& c = rig.skeleton.bones[3];
  const nlohmann::json& pose = c.extras["framePose"];
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(pose["translation"][k].get<float>(), c.translation[k], 1e-6f) << k;
    EXPECT_NEAR(pose["scale"][k].get<float>(), c.scale[k], 1e-6f) << k;
  }
  const glm::quat q(pose["rotation"][3].get<float>(), pose["rotation"][0].get<float>(), pose["rotation"][1].get<float>(),
                    pose["rotation"][2].get<float>());
  EXPECT_NEAR(std::fabs(glm::dot(q, c.rotation)), 1.0f, 1e-6f);
}

TEST(Axes, GltfRigIsLeftUntouched) {
  Rig rig = smallRig();
  rig.provenance.axes = AxisSystem{};
  const Rig copy = rig;
  toGltfAxes(rig);
  EXPECT_EQ(rig.meshes[0].positions, copy.meshes[0].positions);
  EXPECT_EQ(rig.skeleton.bones[0].rotation, copy.skeleton.bones[0].rotation);
}

TEST(Bind, ResolvesByIdThenHashThenNameThenPosition) {
  Rig rig = smallRig();
  rig.animations.clear();
  rig.skeleton.bones[3].nameHash = 0xABCD1234u;
  rig.skeleton.joints = {0, 1, 3, 2};
  std::vector<Animation> anims(1);
  anims[0].name = "a";
  auto track = [](BoneRef ref) {
    BoneTrack t;
    t.target = std::move(ref);
    t.rotation.times = {0};
    t.rotation.values = {glm::quat(1, 0, 0, 0)};
    return t;
  };
  anims[0].tracks.push_back(track(BoneRef{"wrong name", 5u, {}, {}}));          // id 5 -> head
  anims[0].tracks.push_back(track(BoneRef{"", {}, 0xABCD1234u, {}}));         // hash -> leg
  anims[0].tracks.push_back(track(BoneRef{"  SPINE ", {}, {}, {}}));           // loose name -> spine
  anims[0].tracks.push_back(track(BoneRef{"", {}, {}, 0u}));                   // joint position 0 -> root
  anims[0].tracks.push_back(track(BoneRef{"nobody", 77u, {}, {}}));            // unbound
  auto report = bindAnimations(rig, anims);
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(report->tracks, 5u);
  EXPECT_EQ(report->bound, 4u);
  ASSERT_EQ(report->dropped.size(), 1u);
  EXPECT_EQ(report->dropped[0].count, 1u);
  ASSERT_EQ(rig.animations.size(), 1u);
  const auto& t = rig.animations[0].tracks;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].bone, 2);
  EXPECT_EQ(t[1].bone, 3);
  EXPECT_EQ(t[2].bone, 1);
  EXPECT_EQ(t[3].bone, 0);
  ASSERT_EQ(rig.provenance.warnings.size(), 1u);
  EXPECT_EQ(rig.provenance.warnings[0].code, "unbound-track");
  EXPECT_NE(rig.provenance.warnings[0].message.find("'nobody' id 77"), std::string::npos);
}

// Tracks after a dropped one (unbound, or a second for a bone) move down in their order, each with
// its own keys.
TEST(Bind, TracksAfterADroppedOneMoveDownWithTheirKeys) {
  Rig rig = smallRig();
  rig.animations.clear();
  std::vector<Animation> anims(1);
  anims[0].name = "a";
  auto track = [](const char* name, float time) {
    BoneTrack t;
    t.target.name = name;
    t.rotation.times = {time};
    t.rotation.values = {glm::quat(1, 0, 0, 0)};
    return t;
  };
  for (auto [name, time] : {std::pair{"root", 1.0f}, {"nobody", 2.0f}, {"spine", 3.0f}, {"root", 4.0f}, {"head", 5.0f}}) {
    anims[0].tracks.push_back(track(name, time));
  }
  auto report = bindAnimations(rig, anims);
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(report->bound, 3u);
  ASSERT_EQ(rig.animations.size(), 1u);
  const auto& t = rig.animations[0].tracks;
  ASSERT_EQ(t.size(), 3u);
  const int32_t bones[] = {0, 1, 2};
  const float times[] = {1.0f, 3.0f, 5.0f};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(t[i].bone, bones[i]) << i;
    ASSERT_EQ(t[i].rotation.times.size(), 1u) << i;
    EXPECT_EQ(t[i].rotation.times[0], times[i]) << i;
  }
}

TEST(Bind, JointPositionFollowsThePaletteOrder) {
  Rig rig = smallRig();
  rig.animations.clear();
  rig.skeleton.joints = {3, 2, 1, 0};
  std::vector<Animation> anims(1);
  for (uint32_t p = 0; p < 4; ++p) {
    BoneTrack t;
    t.target.position = p;
    anims[0].tracks.push_back(t);
  }
  ASSERT_TRUE(bindAnimations(rig, anims));
  EXPECT_EQ(rig.animations[0].tracks[1].bone, 2);
}

// A Sims 3 clip names bones by FNV-32 of the lower-cased name; its RIG stores names only.
TEST(Bind, HashedTrackBindsToASkeletonThatStoresOnlyNames) {
  Rig rig = smallRig();
  rig.animations.clear();
  std::vector<Animation> anims(1);
  BoneTrack t;
  t.target.nameHash = fnv1_32Lower("Head");
  t.target.nameHashKind = HashKind::Fnv1_32Lower;
  anims[0].tracks.push_back(t);
  BoneTrack other = t;
  other.target.nameHash = fnv1_32Lower("tail");
  anims[0].tracks.push_back(other);
  auto report = bindAnimations(rig, anims);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->bound, 1u);
  ASSERT_EQ(rig.animations[0].tracks.size(), 1u);
  EXPECT_EQ(rig.animations[0].tracks[0].bone, rig.skeleton.find("head"));
}

// A clip made for 27 nodes bound by position onto 4 joints would drive unrelated bones.
TEST(Bind, PositionalClipWithAnotherNodeCountIsRefusedUnlessForced) {
  std::vector<Animation> anims(1);
  anims[0].name = "walk";
  for (uint32_t p = 0; p < 27; ++p) {
    BoneTrack t;
    t.target.position = p;
    anims[0].tracks.push_back(t);
  }
  Rig rig = smallRig();
  rig.animations.clear();
  auto refused = bindAnimations(rig, anims);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::Usage);
  EXPECT_NE(refused.error().message.find("27 nodes"), std::string::npos) << refused.error().describe();
  EXPECT_NE(refused.error().message.find("--bind-by-position"), std::string::npos);
  EXPECT_TRUE(rig.animations.empty());

  auto forced = bindAnimations(rig, anims, BindOptions{.positionAcrossCounts = true});
  ASSERT_TRUE(forced) << forced.error().describe();
  EXPECT_EQ(forced->bound, rig.skeleton.jointList().size());
  EXPECT_EQ(forced->tracks, 27u);
  ASSERT_EQ(forced->dropped.size(), 1u);
  EXPECT_EQ(forced->dropped[0].count, 27u - rig.skeleton.jointList().size());
  EXPECT_EQ(rig.provenance.warnings.size(), 1u) << "one folded warning per reason";
}

// A track resolved against one skeleton is re-resolved against the next.
TEST(Bind, TracksAreResolvedAgainAgainstEachSkeleton) {
  Rig first = smallRig();
  first.animations.clear();
  std::vector<Animation> anims(1);
  BoneTrack t;
  t.target.name = "spine";
  t.bone = 3;  // an index found against some other skeleton
  anims[0].tracks.push_back(t);
  ASSERT_TRUE(bindAnimations(first, anims));
  EXPECT_EQ(first.animations[0].tracks[0].bone, first.skeleton.find("spine"));
  Rig second = smallRig();
  second.animations.clear();
  std::swap(second.skeleton.bones[1].name, second.skeleton.bones[2].name);
  ASSERT_TRUE(bindAnimations(second, first.animations));
  EXPECT_EQ(second.animations[0].tracks[0].bone, second.skeleton.find("spine"));
  EXPECT_NE(second.animations[0].tracks[0].bone, first.animations[0].tracks[0].bone);
}

TEST(NormalizeKeys, SortsMergesDuplicatesAndKeepsQuaternionsInOneHemisphere) {
  Animation a;
  BoneTrack t;
  t.rotation.times = {0.5f, 0.0f, 0.5f, 1.0f};
  const glm::quat q = glm::angleAxis(0.2f, glm::vec3(0, 0, 1));
  t.rotation.values = {q, glm::quat(2, 0, 0, 0), q * 2.0f, -q};
  a.tracks.push_back(t);
  normalizeKeys(a);
  const auto& r = a.tracks[0].rotation;
  ASSERT_EQ(r.times, (std::vector<float>{0.0f, 0.5f, 1.0f}));
  for (const glm::quat& v : r.values) EXPECT_NEAR(glm::length(v), 1.0f, 1e-6f);
  EXPECT_GE(glm::dot(r.values[0], r.values[1]), 0.0f);
  EXPECT_GE(glm::dot(r.values[1], r.values[2]), 0.0f);
  EXPECT_NEAR(r.values[1].z, q.z, 1e-6f) << "the later of two equal-time keys wins";
}

TEST(Provenance, RepeatedWarningsAreFoldedWithACount) {
  Provenance p;
  p.warn("unknown-chunk", "x");
  p.warn("unknown-chunk", "x");
  p.warn("unknown-chunk", "y");
  ASSERT_EQ(p.warnings.size(), 2u);
  EXPECT_EQ(p.warnings[0].count, 2u);
}

TEST(Axes, ConvertingThereAndBackRestoresTheRig) {
  const Rig original = smallRig();  // Z up
  Rig rig = original;
  toGltfAxes(rig);
  convertAxes(rig, AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::PosY, true, 1.0f});
  EXPECT_EQ(rig.provenance.axes.up, AxisSystem::Up::Z);
  for (size_t v = 0; v < original.meshes[0].positions.size(); ++v) {
    EXPECT_NEAR(glm::length(rig.meshes[0].positions[v] - original.meshes[0].positions[v]), 0.0f, 1e-6f);
  }
  for (size_t b = 0; b < original.skeleton.bones.size(); ++b) {
    EXPECT_NEAR(std::fabs(glm::dot(rig.skeleton.bones[b].rotation, original.skeleton.bones[b].rotation)), 1.0f, 1e-6f);
    EXPECT_NEAR(glm::length(rig.skeleton.bones[b].translation - original.skeleton.bones[b].translation), 0.0f, 1e-6f);
  }
}

TEST(Provenance, DistinctWarningsBeyondTheCapFoldIntoOneEntryPerCode) {
  Provenance p;
  for (int i = 0; i < 100000; ++i) p.warn("unknown-chunk", "chunk " + std::to_string(i));
  p.warn("other", "x");
  ASSERT_EQ(p.warnings.size(), Provenance::kMaxListedWarnings + 2);
  const Warning& folded = p.warnings[Provenance::kMaxListedWarnings];
  EXPECT_EQ(folded.code, "unknown-chunk");
  EXPECT_EQ(folded.count, 100000u - Provenance::kMaxListedWarnings);
  EXPECT_EQ(p.warnings.back().code, "other");
}

TEST(Validate, RejectsABoneListedTwiceAsAJoint) {
  Rig rig = smallRig();
  rig.skeleton.joints = {0, 1, 1, 3};
  auto s = validate(rig);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().path, "skeleton/joints[2]");
}

// --base (core/onto.hpp): two sibling bones renamed in Blender, which lists them in the other
// order, each pair with the original's bone at its own rest place, not by position (which would
// give each the other's name and pose without a word). A bone moved under another parent is still
// refused.
TEST(Onto, RenamedSiblingsListedInAnotherOrderPairByTheirRestPlace) {
  auto bone = [](const char* name, int32_t parent, glm::vec3 t) {
    Bone b;
    b.name = name;
    b.parent = parent;
    b.translation = t;
    return b;
  };
  Skeleton original;
  original.bones = {bone("Pelvis", -1, {0, 1, 0}), bone("L Thigh", 0, {0.1f, 0, 0}), bone("R Thigh", 0, {-0.1f, 0, 0}),
                    bone("L Calf", 1, {0, -0.5f, 0}), bone("R Calf", 2, {0, -0.5f, 0})};
  Skeleton renamed;
  renamed.bones = {bone("Pelvis", -1, {0, 1, 0}), bone("thigh_r", 0, {-0.1f, 0, 0}), bone("thigh_l", 0, {0.1f, 0, 0}),
                   bone("L Calf", 2, {0, -0.5f, 0}), bone("R Calf", 1, {0, -0.5f, 0})};
  BoneStore store;
  store.countPath = "count";
  store.bonePaths = {"b0", "b1", "b2", "b3", "b4"};
  store.nameField = "/name";
  const auto match = matchBones(original, renamed, store);
  ASSERT_TRUE(match.ok()) << match.error().describe();
  EXPECT_EQ(*match, (std::vector<uint32_t>{0, 2, 1, 3, 4}));

  renamed.bones[3].parent = 1;  // 'L Calf' now under the right thigh: not a rename
  renamed.bones[4].parent = 2;
  const auto moved = matchBones(original, renamed, store);
  ASSERT_FALSE(moved.ok());
  EXPECT_NE(moved.error().describe().find("/parent"), std::string::npos) << moved.error().describe();
}

// validate()'s and repairRig()'s scans of every influence take four at a time in SSE2 lanes: each
// answer is the scalar rule's (a bone beyond the skeleton, a weight negative, infinite or NaN; -0 and
// 0 are fine), wherever the one bad influence lies, the lanes' part or the tail.
TEST(Validate, InfluenceScanLanesMatchTheScalarRule) {
  const auto scalar = [](const std::vector<Influence>& v, uint32_t bones, bool checkBones) {
    for (const Influence& inf : v) {
      if (unusableWeight(inf.weight) || (checkBones && inf.bone >= bones)) return true;
    }
    return false;
  };
  const float bad[] = {-1.0f, -1e-30f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN()};
  const float fine[] = {0.0f, -0.0f, 1e-38f, 0.5f, 1.0f, std::numeric_limits<float>::max()};
  for (size_t n : {0, 1, 3, 4, 5, 8, 13}) {
    for (size_t at = 0; at <= n; ++at) {  // at == n: every influence fine
      for (const uint32_t bones : {0u, 1u, 7u, 0x80000001u, 0xFFFFFFFFu}) {
        for (int kind = 0; kind < 8; ++kind) {
          std::vector<Influence> v;
          for (size_t i = 0; i < n; ++i) v.push_back(Influence{static_cast<uint32_t>(i % 3), fine[i % 6]});
          if (at < n && kind < 6) v[at].weight = bad[kind];
          if (at < n && kind == 6) v[at].bone = bones;
          if (at < n && kind == 7) v[at].bone = 0x80000000u;
          for (const bool checkBones : {true, false}) {
            EXPECT_EQ(anyBadInfluence(v.data(), v.size(), bones, checkBones), scalar(v, bones, checkBones))
                << n << " influences, kind " << kind << " at " << at << ", " << bones << " bones, checkBones " << checkBones;
          }
        }
      }
    }
  }
}

// mapPoints()/mapDirections() are VertexMap::point()/direction() of each vertex, bit for bit (signed
// zeros, infinities and NaN included: a 0 entry of the permutation times an infinity is NaN in
// glm's arithmetic too), in place or into another array, for every count around the lanes' four.
TEST(Axes, MapLanesMatchPointAndDirection) {
  const float values[] = {1.5f, -0.0f, 0.0f, -2.25f, std::numeric_limits<float>::infinity(), 3e-39f, std::numeric_limits<float>::quiet_NaN(), 7.0f};
  const AxisSystem systems[] = {AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::PosY, true, 1.0f},
                                AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::NegX, false, 0.0254f}};
  for (const AxisSystem& from : systems) {
    Rig probe;
    probe.provenance.axes = from;
    const std::optional<VertexMap> map = convertAxesLeavingVertices(probe, AxisSystem{});
    ASSERT_TRUE(map);
    for (size_t n = 0; n < 13; ++n) {
      std::vector<glm::vec3> in(n);
      for (size_t v = 0; v < n; ++v) in[v] = glm::vec3(values[(3 * v) % 8], values[(3 * v + 1) % 8], values[(3 * v + 5) % 8]);
      for (const bool point : {true, false}) {
        std::vector<glm::vec3> out(n), inPlace = in;
        (point ? mapPoints : mapDirections)(*map, in.data(), out.data(), n);
        (point ? mapPoints : mapDirections)(*map, inPlace.data(), inPlace.data(), n);
        for (size_t v = 0; v < n; ++v) {
          const glm::vec3 expected = point ? map->point(in[v]) : map->direction(in[v]);
          EXPECT_EQ(std::memcmp(&out[v], &expected, sizeof expected), 0) << n << " vertices, vertex " << v << (point ? " point" : " direction");
          EXPECT_EQ(std::memcmp(&inPlace[v], &expected, sizeof expected), 0) << n << " vertices, vertex " << v << " in place";
        }
      }
    }
  }
}
