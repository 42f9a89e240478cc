// comparePoses() (core/compare.hpp), the library under `rigport compare`: two rigs measured as a
// glTF client poses them. The fixture is the demo character (27 bones, a skinned body, a 1 s walk
// keyed at 30 fps on 15 bones) and copies of it with one thing broken; each test says which fact of
// the comparison it pins. Identical rigs are 0 apart; each break must exceed the default tolerance
// and be reported at the right clip, time and bone.
#include <gtest/gtest.h>

#include <glm/gtc/matrix_transform.hpp>

#include <initializer_list>

#include <algorithm>
#include <bit>
#include <limits>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/assemble.hpp"
#include "core/axes.hpp"
#include "core/compare.hpp"
#include "core/pose.hpp"
#include "core/vertex_lanes.hpp"
#include "platform/files.hpp"
#include "core/hash.hpp"
#include "core/repair.hpp"
#include "demo/character.hpp"
#include "export/gltf.hpp"
#include "formats/registry.hpp"
#include "support/gltf_validator.hpp"
#include "support/random_rig.hpp"
#include "support/skin_faults.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

const Measure& measure(const Comparison& c, const std::string& name) {
  for (const Measure& m : c.measures) {
    if (m.name == name) return m;
  }
  ADD_FAILURE() << "no measure " << name;
  static const Measure none;
  return none;
}

BoneTrack& trackOf(Rig& rig, const std::string& bone) {
  for (BoneTrack& t : rig.animations.front().tracks) {
    if (t.bone == rig.skeleton.find(bone)) return t;
  }
  ADD_FAILURE() << "no track for " << bone;
  return rig.animations.front().tracks.front();
}

// Whether the bone named `name` is `ancestor` or lies below it.
bool isSelfOrBelow(const Skeleton& sk, const std::string& name, const std::string& ancestor) {
  for (int32_t b = sk.find(name); b >= 0; b = sk.bones[static_cast<size_t>(b)].parent) {
    if (sk.bones[static_cast<size_t>(b)].name == ancestor) return true;
  }
  return false;
}

void expectEveryMeasureWithin(const Comparison& c, double limit) {
  for (const Measure& m : c.measures) {
    EXPECT_GT(m.compared, 0u) << m.name;
    EXPECT_LE(m.worst, limit) << m.name;
  }
}

// What `convert` hands the exporter: the file read, its --anim clips bound, repaired.
Rig readAsConvertDoes(const std::string& path, const std::vector<std::string>& anims) {
  auto asset = loadAsset(path);
  EXPECT_TRUE(asset.ok()) << path << ": " << asset.error().describe();
  std::vector<ClipSet> clips;
  for (const std::string& a : anims) {
    auto clipAsset = loadAsset(a);
    EXPECT_TRUE(clipAsset.ok()) << a;
    for (ClipSet& c : clipAsset->clips) clips.push_back(std::move(c));
  }
  auto rigs = assemble(std::move(*asset), clips, nullptr, {});
  EXPECT_TRUE(rigs.ok() && rigs->size() == 1) << path;
  Rig rig = std::move(rigs->front().rig);
  EXPECT_TRUE(repairRig(rig).ok());
  return rig;
}

}  // namespace

// Fact: a rig compared with itself is 0 apart on every measure, with every bone, vertex and the one
// clip matched and sampled beyond its 31 key times (the grid and the midpoints between).
TEST(Compare, IdenticalRigsAreZeroApartEverywhere) {
  const Rig rig = makeDemoCharacter();
  const Comparison c = comparePoses(rig, rig);
  for (const Measure& m : c.measures) {
    EXPECT_EQ(m.worst, 0.0) << m.name;
    EXPECT_GT(m.compared, 0u) << m.name;
  }
  EXPECT_TRUE(c.unmatched.empty());
  EXPECT_EQ(c.bones, rig.skeleton.bones.size());
  EXPECT_EQ(c.meshes, 1u);
  EXPECT_EQ(c.vertices, rig.vertexCount());
  ASSERT_EQ(c.clips.size(), 1u);
  EXPECT_TRUE(c.clips[0].byName);
  EXPECT_EQ(c.clips[0].samples, 61u) << "31 key times on the 30 Hz grid and the 30 midpoints between them";
  EXPECT_GT(c.modelSize, 1.5);  // a figure about 1.8 m tall
  EXPECT_LT(c.modelSize, 3.0);
  EXPECT_DOUBLE_EQ(c.defaultTolerance(), kDefaultToleranceOfSize * c.modelSize);
}

