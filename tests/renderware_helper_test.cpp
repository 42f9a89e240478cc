// A bone that is no joint between two joints (issue 27, "Modding back keeps the pose"): root -> helper
// -> upper -> lower, the helper no joint of the skin, turned and moved (assimp's $AssimpFbx$ helper
// nodes, a Blender empty between bones) and in one case animated, with a prop riding it. RenderWare
// poses a clip by the HAnim hierarchy alone, so `convert --to renderware-dff --anim-out` must hang
// `upper` on `root` with the helper's transform multiplied into its frame and keys. The DFF and .anm
// it writes are read back here and posed at sampled times three ways, each against the glTF input:
//   - librw's rule, evaluated below (`librwPose`): src/hanim.cpp HAnimHierarchy::updateMatrices walks
//     the nodes in order with a matrix stack (node matrix = interpolated key × current parent; PUSH
//     saves the parent, POP restores it), the root's parent the hierarchy frame's parent's LTM;
//     hanimInterpCB lerps translations and slerps rotations between a node's two keys around t;
//   - the frames themselves: every node's frame hangs on its HAnim parent's (DragonFF parents a bone
//     only to a bone's frame, docs/dragonff.md);
//   - rigport's reader (`rigport compare --json` of the input against the DFF and .anm).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <nlohmann/json.hpp>

#include "core/fit.hpp"
#include "core/key_sample.hpp"
#include "formats/renderware/chunk.hpp"
#include "formats/renderware/dff_stream.hpp"
#include "formats/renderware/frame_list.hpp"
#include "support/gltf_edit.hpp"
#include "support/gltf_pose.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using namespace rigport::renderware;

namespace {

constexpr int32_t kPop = 1, kPush = 2;  // HAnimHierarchy::NodeFlag (renderware.md §1.4)
const char* const kJoints[] = {"root", "upper", "lower"};

Keys<glm::quat> turns(std::vector<float> times, glm::vec3 axis, std::vector<float> degrees) {
  Keys<glm::quat> k;
  k.times = std::move(times);
  for (float d : degrees) k.values.push_back(glm::angleAxis(glm::radians(d), glm::normalize(axis)));
  return k;
}

// The rig in glTF axes: joints root, upper, lower (skinned strip along them), the helper between
// root and upper with a 0.2 m box riding it; the clip swings every joint, and the helper too when
// `animatedHelper`, at key times of its own.
Rig helperRig(bool animatedHelper) {
  Rig rig;
  auto add = [&](const char* name, int32_t parent, glm::vec3 t, glm::quat q) {
    Bone b;
    b.name = name;
    b.parent = parent;
    b.translation = t;
    b.rotation = q;
    rig.skeleton.bones.push_back(b);
  };
  add("root", -1, {0.0f, 1.0f, 0.0f}, glm::quat(1, 0, 0, 0));
  add("helper", 0, {0.1f, 0.3f, 0.05f}, glm::angleAxis(glm::radians(40.0f), glm::normalize(glm::vec3(1.0f, 0.5f, 0.2f))));
  add("upper", 1, {0.0f, 0.4f, 0.0f}, glm::angleAxis(glm::radians(-25.0f), glm::vec3(0, 0, 1)));
  add("lower", 2, {0.0f, 0.4f, 0.0f}, glm::quat(1, 0, 0, 0));
  rig.skeleton.joints = {0, 2, 3};
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  for (size_t b = 0; b < world.size(); ++b) rig.skeleton.bones[b].inverseBind = glm::inverse(world[b]);

  Mesh strip;
  strip.name = "strip";
  strip.influenceOffsets = {0};
  for (uint32_t j = 0; j < 3; ++j) {
    const uint32_t bone = rig.skeleton.joints[j];
    for (float dx : {-0.05f, 0.05f}) {
      strip.positions.emplace_back(world[bone] * glm::vec4(dx, 0.1f, 0.0f, 1.0f));
      strip.influences.push_back(Influence{bone, 1.0f});
      strip.influenceOffsets.push_back(static_cast<uint32_t>(strip.influences.size()));
    }
  }
  strip.indices = {0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4};
  rig.meshes.push_back(strip);
  Mesh box;
  box.name = "prop";
  box.attachBone = 1;
  for (int i = 0; i < 8; ++i) box.positions.emplace_back(i & 1 ? 0.1f : -0.1f, (i & 2 ? 0.1f : -0.1f) + 0.15f, i & 4 ? 0.1f : -0.1f);
  box.indices = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6};
  rig.meshes.push_back(box);

