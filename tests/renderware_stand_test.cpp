// A GTA ped as a client sees the .glb (issue 26, "RenderWare"): standing, facing +Z, feet on the
// ground. Every fixture is a small synthetic ped written by rigport's own DFF writer (and patched
// where the writer would not produce the fact) or an IFP from tests/support; each test names the
// fact of a real file it reproduces. glTF nodes, inverse bind matrices, skinned vertices and
// sampled clips are evaluated from the written file (support/gltf_pose.hpp), and every .glb passes
// the Khronos validator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>

#include "core/decompose.hpp"
#include "core/repair.hpp"
#include "core/rest_pose.hpp"
#include "export/gltf.hpp"
#include "formats/renderware/axes.hpp"
#include "formats/registry.hpp"
#include "formats/renderware/renderware.hpp"
#include "support/gltf_pose.hpp"
#include "support/gltf_validator.hpp"
#include "support/ifp_builder.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

// The SA ped: its HAnim root "Normal" is turned by (x, y, z, w) = (-0.5, -0.5, -0.5, 0.5),
// 120° about (-1, -1, -1): RenderWare's up (Z) turns to Y, so a ped posed by its frames lies on its face.
const glm::quat kNormalTurn(0.5f, -0.5f, -0.5f, -0.5f);

// The ped, standing in RenderWare axes (Z up, facing +Y): the pelvis at the origin, as a GTA ped's
// origin is, the toes 1 m below it and 0.15 m ahead of the foot. Each bone's world rotation is
// some turn of its own (GTA bones point along their limbs), except Normal's and Pelvis' (0 and 1).
struct PedBone {
  const char* name;
  int32_t parent;
  glm::vec3 at;
};
const PedBone kPed[] = {{"Normal", -1, {0, 0, 0}},        {"Pelvis", 0, {0, 0, 0}},        {"Spine", 1, {0, 0, 0.3f}},
                            {"Head", 2, {0, 0, 0.7f}},        {"L Thigh", 1, {0.1f, 0, -0.05f}}, {"L Calf", 4, {0.1f, 0, -0.5f}},
                            {"L Foot", 5, {0.1f, 0, -0.95f}}, {"L Toe0", 6, {0.1f, 0.15f, -1.0f}}};
constexpr size_t kBones = sizeof(kPed) / sizeof(kPed[0]);

std::vector<glm::mat4> standingWorld(const glm::quat& normal) {
  std::vector<glm::mat4> world;
  for (size_t b = 0; b < kBones; ++b) {
    const glm::quat own = b == 0 ? normal : b == 1 ? glm::quat(1, 0, 0, 0)
                                                   : glm::angleAxis(glm::radians(25.0f * static_cast<float>(b)), glm::normalize(glm::vec3(1, 2, 3)));
    world.push_back(glm::translate(glm::mat4(1.0f), kPed[b].at) * glm::mat4_cast(own));
  }
  return world;
}

// The standing ped turned whole by `turn` (the frames of a ped posed lying down).
std::vector<glm::mat4> turnedWorld(const glm::quat& turn) {
  std::vector<glm::mat4> world = standingWorld(glm::quat(1, 0, 0, 0));
  for (glm::mat4& m : world) m = glm::mat4_cast(turn) * m;
  return world;
}