// Two rigs with the same vertices and weights, one joint's inverse bind matrix apart (what a writer
// that garbles a skin's matrices leaves): the joints are where they were, the vertices it carries
// are not, at rest and in the clip; both sides are posed at once there (Pose::verticesWith).
TEST(Compare, AnInverseBindApartMovesTheVerticesAlone) {
  const Rig rig = makeDemoCharacter();
  const Rig other = test::withInverseBindMoved(rig, "spine_03", glm::vec3(0.0f, 0.05f, 0.0f));
  const Comparison c = comparePoses(rig, other);
  EXPECT_EQ(measure(c, "rest joints").worst, 0.0);
  EXPECT_EQ(measure(c, "clip joints").worst, 0.0);
  EXPECT_NEAR(measure(c, "bind vertices").worst, 0.05, 1e-4);
  EXPECT_NEAR(measure(c, "clip vertices").worst, 0.05, 1e-2);
}

// provablyWithin() never shows within what comparePoses() finds beyond: the demo character without
// its clip against copies whose skeleton is moved by noise of sizes from nothing to well beyond the
// tolerance (a bone's translation and rotation, a joint's inverse bind matrix), at three precisions;
// and it shows within where the two are the same or float noise apart, as a file read back is.
TEST(Compare, WithinIsShownOnlyWhereTheComparisonFindsIt) {
  Rig rig = makeDemoCharacter();
  rig.animations.clear();
  std::mt19937 random(41);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  size_t shown = 0, tried = 0;
  for (const float noise : {0.0f, 1e-7f, 1e-6f, 1e-5f, 1e-4f, 1e-3f, 1e-2f}) {
    for (int round = 0; round < 6; ++round) {
      Rig other = rig;
      for (Bone& bone : other.skeleton.bones) {
        bone.translation += glm::vec3(unit(random), unit(random), unit(random)) * noise;
        bone.rotation = glm::normalize(bone.rotation + glm::quat(unit(random), unit(random), unit(random), unit(random)) * noise);
      }
      if (round % 2 == 1) {
        Bone& bone = other.skeleton.bones[static_cast<size_t>(random() % other.skeleton.bones.size())];
        const size_t index = static_cast<size_t>(&bone - other.skeleton.bones.data());
        const std::optional<glm::mat4> ibm = bone.inverseBind ? bone.inverseBind : inverseOfBindPose(rig.skeleton.worldBindMatrices()[index]);
        ASSERT_TRUE(ibm);
        bone.inverseBind = glm::translate(glm::mat4(1.0f), glm::vec3(unit(random), unit(random), unit(random)) * noise * 10.0f) * *ibm;
      }
      const Comparison c = comparePoses(rig, other);
      for (const double ofSize : {1e-4, 1e-5, 1e-6}) {
        ++tried;
        const bool within = provablyWithin(rig, other, ofSize);
        // Float noise against the DFF's precision is shown (a file read back is 1e-6 apart at most).
        if (noise <= 1e-7f && ofSize == 1e-4) EXPECT_TRUE(within) << "noise " << noise << ", round " << round;
        if (!within) continue;
        ++shown;
        for (const Measure& m : c.measures) EXPECT_LE(m.worst, c.tolerance(ofSize)) << m.name << ", noise " << noise << ", of size " << ofSize;
      }
    }
  }
  EXPECT_LT(shown, tried / 2);
  EXPECT_TRUE(provablyWithin(rig, rig, kDefaultToleranceOfSize));
  // Not shown: a clip, a vertex apart, a NaN in a skeleton.
  EXPECT_FALSE(provablyWithin(makeDemoCharacter(), makeDemoCharacter(), kDefaultToleranceOfSize));
  Rig moved = rig;
  moved.meshes[0].positions[3].x += 1e-6f;
  EXPECT_FALSE(provablyWithin(rig, moved, kDefaultToleranceOfSize));
  Rig broken = rig;
  broken.skeleton.bones[2].translation.y = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(provablyWithin(rig, broken, kDefaultToleranceOfSize));
}

