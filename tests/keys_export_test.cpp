// Interpolation and track space through the exporters: the glTF exporter writes STEP, LINEAR and
// CUBICSPLINE samplers (in-tangent, value, out-tangent per key, tangents unscaled, the unused first
// in- and last out-tangent zero) with relative tracks made absolute, and the Khronos glTF-Validator
// accepts the result with 0 errors and 0 warnings; the RenderWare .anm writer, which has linear keys
// only, adds the key times that make Step and CubicSpline tracks look the same.
// Tolerances: 1e-6 where a rotation rounds (float32), exact otherwise.
#include <gtest/gtest.h>

#include <tiny_gltf.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "core/bind.hpp"
#include "core/key_sample.hpp"
#include "core/track_space.hpp"
#include "export/gltf.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/renderware/axes.hpp"
#include "support/gltf_validator.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

constexpr double kTol = 1e-6;

// root -> arm -> hand, no mesh.
Skeleton skeleton() {
  Skeleton sk;
  sk.bones.resize(3);
  sk.bones[0].name = "root";
  sk.bones[1].name = "arm";
  sk.bones[1].parent = 0;
  sk.bones[1].translation = {0, 1, 0};
  sk.bones[1].rotation = glm::angleAxis(0.5f, glm::vec3(0, 0, 1));
  sk.bones[1].scale = glm::vec3(2.0f);
  sk.bones[2].name = "hand";
  sk.bones[2].parent = 1;
  sk.bones[2].translation = {0, 0.5f, 0};
  return sk;
}

Animation keyed() {
  Animation a;
  a.name = "Keys";
  a.duration = 1.0f;
  BoneTrack root;
  root.bone = 0;
  root.translation.interpolation = Interpolation::Step;
  root.translation.times = {0.0f, 0.5f, 1.0f};
  root.translation.values = {{0, 0, 0}, {0, 0.25f, 0}, {1, 0, 0}};
  a.tracks.push_back(root);
  BoneTrack arm;
  arm.bone = 1;
  arm.space = TrackSpace::RelativeToBind;
  arm.rotation.interpolation = arm.translation.interpolation = Interpolation::CubicSpline;
  arm.rotation.times = arm.translation.times = {0.0f, 0.4f, 1.0f};
  // Key 2 lies in the other hemisphere from key 1: a LINEAR track would be flipped, a cubic one not.
  arm.rotation.values = {glm::quat(1, 0, 0, 0), glm::angleAxis(1.0f, glm::vec3(1, 0, 0)), -glm::angleAxis(1.5f, glm::vec3(1, 0, 0))};
  arm.rotation.inTangents = {glm::quat(0.5f, 0.5f, 0, 0), glm::quat(0, 1, 0, 0), glm::quat(0, -0.5f, 0, 0.25f)};
  arm.rotation.outTangents = {glm::quat(0, 0.75f, 0, 0), glm::quat(0, 0.5f, 0.25f, 0), glm::quat(1, 1, 1, 1)};
  arm.translation.values = {{0, 0, 0}, {0.5f, 0, 0}, {0, 0, 0.25f}};
  arm.translation.inTangents = {{9, 9, 9}, {1, 0, 0}, {0, 0, -1}};
  arm.translation.outTangents = {{2, 0, 0}, {-1, 0, 0.5f}, {9, 9, 9}};
  a.tracks.push_back(arm);
  BoneTrack hand;
  hand.bone = 2;
  hand.rotation.interpolation = Interpolation::CubicSpline;
  hand.rotation.times = {0.25f};
  hand.rotation.values = {glm::angleAxis(0.3f, glm::vec3(0, 1, 0))};
  hand.rotation.inTangents = hand.rotation.outTangents = {glm::quat(0, 0, 0, 0)};
  a.tracks.push_back(hand);
  Keys<float> blink;
  blink.interpolation = Interpolation::CubicSpline;
  blink.times = {0.0f, 1.0f};
  blink.values = {0.0f, 1.0f};
  blink.inTangents = {0.0f, 3.0f};
  blink.outTangents = {2.0f, 0.0f};
  a.scalars.push_back({"blink", "morph:Blink", blink});
  return a;
}