// A rig in RenderWare axes whose frames (bone TRS) give world `frames`, whose skin binds to
// `standing` (inverse bind = inverse(standing)), with one vertex per bone at its standing place,
// bound to it alone. `clumpRoot`: a non-joint frame 0 "Clump" above Normal, turned by `clumpTurn`.
Rig pedRig(const std::vector<glm::mat4>& frames, const std::vector<glm::mat4>& standing, bool clumpRoot = false,
           const glm::quat& clumpTurn = glm::quat(1, 0, 0, 0)) {
  Rig rig;
  rig.name = "ped";
  rig.provenance.axes = renderware::kRenderWareAxes;
  const uint32_t first = clumpRoot ? 1 : 0;
  if (clumpRoot) {
    Bone clump;
    clump.name = "Clump";
    clump.rotation = clumpTurn;
    rig.skeleton.bones.push_back(clump);
  }
  for (size_t b = 0; b < kBones; ++b) {
    Bone bone;
    bone.name = kPed[b].name;
    bone.parent = kPed[b].parent < 0 ? (clumpRoot ? 0 : -1) : kPed[b].parent + static_cast<int32_t>(first);
    const glm::mat4 parentWorld = kPed[b].parent < 0 ? glm::mat4(1.0f) : frames[static_cast<size_t>(kPed[b].parent)];
    decomposeTrs(glm::inverse(parentWorld) * frames[b], bone);
    bone.id = static_cast<uint32_t>(b);
    bone.inverseBind = glm::inverse(standing[b]);
    rig.skeleton.bones.push_back(bone);
    rig.skeleton.joints.push_back(static_cast<uint32_t>(b) + first);
  }
  Mesh mesh;
  mesh.name = "ped";
  mesh.influenceOffsets = {0};
  for (size_t b = 0; b < kBones; ++b) {
    mesh.positions.push_back(glm::vec3(standing[b][3]));
    mesh.normals.push_back({0, 0, 1});
    mesh.influences.push_back(Influence{static_cast<uint32_t>(b) + first, 1.0f});
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
  mesh.indices = {0, 2, 3, 4, 5, 6, 5, 6, 7, 1, 4, 7};
  rig.meshes.push_back(std::move(mesh));
  return rig;
}

std::vector<uint8_t> writePed(const Rig& rig) {
  auto bytes = renderware::writeDff(rig);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().describe());
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

Rig read(const std::vector<uint8_t>& bytes) {
  auto rig = renderware::readDff(bytes);
  EXPECT_TRUE(rig.ok()) << (rig.ok() ? "" : rig.error().describe());
  return rig.ok() ? std::move(*rig) : Rig{};
}

// First chunk header of `type` carrying the clump's library stamp (§1.1); 0 if none.
size_t findChunk(const std::vector<uint8_t>& bytes, uint32_t type) {
  for (size_t i = 12; i + 12 <= bytes.size(); ++i) {
    uint32_t t;
    std::memcpy(&t, &bytes[i], 4);
    if (t == type && std::memcmp(&bytes[i + 8], &bytes[8], 4) == 0) return i;
  }
  return 0;
}

// The skinned atomic moves to frame `frame` (Atomic header, Struct header, then u32 frameIndex, §1.2).
void moveAtomic(std::vector<uint8_t>& bytes, uint32_t frame) {
  const size_t atomicStruct = findChunk(bytes, 0x14) + 24;
  ASSERT_GT(atomicStruct, 24u);
  std::memcpy(&bytes[atomicStruct], &frame, 4);
}

const Warning* findWarning(const Rig& rig, const std::string& code) {
  for (const Warning& w : rig.provenance.warnings)
    if (w.code == code) return &w;
  return nullptr;
}

std::string scratchFile(const std::string& name, const std::string& file) { return test::scratchDir(name) + "/" + file; }

void save(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Exports `rig` to a validated .glb and loads it as a client would.
tinygltf::Model exportAndLoad(const Rig& rig, const std::string& name, const GltfOptions& options = {}) {
  auto glb = exportGlb(rig, options);
  EXPECT_TRUE(glb.ok()) << (glb.ok() ? "" : glb.error().describe());
  const std::string path = scratchFile(name, name + ".glb");
  if (glb.ok()) save(path, *glb);
  const test::ValidatorRun run = test::validateGltfFile(path);
  EXPECT_TRUE(run.ok) << run.output;
  return test::loadGlbModel(path);
}

// Largest |joint world × inverse bind − `expected`| over the skin's joints.
float skinError(const test::GltfPose& pose, const tinygltf::Model& m, const glm::mat4& expected = glm::mat4(1.0f)) {
  const std::vector<glm::mat4> ibm = pose.inverseBinds();
  float worst = 0.0f;
  for (size_t j = 0; j < ibm.size(); ++j) {
    const glm::mat4 d = pose.world(m.skins[0].joints[j]) * ibm[j] - expected;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) worst = std::max(worst, std::fabs(d[c][r]));
  }
  return worst;
}

// What the issue asks of a ped in glTF (Y up, front +Z): the head above the feet by most of the
// ped's height, the toes ahead of the ankle.
void expectStands(const test::GltfPose& pose, const std::string& where) {
  const glm::vec3 head = pose.position(pose.node("Head")), foot = pose.position(pose.node("L Foot"));
  const glm::vec3 toe = pose.position(pose.node("L Toe0"));
  EXPECT_GT(head.y - foot.y, 1.5f) << where << ": head " << head.y << ", foot " << foot.y;
  EXPECT_GT(toe.z - foot.z, 0.1f) << where << ": toe " << toe.z << ", ankle " << foot.z;
  EXPECT_NEAR(toe.x, foot.x, 1e-4f) << where;
}

float lowestVertex(const test::GltfPose& pose) {
  float lowest = INFINITY;
  for (const glm::vec3& v : pose.vertices()) lowest = std::min(lowest, v.y);
  return lowest;
}

}  // namespace