// Fact: both rigs are posed in glTF's axes, so the same character stored Z-up in centimetres (as a
// game file would hold it) compares equal to the Y-up metre original.
TEST(Compare, TheSameRigInOtherAxesAndUnitsIsTheSame) {
  const Rig rig = makeDemoCharacter();
  Rig zUp = rig;
  convertAxes(zUp, AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::PosY, true, 0.01f});
  ASSERT_GT(std::fabs(zUp.meshes[0].positions[0].z - rig.meshes[0].positions[0].z), 0.01f) << "the copy really is in other axes";
  const Comparison c = comparePoses(rig, zUp);
  expectEveryMeasureWithin(c, 1e-5);
  EXPECT_TRUE(c.unmatched.empty());
}

// Fact: a joint moved 1 cm in the rest pose is reported at that joint (not at the children it carries
// along), 1 cm off, and moves the vertices it binds (the inverse bind matrices are the file's own).
TEST(Compare, AMovedJointIsNamedWithItsDistance) {
  const Rig rig = makeDemoCharacter();
  Rig moved = rig;
  moved.skeleton.bones[static_cast<size_t>(moved.skeleton.find("spine_02"))].translation += glm::vec3(0.01f, 0.0f, 0.0f);
  const Comparison c = comparePoses(rig, moved);
  const Measure& rest = measure(c, "rest joints");
  EXPECT_NEAR(rest.worst, 0.01, 1e-6);
  EXPECT_EQ(rest.where.bone, "spine_02");
  EXPECT_FALSE(rest.where.time.has_value());
  EXPECT_GT(rest.worst, c.defaultTolerance());
  EXPECT_NEAR(measure(c, "bind vertices").worst, 0.01, 1e-6);
  EXPECT_EQ(measure(c, "clip joints").where.bone, "spine_02") << "unkeyed, it stays moved in the clip";
}

// Fact: two tracks swapped (the thighs') leave the rest pose alone and put the clip's legs elsewhere,
// reported in that clip at a thigh or below it.
TEST(Compare, SwappedTracksAreFoundInTheClip) {
  const Rig rig = makeDemoCharacter();
  Rig swapped = rig;
  std::swap(trackOf(swapped, "thigh_l").rotation, trackOf(swapped, "thigh_r").rotation);
  const Comparison c = comparePoses(rig, swapped);
  EXPECT_EQ(measure(c, "rest joints").worst, 0.0);
  EXPECT_EQ(measure(c, "bind vertices").worst, 0.0);
  const Measure& joints = measure(c, "clip joints");
  EXPECT_GT(joints.worst, 0.05) << "legs swinging in opposite phase";
  EXPECT_EQ(joints.where.clip, "walk");
  EXPECT_TRUE(isSelfOrBelow(rig.skeleton, joints.where.bone, "thigh_l") || isSelfOrBelow(rig.skeleton, joints.where.bone, "thigh_r"))
      << joints.where.bone;
  EXPECT_GT(measure(c, "clip vertices").worst, c.defaultTolerance());
}

// Fact: a dropped key is found at its own time: the left thigh interpolates across the gap, and
// linear interpolation is furthest from the dropped value exactly where it was (key 7, near the
// swing's turn, where the curve bends most); the worst joint is the thigh or a bone it carries.
TEST(Compare, ADroppedKeyIsReportedAtItsTime) {
  const Rig rig = makeDemoCharacter();
  Rig dropped = rig;
  Keys<glm::quat>& thigh = trackOf(dropped, "thigh_l").rotation;
  const float droppedTime = thigh.times[7];
  thigh.times.erase(thigh.times.begin() + 7);
  thigh.values.erase(thigh.values.begin() + 7);
  const Comparison c = comparePoses(rig, dropped);
  const Measure& joints = measure(c, "clip joints");
  EXPECT_GT(joints.worst, c.defaultTolerance());
  EXPECT_EQ(joints.where.clip, "walk");
  EXPECT_TRUE(isSelfOrBelow(rig.skeleton, joints.where.bone, "thigh_l")) << joints.where.bone;
  ASSERT_TRUE(joints.where.time.has_value());
  EXPECT_EQ(*joints.where.time, droppedTime);
  const Measure& vertices = measure(c, "clip vertices");
  EXPECT_GT(vertices.worst, c.defaultTolerance());
  ASSERT_TRUE(vertices.where.time.has_value());
  EXPECT_EQ(*vertices.where.time, droppedTime);
  EXPECT_EQ(measure(c, "rest joints").worst, 0.0);
}