std::vector<double> floats(const tinygltf::Model& m, int index) {
  const tinygltf::Accessor& a = m.accessors.at(static_cast<size_t>(index));
  EXPECT_EQ(a.componentType, TINYGLTF_COMPONENT_TYPE_FLOAT);
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<size_t>(a.bufferView));
  const uint8_t* p = m.buffers.at(static_cast<size_t>(v.buffer)).data.data() + v.byteOffset + a.byteOffset;
  std::vector<double> out(a.count * static_cast<size_t>(tinygltf::GetNumComponentsInType(static_cast<uint32_t>(a.type))));
  for (size_t i = 0; i < out.size(); ++i) {
    float x;
    std::memcpy(&x, p + 4 * i, 4);
    out[i] = x;
  }
  return out;
}

void expectComponents(const std::vector<double>& out, size_t element, const glm::vec3& v, const std::string& what) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(out.at(element * 3 + static_cast<size_t>(i)), v[i], kTol) << what << " component " << i;
}
void expectComponents(const std::vector<double>& out, size_t element, const glm::quat& q, const std::string& what) {
  const float xyzw[] = {q.x, q.y, q.z, q.w};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(out.at(element * 4 + i), xyzw[i], kTol) << what << " component " << i;
}

TEST(KeysExport, GltfSamplersKeepEachInterpolationAndRelativeTracksBecomeAbsolute) {
  Rig rig;
  rig.name = "Keys";
  rig.skeleton = skeleton();
  rig.animations.push_back(keyed());
  const std::string dir = test::scratchDir("keys_export");
  auto glb = exportGlb(rig);
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  const std::string path = dir + "/keys.glb";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(glb->data()), static_cast<std::streamsize>(glb->size()));
  }
  const test::ValidatorRun run = test::validateGltfFile(path);
  EXPECT_TRUE(run.ok) << run.output;
  tinygltf::Model m;
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromFile(&m, &err, &warn, path)) << err;
  ASSERT_EQ(m.animations.size(), 1u);
  std::map<std::pair<int, std::string>, const tinygltf::AnimationSampler*> byTarget;
  for (const auto& c : m.animations[0].channels) byTarget[{c.target_node, c.target_path}] = &m.animations[0].samplers[static_cast<size_t>(c.sampler)];
  ASSERT_EQ(byTarget.size(), 4u);

  const auto* step = byTarget.at({0, "translation"});
  EXPECT_EQ(step->interpolation, "STEP");
  EXPECT_EQ(floats(m, step->output), (std::vector<double>{0, 0, 0, 0, 0.25, 0, 1, 0, 0}));

  // Arm: relative keys composed with the bind pose (R_b·q, R_b·(S_b ⊙ t) + T_b); tangents by the
  // linear part only, per second as stored; the first in- and last out-tangent written as zero.
  const Animation& src = rig.animations[0];
  const Bone& bind = rig.skeleton.bones[1];
  const auto* rot = byTarget.at({1, "rotation"});
  EXPECT_EQ(rot->interpolation, "CUBICSPLINE");
  EXPECT_EQ(floats(m, rot->input), (std::vector<double>{0.0, 0.4f, 1.0}));
  const std::vector<double> r = floats(m, rot->output);
  ASSERT_EQ(r.size(), 3u * 3u * 4u);
  const glm::quat zero(0, 0, 0, 0);
  for (size_t k = 0; k < 3; ++k) {
    const std::string what = "rotation key " + std::to_string(k);
    expectComponents(r, 3 * k, k == 0 ? zero : bind.rotation * src.tracks[1].rotation.inTangents[k], what + " in");
    expectComponents(r, 3 * k + 1, bind.rotation * src.tracks[1].rotation.values[k], what + " value (sign kept)");
    expectComponents(r, 3 * k + 2, k == 2 ? zero : bind.rotation * src.tracks[1].rotation.outTangents[k], what + " out");
  }
  const auto* tr = byTarget.at({1, "translation"});
  EXPECT_EQ(tr->interpolation, "CUBICSPLINE");
  EXPECT_EQ(tr->input, rot->input) << "same times, one input accessor";
  const std::vector<double> t = floats(m, tr->output);
  ASSERT_EQ(t.size(), 3u * 3u * 3u);
  const auto linear = [&](const glm::vec3& d) { return bind.rotation * (bind.scale * d); };
  for (size_t k = 0; k < 3; ++k) {
    const std::string what = "translation key " + std::to_string(k);
    expectComponents(t, 3 * k, k == 0 ? glm::vec3(0) : linear(src.tracks[1].translation.inTangents[k]), what + " in");
    expectComponents(t, 3 * k + 1, bind.translation + linear(src.tracks[1].translation.values[k]), what + " value");
    expectComponents(t, 3 * k + 2, k == 2 ? glm::vec3(0) : linear(src.tracks[1].translation.outTangents[k]), what + " out");
  }

  // One cubic key is a constant: LINEAR, since CUBICSPLINE needs two keys (validator TOO_FEW_ELEMENTS).
  const auto* single = byTarget.at({2, "rotation"});
  EXPECT_EQ(single->interpolation, "LINEAR");
  ASSERT_EQ(floats(m, single->output).size(), 4u);
  expectComponents(floats(m, single->output), 0, src.tracks[2].rotation.values[0], "single key");

  // Scalar channels go to extras with their interpolation and tangents.
  const tinygltf::Value& scalars = m.animations[0].extras.Get("scalarChannels");
  ASSERT_TRUE(scalars.IsArray());
  const tinygltf::Value& blink = scalars.Get(0);
  EXPECT_EQ(blink.Get("interpolation").Get<std::string>(), "CUBICSPLINE");
  EXPECT_EQ(blink.Get("inTangents").Get(1).GetNumberAsDouble(), 3.0);
  EXPECT_EQ(blink.Get("outTangents").Get(0).GetNumberAsDouble(), 2.0);
}