// Item 1. Real SA peds hang the skinned atomic on a turned frame: on the HAnim root "Normal" itself
// (frames = turn · skin pose), on frame 2 while the hierarchy is on frame 1, or (DragonFF's DFFs)
// on the first bone's frame with FrameList × IBM = identity. librw's skinning cancels the atomic's
// frame (vertex = bone LTM × IBM × v), so each must read standing, with joint world × IBM = I.
TEST(RenderwareStand, AtomicOnATurnedFrameStandsWithJointWorldTimesInverseBindIdentity) {
  const std::vector<glm::mat4> standing = standingWorld(glm::quat(1, 0, 0, 0));
  const std::vector<glm::mat4> turned = turnedWorld(kNormalTurn);
  const std::vector<glm::mat4> dragonffStanding = standingWorld(kNormalTurn);

  struct Case {
    const char* name;
    std::vector<uint8_t> bytes;
  };
  std::vector<Case> cases;
  cases.push_back({"atomic_on_turned_normal", writePed(pedRig(turned, standing))});
  std::vector<uint8_t> onFrame2 = writePed(pedRig(turned, standing, true));
  moveAtomic(onFrame2, 2);  // frame 0 Clump, 1 Normal (the hierarchy), 2 Pelvis
  cases.push_back({"atomic_on_frame_2", onFrame2});
  cases.push_back({"dragonff_atomic_on_first_bone", writePed(pedRig(dragonffStanding, dragonffStanding))});

  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Rig rig = read(c.bytes);
    const tinygltf::Model m = exportAndLoad(rig, c.name);
    const test::GltfPose pose(m);
    EXPECT_LT(skinError(pose, m), 1e-5f);
    expectStands(pose, c.name);
    EXPECT_NEAR(lowestVertex(pose), -1.0f, 1e-5f) << "the toe vertex, 1 m below the pelvis";
  }
}

namespace {

// The standing pose's local TRS of every ped bone, for clips that play it.
std::vector<Bone> standingLocals() { return pedRig(standingWorld(glm::quat(1, 0, 0, 0)), standingWorld(glm::quat(1, 0, 0, 0))).skeleton.bones; }

// A clip holding every ped bone in `pose` (bones' local TRS) from 0 s to 1 s, bound to `rig`'s bones
// by name, as a game clip's absolute local keys.
Animation holdPose(const Rig& rig, const std::vector<Bone>& pose, const std::string& name) {
  Animation anim;
  anim.name = name;
  anim.duration = 1.0f;
  for (const Bone& b : pose) {
    BoneTrack t;
    t.target.name = b.name;
    t.bone = rig.skeleton.find(b.name);
    t.translation.times = t.rotation.times = {0.0f, 1.0f};
    t.translation.values = {b.translation, b.translation};
    t.rotation.values = {b.rotation, b.rotation};
    anim.tracks.push_back(std::move(t));
  }
  return anim;
}

}  // namespace

// Item 2. Two real peds keep a turned frame 0 above the hierarchy (not a HAnim node) and lie even
// while a clip plays: the game puts the ped's placement there. Here the clump frame is turned 90°
// about X and the skin binds the standing ped without it; the turn must go, with a warning naming
// the frame and the angle, and a clip holding the standing pose must show a standing ped.
TEST(RenderwareStand, TurnedClumpFrameIsDroppedSoClipsPlayUpright) {
  const std::vector<glm::mat4> standing = standingWorld(glm::quat(1, 0, 0, 0));
  const glm::quat turn = glm::angleAxis(glm::radians(90.0f), glm::vec3(1, 0, 0));
  Rig rig = read(writePed(pedRig(standing, standing, true, turn)));
  const Warning* w = findWarning(rig, "clump-root-turn");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("frame 0 'Clump'"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("turned 90 degrees about (1, 0, 0)"), std::string::npos) << w->message;
  ASSERT_EQ(rig.skeleton.bones.at(0).name, "Clump");
  EXPECT_TRUE(rig.skeleton.bones[0].extras.contains("framePose"));

  rig.animations.push_back(holdPose(rig, standingLocals(), "stand"));
  const tinygltf::Model m = exportAndLoad(rig, "clump_root_turn");
  test::GltfPose pose(m);
  EXPECT_LT(skinError(pose, m), 1e-5f);
  expectStands(pose, "rest");
  pose.pose(0, 0.5f);
  expectStands(pose, "playing");
}