// Fact: each side is sampled by its own interpolation: the same keys as STEP differ from LINEAR
// between keys. The keys lie on the 30 Hz grid, so only the midpoints between sample times show it.
TEST(Compare, StepAgainstLinearOnTheSameKeysDiffersBetweenKeys) {
  const Rig rig = makeDemoCharacter();
  Rig stepped = rig;
  Keys<glm::quat>& head = trackOf(stepped, "head").rotation;
  head.interpolation = Interpolation::Step;
  const std::vector<float> keyTimes = head.times;
  const Comparison c = comparePoses(rig, stepped);
  const Measure& joints = measure(c, "clip joints");
  EXPECT_GT(joints.worst, c.defaultTolerance());
  EXPECT_EQ(joints.where.bone, "head");
  ASSERT_TRUE(joints.where.time.has_value());
  EXPECT_EQ(std::find(keyTimes.begin(), keyTimes.end(), *joints.where.time), keyTimes.end()) << "at a key both sides agree";
  EXPECT_GT(measure(c, "clip vertices").worst, c.defaultTolerance());
}

// Fact: a clip that only one side has is listed as unmatched (a difference), and nothing is sampled.
TEST(Compare, AMissingClipIsListed) {
  const Rig rig = makeDemoCharacter();
  Rig still = rig;
  still.animations.clear();
  const Comparison c = comparePoses(rig, still);
  ASSERT_EQ(c.unmatched.size(), 1u);
  EXPECT_EQ(c.unmatched[0].kind, Unmatched::Kind::Clip);
  EXPECT_TRUE(c.unmatched[0].inFirst);
  EXPECT_EQ(c.unmatched[0].name, "walk");
  EXPECT_EQ(measure(c, "clip joints").compared, 0u);
  EXPECT_EQ(measure(c, "rest joints").worst, 0.0);
}

// Fact: the only clip of each side is compared whatever its name, and a note says so.
TEST(Compare, TheOnlyClipOfEachSideIsPairedDespiteItsName) {
  const Rig rig = makeDemoCharacter();
  Rig renamed = rig;
  renamed.animations[0].name = "walk_edited";
  const Comparison c = comparePoses(rig, renamed);
  EXPECT_TRUE(c.unmatched.empty());
  ASSERT_EQ(c.clips.size(), 1u);
  EXPECT_FALSE(c.clips[0].byName);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("walk_edited"), std::string::npos) << c.notes[0];
  EXPECT_EQ(measure(c, "clip joints").worst, 0.0);
}

// Fact: bones match by name, else by id, else by name hash; a bone with none of them in common is
// missing on both sides.
TEST(Compare, BonesMatchByNameThenIdThenHash) {
  const Rig rig = makeDemoCharacter();
  const size_t head = static_cast<size_t>(rig.skeleton.find("head"));
  Rig byId = rig;
  byId.skeleton.bones[head].name = "Head";  // renamed, same id
  Comparison c = comparePoses(rig, byId);
  EXPECT_TRUE(c.unmatched.empty());
  EXPECT_EQ(c.bones, rig.skeleton.bones.size());

  Rig byHash = byId;
  byHash.skeleton.bones[head].id.reset();
  byHash.skeleton.bones[head].name = "bone_1234";
  byHash.skeleton.bones[head].nameHash = fnv1_32Lower("HEAD");
  byHash.skeleton.bones[head].nameHashKind = HashKind::Fnv1_32Lower;
  c = comparePoses(rig, byHash);
  EXPECT_TRUE(c.unmatched.empty());
  EXPECT_EQ(measure(c, "clip joints").worst, 0.0);

  Rig lost = byHash;
  lost.skeleton.bones[head].nameHash.reset();
  c = comparePoses(rig, lost);
  ASSERT_EQ(c.unmatched.size(), 2u);
  EXPECT_EQ(c.unmatched[0].name, "head");
  EXPECT_TRUE(c.unmatched[0].inFirst);
  EXPECT_EQ(c.unmatched[1].name, "bone_1234");
  EXPECT_FALSE(c.unmatched[1].inFirst);
  EXPECT_EQ(c.bones, rig.skeleton.bones.size() - 1);
}