// .anm keys are linear: written at the source key times, just before each Step change, and at most
// 1/60 s apart inside cubic segments, each with the source's value at that time (relative tracks
// made absolute), so the read-back linear keys follow the source motion.
TEST(KeysExport, AnmWriterResamplesStepAndCubicTracksAndAppliesTheBindPose) {
  Rig rig;
  rig.provenance.axes = renderware::kRenderWareAxes;
  rig.skeleton = skeleton();
  Animation a = keyed();
  a.scalars.clear();
  a.tracks[0].rotation.interpolation = Interpolation::Step;
  a.tracks[0].rotation.times = a.tracks[0].translation.times;
  a.tracks[0].rotation.values = {glm::quat(1, 0, 0, 0), glm::angleAxis(1.0f, glm::vec3(0, 0, 1)), glm::angleAxis(2.0f, glm::vec3(0, 0, 1))};
  rig.animations.push_back(a);
  auto bytes = renderware::writeAnm(rig);
  ASSERT_TRUE(bytes) << bytes.error().describe();
  auto read = renderware::readAnm(*bytes);
  ASSERT_TRUE(read) << read.error().describe();
  Rig bound;
  bound.skeleton = rig.skeleton;
  ASSERT_TRUE(bindAnimations(bound, std::move(read->animations)));
  ASSERT_EQ(bound.animations.size(), 1u);

  Animation expected = a;
  makeAbsolute(expected, rig.skeleton);
  for (const BoneTrack& back : bound.animations[0].tracks) {
    const BoneTrack* source = nullptr;
    for (const BoneTrack& s : expected.tracks)
      if (s.bone == back.bone) source = &s;
    ASSERT_NE(source, nullptr);
    const Bone& b = rig.skeleton.bones[static_cast<size_t>(back.bone)];
    ASSERT_EQ(back.rotation.times.size(), back.translation.times.size());
    for (size_t k = 0; k < back.rotation.times.size(); ++k) {
      const float time = back.rotation.times[k];
      const std::string what = b.name + " at " + std::to_string(time);
      glm::quat q = sampleKeys(source->rotation, time, b.rotation);
      if (glm::dot(q, back.rotation.values[k]) < 0) q = -q;
      for (int i = 0; i < 4; ++i) EXPECT_NEAR(back.rotation.values[k][i], q[i], 1e-6) << what;
      const glm::vec3 v = sampleKeys(source->translation, time, b.translation);
      for (int i = 0; i < 3; ++i) EXPECT_NEAR(back.translation.values[k][i], v[i], 1e-6) << what;
    }
  }
  const std::vector<float>& times = bound.animations[0].tracks[0].rotation.times;
  // Just before the step at 0.5 s the old value is held; at 0.5 s the new one starts.
  const auto at = std::find(times.begin(), times.end(), 0.5f);
  ASSERT_NE(at, times.end());
  EXPECT_EQ(*(at - 1), std::nextafter(0.5f, 0.0f));
  for (size_t k = 1; k < times.size(); ++k) EXPECT_LE(times[k] - times[k - 1], 1.0f / 60.0f + 1e-6f) << "cubic segments sampled at 60 Hz";
}

}  // namespace