// Item 3. Most real SA peds' skins lie (mostly along RenderWare X) and the game's IDLE_stance
// stands them. Here the whole ped, frames and skin alike, lies along X (turned 90° about Y); a clip
// whose Normal key is upright gives the rest pose: the nodes take the clip's TRS, the inverse bind
// matrices stay, and the mesh deforms into the standing pose.
TEST(RenderwareStand, RestPoseFromAClipPosesTheNodesAndKeepsTheInverseBinds) {
  const std::vector<glm::mat4> lying = turnedWorld(glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 1, 0)));
  const Rig bind = read(writePed(pedRig(lying, lying)));
  Rig rig = bind;
  rig.animations.push_back(holdPose(rig, standingLocals(), "IDLE_stance"));
  // At 1 s the clip turns Normal a quarter about up, so the time given matters.
  rig.animations[0].tracks[0].rotation.values[1] = glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 0, 1));
  const std::optional<size_t> clip = findClip(rig, "idle_STANCE");
  ASSERT_EQ(clip, std::optional<size_t>(0));
  restPoseFromClip(rig, *clip, 0.0f);

  const tinygltf::Model before = exportAndLoad(bind, "rest_pose_bind");
  const tinygltf::Model after = exportAndLoad(rig, "rest_pose_clip");
  const test::GltfPose lyingPose(before), standingPose(after);
  const std::vector<glm::mat4> ibmBefore = lyingPose.inverseBinds(), ibmAfter = standingPose.inverseBinds();
  ASSERT_EQ(ibmBefore.size(), ibmAfter.size());
  for (size_t j = 0; j < ibmBefore.size(); ++j) EXPECT_EQ(ibmBefore[j], ibmAfter[j]) << "joint " << j;
  EXPECT_LT(skinError(lyingPose, before), 1e-5f);
  EXPECT_GT(skinError(standingPose, after), 0.5f) << "the mesh deforms: joint world × IBM is no longer I";
  EXPECT_LT(lyingPose.position(lyingPose.node("Head")).y - lyingPose.position(lyingPose.node("L Foot")).y, 0.5f) << "the bind pose lies";
  expectStands(standingPose, "rest pose from IDLE_stance");
  // The skinned vertices (one per bone, at its standing place) follow.
  const std::vector<glm::vec3> vertices = standingPose.vertices();
  const std::vector<glm::mat4> standing = standingWorld(glm::quat(1, 0, 0, 0));
  ASSERT_EQ(vertices.size(), kBones);
  for (size_t b = 0; b < kBones; ++b) {
    const glm::vec3 rw(standing[b][3]);
    // RenderWare (Z up, facing +Y) to glTF (Y up, facing +Z): (x, y, z) -> (-x, z, y).
    const glm::vec3 expected(-rw.x, rw.z, rw.y);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(vertices[b][k], expected[k], 1e-5f) << kPed[b].name;
  }
  ASSERT_TRUE(rig.extras.contains("restPose"));
  EXPECT_EQ(rig.extras["restPose"]["clip"], "IDLE_stance");

  Rig later = bind;
  later.animations.push_back(rig.animations[0]);
  restPoseFromClip(later, 0, 1.0f);
  EXPECT_NEAR(std::fabs(glm::dot(later.skeleton.bones[0].rotation, rig.animations[0].tracks[0].rotation.values[1])), 1.0f, 1e-6f);
}

namespace {

struct PedFiles {
  std::string dir, dff, ifp;
};

// A lying ped (as most real SA peds' skins lie) and a package whose IDLE_stance holds Normal upright
// (bone id 0, one identity key: every other bone keeps its rest pose), next to a clip "walk".
PedFiles lyingPedFiles(const std::string& name) {
  PedFiles f;
  f.dir = test::scratchDir(name);
  f.dff = f.dir + "/ped.dff";
  f.ifp = f.dir + "/ped.ifp";
  const std::vector<glm::mat4> lying = turnedWorld(glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 1, 0)));
  save(f.dff, writePed(pedRig(lying, lying)));
  save(f.ifp, test::buildAnp3("ped", {test::IfpClip{"walk", {test::IfpSequence{"Normal", 0, {0, 30}}}},
                                      test::IfpClip{"IDLE_stance", {test::IfpSequence{"Normal", 0, {0, 30}}}}}));
  return f;
}