  Animation swing;
  swing.name = "swing";
  swing.duration = 1.0f;
  auto track = [&](int32_t bone, Keys<glm::quat> rotation) {
    BoneTrack t;
    t.bone = bone;
    t.target.name = rig.skeleton.bones[static_cast<size_t>(bone)].name;
    t.rotation = std::move(rotation);
    swing.tracks.push_back(std::move(t));
  };
  track(0, turns({0.0f, 0.5f, 1.0f}, {0, 1, 0}, {0.0f, 30.0f, 0.0f}));
  if (animatedHelper) {
    track(1, turns({0.0f, 0.25f, 0.75f, 1.0f}, {1.0f, 0.5f, 0.2f}, {40.0f, 70.0f, 10.0f, 40.0f}));
    swing.tracks.back().translation.times = {0.0f, 1.0f};
    swing.tracks.back().translation.values = {{0.1f, 0.3f, 0.05f}, {0.2f, 0.25f, 0.05f}};
  }
  track(2, turns({0.0f, 0.5f, 1.0f}, {0, 0, 1}, {-25.0f, -60.0f, -25.0f}));
  track(3, turns({0.0f, 1.0f}, {1, 0, 0}, {0.0f, 45.0f}));
  rig.animations.push_back(std::move(swing));
  return rig;
}

// ---- the files as written ----------------------------------------------------------------------

std::vector<RwFrame> readFrames(const std::vector<uint8_t>& bytes) {
  ByteReader file(bytes);
  auto clump = readChunk(file, kClump, "Clump");
  EXPECT_TRUE(clump.ok());
  if (!clump) return {};
  auto st = readChunk(*clump, kStruct, "Struct");
  auto fl = st ? readChunk(*clump, kFrameList, "FrameList") : Result<ByteReader>(st.error());
  DffContext ctx;
  ctx.version = 0x36003;
  auto frames = fl ? readFrameList(*fl, ctx) : Result<std::vector<RwFrame>>(fl.error());
  EXPECT_TRUE(frames.ok());
  return frames ? *frames : std::vector<RwFrame>{};
}

struct Key {
  float time;
  glm::quat q;
  glm::vec3 t;
};

// Each node's keys of the first Anim Animation chunk (renderware.md §1.10, type 1): the first
// numNodes keys are the nodes' first, then each key follows the one its prevOffset names.
std::vector<std::vector<Key>> readAnmKeys(const std::vector<uint8_t>& bytes, size_t numNodes) {
  std::vector<std::vector<Key>> nodes(numNodes);
  const auto f32 = [&](size_t at) {
    float v;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  };
  const auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  };
  EXPECT_GE(bytes.size(), 32u);
  if (bytes.size() < 32) return nodes;
  const uint32_t count = u32(20);
  constexpr size_t kKeys = 32, kKeySize = 36;
  EXPECT_GE(bytes.size(), kKeys + count * kKeySize);
  if (bytes.size() < kKeys + count * kKeySize) return nodes;
  std::map<uint32_t, size_t> nodeOfKey;  // byte offset in the key block -> node
  for (uint32_t k = 0; k < count; ++k) {
    const size_t at = kKeys + k * kKeySize;
    const Key key{f32(at), glm::quat(f32(at + 16), f32(at + 4), f32(at + 8), f32(at + 12)), {f32(at + 20), f32(at + 24), f32(at + 28)}};
    size_t node = k;
    if (k >= numNodes) {
      const auto prev = nodeOfKey.find(u32(at + 32));
      EXPECT_NE(prev, nodeOfKey.end()) << "key " << k << " follows no key";
      if (prev == nodeOfKey.end()) return nodes;
      node = prev->second;
    }
    nodeOfKey[static_cast<uint32_t>(k * kKeySize)] = node;
    nodes[node].push_back(key);
  }
  return nodes;
}

// hanimInterpCB between the two keys around t (the last key's value after it).
glm::mat4 keyMatrix(const std::vector<Key>& keys, float t) {
  size_t k = 0;
  while (k + 2 < keys.size() && keys[k + 1].time < t) ++k;
  const Key& a = keys[k];
  const Key& b = keys[std::min(k + 1, keys.size() - 1)];
  const float s = b.time > a.time ? std::clamp((t - a.time) / (b.time - a.time), 0.0f, 1.0f) : 0.0f;
  glm::mat4 m = glm::mat4_cast(glm::slerp(a.q, b.q, s));  // hanimApplyCB: rotation, then position
  m[3] = glm::vec4(glm::mix(a.t, b.t, s), 1.0f);
  return m;
}