// `rig` with a bone that is no joint put first, named as its root bone and 0.4 m away: Blender's
// armature object, which it names after the root bone it imported (writer_corpus_test's Z-up export).
Rig withArmatureNamedLikeTheRoot(const Rig& rig) {
  Rig out = rig;
  Bone armature;
  armature.name = rig.skeleton.bones.front().name;
  armature.translation = glm::vec3(0.0f, 0.4f, 0.0f);
  auto& bones = out.skeleton.bones;
  for (Bone& b : bones) b.parent += b.parent >= 0 ? 1 : 0;
  bones.insert(bones.begin(), armature);
  out.skeleton.joints.clear();
  for (uint32_t j = 1; j < bones.size(); ++j) out.skeleton.joints.push_back(j);
  for (Mesh& m : out.meshes)
    for (Influence& i : m.influences) ++i.bone;
  for (Animation& a : out.animations)
    for (BoneTrack& t : a.tracks) t.bone += t.bone >= 0 ? 1 : 0;
  return out;
}

// Fact: a name on two bones of one side (the armature node and the joint 'root') and on one of the
// other (a writer renamed the node 'root_2' or dropped it) pairs the joints; before, the node came
// first and was paired with the joint: 0.4 m "off" at a root the writer had kept exactly.
TEST(Compare, ANameOnMoreBonesOfOneSidePairsJointWithJoint) {
  const Rig rig = makeDemoCharacter();
  const Rig blender = withArmatureNamedLikeTheRoot(rig);
  Rig renamed = blender;
  renamed.skeleton.bones.front().name += "_2";
  for (const Rig* other : std::initializer_list<const Rig*>{&rig, &renamed}) {
    const Comparison c = comparePoses(blender, *other);
    EXPECT_LT(measure(c, "rest joints").worst, 1e-6);
    EXPECT_LT(measure(c, "clip joints").worst, 1e-6);
    const Comparison back = comparePoses(*other, blender);
    EXPECT_LT(measure(back, "rest joints").worst, 1e-6);
  }
}

// Fact: a mesh with fewer vertices, or a mesh only one side has, is listed with its count.
TEST(Compare, MissingVerticesAndMeshesAreListed) {
  const Rig rig = makeDemoCharacter();
  Rig shorter = rig;
  Mesh& body = shorter.meshes[0];
  body.positions.resize(body.positions.size() - 5);
  body.normals.resize(body.positions.size());
  body.uvs.resize(std::min(body.uvs.size(), body.positions.size()));
  body.influenceOffsets.resize(body.positions.size() + 1);
  Mesh prop;
  prop.name = "prop";
  shorter.meshes.push_back(prop);
  const Comparison c = comparePoses(rig, shorter);
  ASSERT_EQ(c.unmatched.size(), 2u);
  EXPECT_EQ(c.unmatched[0].kind, Unmatched::Kind::Vertices);
  EXPECT_TRUE(c.unmatched[0].inFirst);
  EXPECT_EQ(c.unmatched[0].count, 5u);
  EXPECT_EQ(c.unmatched[1].kind, Unmatched::Kind::Mesh);
  EXPECT_FALSE(c.unmatched[1].inFirst);
  EXPECT_EQ(c.unmatched[1].name, "prop");
  EXPECT_EQ(c.vertices, rig.vertexCount() - 5);
}

// Fact: meshes on one side only (a skeleton file against the model, as `convert --to` a skeleton
// format reads back) are listed, either way round, and posing each side stays within its own meshes.
TEST(Compare, MeshesOfOneSideOnlyAreListedEitherWay) {
  const Rig rig = makeDemoCharacter();
  Rig skeleton = rig;
  skeleton.meshes.clear();
  for (const bool modelFirst : {true, false}) {
    const Comparison c = modelFirst ? comparePoses(rig, skeleton) : comparePoses(skeleton, rig);
    ASSERT_EQ(c.unmatched.size(), rig.meshes.size());
    EXPECT_EQ(c.unmatched[0].kind, Unmatched::Kind::Mesh);
    EXPECT_EQ(c.unmatched[0].inFirst, modelFirst);
    EXPECT_EQ(c.vertices, 0u);
    EXPECT_GE(c.modelSize, comparePoses(rig, rig).modelSize);  // the larger of the vertices' box and the joints'
  }
}