// Converts with `args` to <dir>/out.glb, which must validate, and loads it.
tinygltf::Model convertPed(const PedFiles& f, const std::string& args) {
  const std::string out = f.dir + "/out.glb";
  std::remove(out.c_str());
  const test::CliRun run = test::runCli("convert " + test::quote(f.dff) + " " + args + " -o " + test::quote(out));
  EXPECT_EQ(run.code, 0) << run.text;
  const test::ValidatorRun v = test::validateGltfFile(out);
  EXPECT_TRUE(v.ok) << v.output;
  return test::loadGlbModel(out);
}

int groundNode(const tinygltf::Model& m) {
  for (size_t n = 0; n < m.nodes.size(); ++n)
    if (m.nodes[n].extras.Has("rigportGroundLift")) return static_cast<int>(n);
  return -1;
}

}  // namespace

// Items 3 and 4 through the CLI: with the package given, a lying ped rests in IDLE_stance (a warning
// says so) and stands on the ground: its lowest vertex at y = 0 through a non-joint root node, with
// joint world × IBM that node's translation. --rest-pose bind keeps it lying; --no-ground keeps the
// pelvis at the origin.
TEST(RenderwareStand, ConvertStandsALyingPedInItsIdleClipOnTheGround) {
  const PedFiles f = lyingPedFiles("stand_cli");
  {
    const tinygltf::Model m = convertPed(f, "--anim " + test::quote(f.ifp));
    test::GltfPose pose(m);
    expectStands(pose, "default");
    EXPECT_NEAR(lowestVertex(pose), 0.0f, 1e-5f);
    const int ground = groundNode(m);
    ASSERT_GE(ground, 0);
    EXPECT_EQ(pose.parent(pose.node("Normal")), ground);
    EXPECT_TRUE(m.nodes[static_cast<size_t>(ground)].extras.Get("rigportSyntheticRoot").Get<bool>());
    const float lift = static_cast<float>(m.nodes[static_cast<size_t>(ground)].translation.at(1));
    EXPECT_NEAR(lift, 1.0f, 1e-5f) << "the toes, 1 m below the pelvis";
    // rigport reads its own .glb back without the lifting node.
    auto back = loadAsset(f.dir + "/out.glb");
    ASSERT_TRUE(back.ok()) << back.error().describe();
    ASSERT_EQ(back->rigs.size(), 1u);
    EXPECT_EQ(back->rigs[0].skeleton.bones.size(), kBones);
    EXPECT_EQ(back->rigs[0].skeleton.bones[0].name, "Normal");
  }
  const test::CliRun info = test::runCli("info " + test::quote(f.dff) + " --anim " + test::quote(f.ifp));
  EXPECT_NE(info.text.find("[rest-pose] the bind pose lies on its side"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("the rest pose is clip 'IDLE_stance' at 0 s"), std::string::npos) << info.text;
  {
    const tinygltf::Model m = convertPed(f, "--anim " + test::quote(f.ifp) + " --rest-pose bind --no-ground");
    test::GltfPose pose(m);
    EXPECT_LT(skinError(pose, m), 1e-5f);
    EXPECT_EQ(groundNode(m), -1);
    EXPECT_LT(pose.position(pose.node("Head")).y - pose.position(pose.node("L Foot")).y, 0.5f) << "the bind pose lies";
  }
  {
    const tinygltf::Model m = convertPed(f, "--anim " + test::quote(f.ifp) + " --rest-pose idle_stance@0.25 --no-ground");
    test::GltfPose pose(m);
    expectStands(pose, "--rest-pose idle_stance@0.25");
    EXPECT_NEAR(lowestVertex(pose), -1.0f, 1e-5f) << "no lift: the toes 1 m below the pelvis";
  }
  const test::CliRun unknown = test::runCli("convert " + test::quote(f.dff) + " --anim " + test::quote(f.ifp) + " --rest-pose run -o " +
                                       test::quote(f.dir + "/unknown.glb"));
  EXPECT_NE(unknown.code, 0);
  EXPECT_NE(unknown.text.find("no clip named 'run'"), std::string::npos) << unknown.text;
}

// Item 3 without a package: the ped keeps its lying bind pose and the warning says so and how to
// stand it; a standing ped gets no such warning, and stands on the ground as it is.
TEST(RenderwareStand, LyingBindPoseWithoutAClipIsReportedWithTheWayToStandIt) {
  const PedFiles f = lyingPedFiles("lies_cli");
  const test::CliRun info = test::runCli("info " + test::quote(f.dff));
  EXPECT_NE(info.text.find("[rest-pose-lies] the bind pose lies on its side (1."), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("to stand it, take the rest pose from the game's idle clip: --anim ped.ifp --rest-pose IDLE_stance"),
            std::string::npos)
      << info.text;

  const std::string standing = f.dir + "/standing.dff";
  save(standing, writePed(pedRig(standingWorld(glm::quat(1, 0, 0, 0)), standingWorld(glm::quat(1, 0, 0, 0)))));
  const test::CliRun quiet = test::runCli("info " + test::quote(standing));
  EXPECT_EQ(quiet.text.find("rest-pose"), std::string::npos) << quiet.text;
  const tinygltf::Model m = convertPed(PedFiles{f.dir, standing, ""}, "");
  test::GltfPose pose(m);
  expectStands(pose, "standing ped");
  EXPECT_NEAR(lowestVertex(pose), 0.0f, 1e-5f);
  EXPECT_LT(skinError(pose, m, glm::translate(glm::mat4(1.0f), glm::vec3(0, 1, 0))), 1e-5f) << "joint world × IBM = the lift";
}

// Item 5. 22 real DFFs hold zero-length normals (up to 52,335 in one), which the exporter turned
// into +Y silently; now the repair says how many and which.
TEST(RenderwareStand, ZeroLengthNormalsAreRepairedWithAWarning) {
  const std::vector<glm::mat4> standing = standingWorld(glm::quat(1, 0, 0, 0));
  Rig ped = pedRig(standing, standing);
  ped.meshes[0].normals[2] = glm::vec3(0.0f);
  ped.meshes[0].normals[5] = glm::vec3(0.0f);
  Rig rig = read(writePed(ped));
  ASSERT_TRUE(repairRig(rig).ok());
  const Warning* w = findWarning(rig, "repaired-normal");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->message, "mesh 0: 2 normal(s) of zero length (first: 2, 5) set to the up axis");
  EXPECT_EQ(rig.meshes[0].normals[2], glm::vec3(0, 0, 1)) << "RenderWare's up";
  EXPECT_FALSE(repairRig(ped, RepairOptions{true}).ok()) << "--strict refuses them";
}