glm::mat4 frameLtm(const std::vector<RwFrame>& frames, int32_t f) {
  glm::mat4 m(1.0f);
  for (; f >= 0; f = frames[static_cast<size_t>(f)].parent) m = frames[static_cast<size_t>(f)].matrix * m;
  return m;
}

int32_t hierarchyFrame(const std::vector<RwFrame>& frames) {
  for (size_t f = 0; f < frames.size(); ++f)
    if (frames[f].hanim && !frames[f].hanim->nodes.empty()) return static_cast<int32_t>(f);
  return -1;
}

int32_t frameOfNode(const std::vector<RwFrame>& frames, int32_t id) {
  for (size_t f = 0; f < frames.size(); ++f)
    if (frames[f].hanim && frames[f].hanim->nodeId == id) return static_cast<int32_t>(f);
  return -1;
}

// RenderWare (x, y, z) in glTF axes (−x, z, y) (renderware.md §1.9; RW characters face +Y).
glm::vec3 toGltf(const glm::vec3& p) { return {-p.x, p.z, p.y}; }

// HAnimHierarchy::updateMatrices at time t: joint origins by frame name, in glTF axes.
std::map<std::string, glm::vec3> librwPose(const std::vector<RwFrame>& frames, const std::vector<std::vector<Key>>& keys, float t) {
  std::map<std::string, glm::vec3> out;
  const int32_t h = hierarchyFrame(frames);
  if (h < 0) return out;
  const std::vector<HAnimNode>& nodes = frames[static_cast<size_t>(h)].hanim->nodes;
  std::vector<glm::mat4> stack{frameLtm(frames, frames[static_cast<size_t>(h)].parent)};
  glm::mat4 parent = stack.back();
  for (size_t i = 0; i < nodes.size() && i < keys.size(); ++i) {
    const glm::mat4 node = parent * keyMatrix(keys[i], t);
    if (const int32_t f = frameOfNode(frames, nodes[i].id); f >= 0) out[frames[static_cast<size_t>(f)].name.value_or("")] = toGltf(node[3]);
    if (nodes[i].flags & kPush) stack.push_back(parent);
    parent = node;
    if ((nodes[i].flags & kPop) && !stack.empty()) {
      parent = stack.back();
      stack.pop_back();
    }
  }
  return out;
}

// ---- the conversions ---------------------------------------------------------------------------

struct Written {
  std::string input, dff, anm;
  test::CliRun converted;
};

Written convert(bool animatedHelper, const std::string& label) {
  Written w;
  const std::string dir = test::scratchDir("renderware_helper_" + label);
  w.input = test::writeGlb(helperRig(animatedHelper), dir + "/in.glb");
  w.dff = dir + "/m.dff";
  w.anm = dir + "/m.anm";
  w.converted = test::runCli("convert " + test::quote(w.input) + " --to renderware-dff -o " + test::quote(w.dff) + " --anim-out " + test::quote(w.anm) +
                             " --overwrite");
  return w;
}

class HelperBone : public testing::TestWithParam<bool> {};

TEST_P(HelperBone, LibrwPosesTheClipAsTheInputDoes) {
  const bool animated = GetParam();
  const std::string label = animated ? "AnimatedHelper" : "StillHelper";
  const Written w = convert(animated, label);
  ASSERT_EQ(w.converted.code, 0) << w.converted.text;
  EXPECT_NE(w.converted.text.find("'root' -> 'helper' -> 'upper'"), std::string::npos) << "the fold is not named\n" << w.converted.text;

  const std::vector<RwFrame> frames = readFrames(test::readBytes(w.dff));
  const int32_t h = hierarchyFrame(frames);
  ASSERT_GE(h, 0);
  const std::vector<HAnimNode>& nodes = frames[static_cast<size_t>(h)].hanim->nodes;
  ASSERT_EQ(nodes.size(), 3u);
  const std::vector<std::vector<Key>> keys = readAnmKeys(test::readBytes(w.anm), nodes.size());

  const tinygltf::Model model = test::loadGlbModel(w.input);
  test::GltfPose gltf(model);
  float worst = 0.0f;
  std::string where;
  for (int step = 0; step <= 40; ++step) {
    const float t = static_cast<float>(step) / 40.0f;
    gltf.pose(0, t);
    const std::map<std::string, glm::vec3> got = librwPose(frames, keys, t);
    for (const char* joint : kJoints) {
      ASSERT_EQ(got.count(joint), 1u) << joint << " is no node";
      const float d = glm::distance(got.at(joint), gltf.position(gltf.node(joint)));
      if (d > worst) worst = d, where = fmt::format("'{}' at {:.3f} s", joint, t);
    }
  }
  std::printf("[ measured ] %s: librw's pose of the DFF and .anm, worst joint %.3g m (%s)\n", label.c_str(), worst, where.c_str());
  // The writer's stated precision (README, "rigport compare"): 1e-4 × the model's size.
  gltf.pose();
  glm::vec3 lo(1e30f), hi(-1e30f);
  for (const glm::vec3& v : gltf.vertices()) lo = glm::min(lo, v), hi = glm::max(hi, v);
  EXPECT_LE(worst, 1e-4f * glm::distance(lo, hi)) << where;
}