// Fact (the workflow users run): the RenderWare sample with its .anm, exported to .glb (which the
// glTF-Validator accepts) and read back, poses within 1e-5 m of the game file on every measure.
TEST(Compare, RenderwareSampleAgainstItsOwnGlbIsWithin1e5) {
  const Rig dff = readAsConvertDoes(test::sample("renderware/synthetic_skin_rw36003.dff"), {test::sample("renderware/synthetic_skin_rw36003.anm")});
  ASSERT_FALSE(dff.animations.empty());
  auto glb = exportGlb(dff);
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  const std::string path = test::scratchDir("compare_rw_glb") + "/ped.glb";
  ASSERT_TRUE(platform::writeFileAtomic(path, *glb).ok());
  const test::ValidatorRun validator = test::validateGltfFile(path);
  EXPECT_TRUE(validator.ok) << validator.output;
  const Rig back = readAsConvertDoes(path, {});
  const Comparison c = comparePoses(dff, back);
  expectEveryMeasureWithin(c, 1e-5);
  EXPECT_TRUE(c.unmatched.empty());
  ASSERT_EQ(c.clips.size(), 1u);
  EXPECT_GT(c.vertices, 0u);
}

// Pose::vertex skins in SSE2 lanes where the build has them: each vertex must be bit for bit the
// scalar rule (glm's matrix times vector, widened, weighted and summed in double, divided by the
// weights' sum), also where weights are skipped (zero, negative, a bone out of range) and where
// none is left (the shallowest joint carries the vertex).
TEST(Pose, SkinningLanesMatchTheScalarRule) {
  std::mt19937 random(11);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  Rig rig;
  for (int b = 0; b < 12; ++b) {
    Bone bone;
    bone.name = "b" + std::to_string(b);
    bone.parent = b == 0 ? -1 : static_cast<int32_t>(random() % static_cast<uint32_t>(b));
    bone.translation = glm::vec3(unit(random), unit(random), unit(random)) * 3.0f;
    bone.rotation = glm::normalize(glm::quat(unit(random), unit(random), unit(random), unit(random)));
    bone.scale = glm::vec3(1.5f + unit(random), 1.5f + unit(random), 1.5f + unit(random));
    glm::mat4 ibm(1.0f);
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 3; ++r) ibm[c][r] = unit(random) * 2.0f;
    bone.inverseBind = ibm;  // its last row 0, 0, 0, 1, as the exporter writes it
    rig.skeleton.bones.push_back(bone);
  }
  Mesh& mesh = rig.meshes.emplace_back();
  mesh.influenceOffsets.push_back(0);
  for (int v = 0; v < 2000; ++v) {
    mesh.positions.emplace_back(unit(random) * 5.0f, unit(random) * 5.0f, unit(random) * 5.0f);
    const uint32_t count = random() % 7;
    for (uint32_t i = 0; i < count; ++i) mesh.influences.push_back(Influence{static_cast<uint32_t>(random() % 13), unit(random) * 0.6f + 0.4f});
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
  const Pose pose(rig);
  size_t skipped = 0, unweighted = 0;
  for (size_t v = 0; v < mesh.positions.size(); ++v) {
    const glm::vec4 p(mesh.positions[v], 1.0f);
    glm::dvec3 sum(0.0);
    double weight = 0.0;
    for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) {
      const Influence& inf = mesh.influences[i];
      if (inf.bone >= rig.skeleton.bones.size() || !(inf.weight > 0.0f)) {
        ++skipped;
        continue;
      }
      const glm::mat4 skin = pose.jointWorld()[inf.bone] * *rig.skeleton.bones[inf.bone].inverseBind;
      sum += static_cast<double>(inf.weight) * glm::dvec3(glm::vec3(skin * p));
      weight += inf.weight;
    }
    const glm::vec3 expected = weight > 0.0 ? glm::vec3(sum / weight) : glm::vec3(pose.jointWorld()[0] * *rig.skeleton.bones[0].inverseBind * p);
    if (!(weight > 0.0)) ++unweighted;
    const glm::vec3 got = pose.vertex(0, v);
    ASSERT_EQ(got.x, expected.x) << "vertex " << v;
    ASSERT_EQ(got.y, expected.y) << "vertex " << v;
    ASSERT_EQ(got.z, expected.z) << "vertex " << v;
  }
  EXPECT_GT(skipped, 100u);
  EXPECT_GT(unweighted, 100u);
}