// Item 5. 34 real DFFs have sheared skin matrices, whose shear the rest pose dropped without a word
// about the skin. Here the frames lie (so the skin's bind pose is taken) and Head's skin matrix has
// up += 0.05 · right.
TEST(RenderwareStand, ShearedSkinMatricesAreNamed) {
  const std::vector<glm::mat4> standing = standingWorld(glm::quat(1, 0, 0, 0));
  const std::vector<glm::mat4> turned = turnedWorld(kNormalTurn);
  Rig ped = pedRig(turned, standing);
  glm::mat4 head = standing[3];
  head[1] += 0.05f * head[0];
  ped.skeleton.bones[3].inverseBind = glm::inverse(head);
  const Rig rig = read(writePed(ped));
  const Warning* w = findWarning(rig, "skin-shear");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("of 1 joint(s)"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find(fmt::format("'Head' ({:.3g})", 0.05f / std::sqrt(1.0f + 0.05f * 0.05f))), std::string::npos) << w->message;
  const Rig unsheared = read(writePed(pedRig(turned, standing)));
  const Warning* none = findWarning(unsheared, "skin-shear");
  EXPECT_EQ(none, nullptr) << none->message;
}

// Item 5. `rigport dump` names the input as the user gave it (here relative to the folder it runs
// in), never as an absolute path of the converting machine.
TEST(RenderwareStand, DumpNamesTheInputAsGiven) {
  const PedFiles f = lyingPedFiles("dump_path");
  const test::CliRun run = test::runCliIn(f.dir, "dump ped.dff");
  const std::string& out = run.text;
  ASSERT_EQ(run.code, 0) << out;
  EXPECT_NE(out.find("\"file\": \"ped.dff\""), std::string::npos) << out.substr(0, 300);
  EXPECT_EQ(out.find(f.dir), std::string::npos) << "an absolute path";
}