TEST_P(HelperBone, EveryNodesFrameHangsOnItsHAnimParent) {
  const Written w = convert(GetParam(), GetParam() ? "AnimatedHelperFrames" : "StillHelperFrames");
  ASSERT_EQ(w.converted.code, 0) << w.converted.text;
  const std::vector<RwFrame> frames = readFrames(test::readBytes(w.dff));
  const int32_t h = hierarchyFrame(frames);
  ASSERT_GE(h, 0);
  std::vector<int32_t> stack, parentNode;
  int32_t current = -1;
  const std::vector<HAnimNode>& nodes = frames[static_cast<size_t>(h)].hanim->nodes;
  for (size_t i = 0; i < nodes.size(); ++i) {  // the parents updateMatrices gives the nodes
    parentNode.push_back(current);
    if (nodes[i].flags & kPush) stack.push_back(current);
    current = static_cast<int32_t>(i);
    if ((nodes[i].flags & kPop) && !stack.empty()) current = stack.back(), stack.pop_back();
  }
  std::map<std::string, std::string> frameParents, hanimParents;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int32_t f = frameOfNode(frames, nodes[i].id);
    ASSERT_GE(f, 0);
    const RwFrame& frame = frames[static_cast<size_t>(f)];
    const int32_t p = frame.parent;
    frameParents[frame.name.value_or("")] = p >= 0 && frames[static_cast<size_t>(p)].hanim ? frames[static_cast<size_t>(p)].name.value_or("") : "";
    hanimParents[frame.name.value_or("")] =
        parentNode[i] < 0 ? "" : frames[static_cast<size_t>(frameOfNode(frames, nodes[static_cast<size_t>(parentNode[i])].id))].name.value_or("");
  }
  EXPECT_EQ(frameParents, hanimParents);
  EXPECT_EQ(frameParents["upper"], "root");
}