// Pose::vertices() poses a block of a mesh as Pose::vertex() poses each vertex, bit for bit: in AVX2
// lanes where the CPU has them, with influences that all count and with some that are skipped (a
// bone beyond the skeleton, a weight of -0); a mesh with shape keys and one riding a bone go vertex
// by vertex.
TEST(Pose, BlockPosingIsVertexByVertex) {
  std::mt19937 random(23);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  Rig rig;
  rig.skeleton = test::randomSkeleton(random, 9);
  const auto skinned = [&](bool usable, size_t vertices) {
    Mesh& mesh = rig.meshes.emplace_back();
    mesh.influenceOffsets.push_back(0);
    for (size_t v = 0; v < vertices; ++v) {
      mesh.positions.emplace_back(unit(random) * 4.0f, unit(random) * 4.0f, unit(random) * 4.0f);
      const uint32_t count = 1 + random() % 5;
      for (uint32_t i = 0; i < count; ++i) {
        Influence inf{static_cast<uint32_t>(random() % 9), unit(random) * 0.3f + 0.6f};
        if (!usable && random() % 9 == 0) inf = random() % 2 ? Influence{11, 0.5f} : Influence{inf.bone, -0.0f};
        mesh.influences.push_back(inf);
      }
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
    return &mesh;
  };
  skinned(true, 700);
  skinned(false, 700);
  Mesh* shaped = skinned(true, 300);
  shaped->morphTargets.resize(1);
  shaped->morphTargets[0].positionDeltas.assign(300, glm::vec3(0.1f, 0.0f, -0.2f));
  shaped->morphWeights = {0.5f};
  Mesh& rider = rig.meshes.emplace_back();
  rider.attachBone = 4;
  for (int v = 0; v < 50; ++v) rider.positions.emplace_back(unit(random), unit(random), unit(random));
  const Pose pose(rig);  // not a valid rig (bone 11 of 9): posing skips what it cannot use
  for (size_t m = 0; m < rig.meshes.size(); ++m) {
    const size_t n = rig.meshes[m].vertexCount();
    for (const size_t block : {size_t{1}, size_t{7}, size_t{256}, n}) {
      std::vector<glm::vec3> got(n);
      for (size_t first = 0; first < n; first += block) pose.vertices(m, first, std::min(block, n - first), got.data() + first);
      for (size_t v = 0; v < n; ++v) {
        const glm::vec3 expected = pose.vertex(m, v);
        ASSERT_EQ(std::memcmp(&got[v], &expected, sizeof expected), 0) << "mesh " << m << " vertex " << v << " blocks of " << block;
      }
    }
  }
}

// Pose::verticesWith() poses a mesh of two rigs as each rig's Pose::vertices() does, bit for bit: in
// one pass (AVX2 lanes, where the CPU has them) where both meshes have the same positions and
// influences, the skeletons apart (a rig and the file written from it, read back), with influences
// skipped (a bone beyond the skeleton, a weight of -0) and vertices without one; each on its own where
// a vertex of the block differs or a shape key moves one side.
TEST(Pose, PosingTwoRigsAtOnceIsPosingEach) {
  std::mt19937 random(31);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  Rig a;
  a.skeleton = test::randomSkeleton(random, 10);
  for (int m = 0; m < 3; ++m) {
    Mesh& mesh = a.meshes.emplace_back();
    mesh.influenceOffsets.push_back(0);
    for (size_t v = 0; v < 900; ++v) {
      mesh.positions.emplace_back(unit(random) * 4.0f, unit(random) * 4.0f, unit(random) * 4.0f);
      const uint32_t count = random() % 6;  // 0: the vertex rides on the shallowest joint
      for (uint32_t i = 0; i < count; ++i) {
        Influence inf{static_cast<uint32_t>(random() % 10), unit(random) * 0.3f + 0.6f};
        if (random() % 9 == 0) inf = random() % 2 ? Influence{12, 0.5f} : Influence{inf.bone, -0.0f};
        mesh.influences.push_back(inf);
      }
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
  }
  Rig b = a;  // its joints a little apart, as a file's stored matrices put them
  for (Bone& bone : b.skeleton.bones) {
    bone.translation += glm::vec3(unit(random), unit(random), unit(random)) * 1e-3f;
    bone.rotation = glm::normalize(bone.rotation + glm::quat(unit(random), unit(random), unit(random), unit(random)) * 1e-3f);
  }
  b.meshes[1].positions[600].x += 0.25f;  // the blocks holding vertex 600 go side by side
  b.meshes[2].morphTargets.resize(1);
  b.meshes[2].morphTargets[0].positionDeltas.assign(900, glm::vec3(0.1f, 0.0f, -0.2f));
  b.meshes[2].morphWeights = {0.5f};
  const Pose pa(a), pb(b);  // not valid rigs (bone 12 of 10): posing skips what it cannot use
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    const size_t n = a.meshes[m].vertexCount();
    std::vector<glm::vec3> expectedA(n), expectedB(n);
    pa.vertices(m, 0, n, expectedA.data());
    pb.vertices(m, 0, n, expectedB.data());
    for (const size_t block : {size_t{1}, size_t{7}, size_t{256}, n}) {
      std::vector<glm::vec3> gotA(n), gotB(n);
      for (size_t first = 0; first < n; first += block) pa.verticesWith(pb, m, first, std::min(block, n - first), gotA.data() + first, gotB.data() + first);
      ASSERT_EQ(std::memcmp(gotA.data(), expectedA.data(), n * sizeof(glm::vec3)), 0) << "mesh " << m << " blocks of " << block;
      ASSERT_EQ(std::memcmp(gotB.data(), expectedB.data(), n * sizeof(glm::vec3)), 0) << "mesh " << m << " blocks of " << block;
    }
    EXPECT_NE(std::memcmp(expectedA.data(), expectedB.data(), n * sizeof(glm::vec3)), 0) << "mesh " << m << ": the two sides pose apart";
  }
}

#if RIGPORT_SSE2_LANES
// compare's rest box grows in SSE2 lanes (lanes::growBox<true>): the scalar rule, std::isfinite
// vertices only, glm::min and glm::max in vertex order, bit for bit, signed zeros included (no NaN
// can reach the box: the vertices holding one are left out, and it starts at +inf, -inf).
TEST(Compare, TheRestBoxLanesLeaveOutWhatIsNotFiniteAsTheScalarRule) {
  const float values[] = {1.5f, -0.0f, 0.0f, -2.25f, std::numeric_limits<float>::infinity(), 3e-39f,
                          std::numeric_limits<float>::quiet_NaN(), -7.0f, -std::numeric_limits<float>::infinity(), 4.0f};
  for (size_t n = 0; n < 13; ++n) {
    for (size_t shift = 0; shift < 10; ++shift) {
      std::vector<glm::vec3> p(n);
      for (size_t v = 0; v < n; ++v) p[v] = glm::vec3(values[(v + shift) % 10], values[(3 * v + shift + 1) % 10], values[(7 * v + shift + 2) % 10]);
      glm::vec3 lo(std::numeric_limits<float>::infinity()), hi(-std::numeric_limits<float>::infinity());
      glm::vec3 laneLo = lo, laneHi = hi;
      for (const glm::vec3& v : p) {
        if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) continue;
        lo = glm::min(lo, v);
        hi = glm::max(hi, v);
      }
      lanes::growBox<true>(p.data(), p.size(), laneLo, laneHi);
      for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(std::bit_cast<uint32_t>(laneLo[k]), std::bit_cast<uint32_t>(lo[k])) << n << " vertices, shift " << shift << ", lo " << k;
        EXPECT_EQ(std::bit_cast<uint32_t>(laneHi[k]), std::bit_cast<uint32_t>(hi[k])) << n << " vertices, shift " << shift << ", hi " << k;
      }
    }
  }
}
#endif