TEST_P(HelperBone, RigportComparesTheFilesWithTheInputWithinPrecision) {
  const Written w = convert(GetParam(), GetParam() ? "AnimatedHelperCompare" : "StillHelperCompare");
  ASSERT_EQ(w.converted.code, 0) << w.converted.text;
  const test::CliRun run =
      test::runCli("compare " + test::quote(w.input) + " " + test::quote(w.dff) + " --anim-b " + test::quote(w.anm) + " --json", test::Capture::StdoutOnly);
  const nlohmann::json report = nlohmann::json::parse(run.text, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << run.text;
  // The animated helper's own motion has no node to play on: the prop riding it stays at its rest
  // place on the root while the clip plays, which convert names (`tracks-dropped`).
  const bool propDropped = w.converted.text.find("the track on 'helper', not a joint") != std::string::npos &&
                           w.converted.text.find("dropped: what rides it") != std::string::npos;
  EXPECT_EQ(propDropped, GetParam()) << w.converted.text;
  std::string measured;
  for (const auto& m : report["measures"]) {
    if (m["compared"].get<size_t>() == 0) continue;
    const std::string measure = m["measure"].get<std::string>();
    measured += fmt::format("  {} {:.3g} m", measure, m["worst"].get<double>());
    EXPECT_TRUE(m["within"].get<bool>() || (propDropped && measure == "clip vertices")) << m.dump();
  }
  std::printf("[ measured ] %s: rigport compare (tolerance %.3g m):%s\n", GetParam() ? "AnimatedHelper" : "StillHelper",
              report["tolerance"].get<double>(), measured.c_str());
  EXPECT_TRUE(report["unmatched"].empty()) << report["unmatched"].dump();
  EXPECT_EQ(run.code, propDropped ? 1 : 0) << run.text;
}

// The fit alone, on a chain of two helpers under an armature node that is no joint either:
// Armature -> root -> h1 -> h2 -> upper. Only the helpers between joints fold; every joint keeps
// its world place at rest, and upper's keys are h1(t)·h2(t)·upper(t) at every key time.
TEST(HelperBoneFit, AChainOfHelpersFoldsIntoTheJointBelowAndTheArmatureStays) {
  Rig rig;
  auto add = [&](const char* name, int32_t parent, glm::vec3 t, glm::quat q) {
    Bone b;
    b.name = name;
    b.parent = parent;
    b.translation = t;
    b.rotation = q;
    rig.skeleton.bones.push_back(b);
  };
  add("Armature", -1, {0.0f, 0.0f, 2.0f}, glm::angleAxis(glm::radians(90.0f), glm::vec3(1, 0, 0)));
  add("root", 0, {0.0f, 1.0f, 0.0f}, glm::quat(1, 0, 0, 0));
  add("h1", 1, {0.1f, 0.2f, 0.0f}, glm::angleAxis(glm::radians(30.0f), glm::vec3(0, 0, 1)));
  add("h2", 2, {0.0f, 0.1f, 0.3f}, glm::angleAxis(glm::radians(-50.0f), glm::vec3(0, 1, 0)));
  add("upper", 3, {0.0f, 0.4f, 0.0f}, glm::angleAxis(glm::radians(10.0f), glm::vec3(1, 0, 0)));
  rig.skeleton.joints = {1, 4};
  const std::vector<glm::mat4> before = rig.skeleton.worldBindMatrices();
  Animation clip;
  clip.name = "clip";
  clip.duration = 1.0f;
  BoneTrack h1;
  h1.bone = 2;
  h1.rotation = turns({0.0f, 0.3f, 1.0f}, {0, 0, 1}, {30.0f, 80.0f, 30.0f});
  BoneTrack upper;
  upper.bone = 4;
  upper.rotation = turns({0.0f, 0.5f, 1.0f}, {1, 0, 0}, {10.0f, 60.0f, 10.0f});
  clip.tracks = {h1, upper};
  rig.animations.push_back(clip);
  const Rig input = rig;

  ASSERT_TRUE(fitToLimits(rig, WriteLimits{.jointsOnJoints = true}, "renderware-dff").ok());
  const auto& bones = rig.skeleton.bones;
  EXPECT_EQ(bones[4].parent, 1) << "upper hangs on root";
  EXPECT_EQ(bones[2].parent, 1) << "h1 stays where it was";
  EXPECT_EQ(bones[1].parent, 0) << "the armature above the first joint is no helper";
  const std::vector<glm::mat4> after = rig.skeleton.worldBindMatrices();
  for (size_t b = 0; b < bones.size(); ++b) EXPECT_LE(glm::distance(glm::vec3(after[b][3]), glm::vec3(before[b][3])), 1e-6f) << bones[b].name;

  const BoneTrack* folded = nullptr;
  for (const BoneTrack& t : rig.animations[0].tracks) folded = t.bone == 4 ? &t : folded;
  ASSERT_NE(folded, nullptr);
  const auto local = [](const Bone& rest, const BoneTrack* t, float time) {
    Bone at = rest;
    if (t != nullptr) at.rotation = sampleKeys(t->rotation, time, rest.rotation);
    if (t != nullptr) at.translation = sampleKeys(t->translation, time, rest.translation);
    return at.localMatrix();
  };
  float worst = 0.0f;
  for (float time : {0.0f, 0.3f, 0.5f, 1.0f, 0.1f, 0.42f, 0.77f}) {
    const glm::mat4 want = local(input.skeleton.bones[2], &input.animations[0].tracks[0], time) * local(input.skeleton.bones[3], nullptr, time) *
                           local(input.skeleton.bones[4], &input.animations[0].tracks[1], time);
    const glm::mat4 got = local(bones[4], folded, time);
    for (int c = 0; c < 4; ++c) worst = std::max(worst, glm::length(got[c] - want[c]));
  }
  EXPECT_LE(worst, 1e-4f) << "upper's keys against h1(t)·h2·upper(t)";
  std::string warnings;
  for (const auto& w : rig.provenance.warnings) warnings += w.message + "\n";
  EXPECT_NE(warnings.find("'root' -> 'h1' -> 'h2' -> 'upper'"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("largest deviation"), std::string::npos) << warnings;
}

INSTANTIATE_TEST_SUITE_P(Cases, HelperBone, testing::Bool(), [](const testing::TestParamInfo<bool>& info) {
  return info.param ? std::string("AnimatedHelper") : std::string("StillHelper");
});

}  // namespace
