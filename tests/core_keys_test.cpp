// Key interpolation (Step, Linear, CubicSpline) and tracks relative to the bind pose: sampling
// follows glTF's formulas (tangents per second), normalizeKeys keeps tangents with their keys and
// the signs of cubic quaternions, validate() rejects misplaced tangents, axis conversion and
// makeAbsolute() commute with every interpolation (same motion at all times, not only at keys).
// Tolerances: 1e-6 where a rotation or a normalisation rounds; exact (==) otherwise.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "core/axes.hpp"
#include "core/bind.hpp"
#include "core/key_sample.hpp"
#include "core/rotation_keys.hpp"
#include "core/track_space.hpp"
#include "core/validate.hpp"

using namespace rigport;

namespace {

constexpr float kTol = 1e-6f;

void expectNear(const glm::vec3& a, const glm::vec3& b, float tol, const std::string& what) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], tol) << what << " component " << i;
}
void expectNear(const glm::quat& a, const glm::quat& b, float tol, const std::string& what) {
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(a[i], b[i], tol) << what << " component " << i;
}

Keys<float> scalarKeys(Interpolation mode) {
  Keys<float> k;
  k.times = {0.0f, 2.0f, 3.0f};
  k.values = {0.0f, 1.0f, 5.0f};
  k.interpolation = mode;
  return k;
}

TEST(KeySample, HoldsOutsideTheRangeAndReturnsStoredValuesAtKeys) {
  for (Interpolation mode : {Interpolation::Step, Interpolation::Linear, Interpolation::CubicSpline}) {
    Keys<float> k = scalarKeys(mode);
    if (mode == Interpolation::CubicSpline) k.inTangents = k.outTangents = {7.0f, 7.0f, 7.0f};
    EXPECT_EQ(sampleKeys(k, -1.0f, 9.0f), 0.0f);
    EXPECT_EQ(sampleKeys(k, 4.0f, 9.0f), 5.0f);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(sampleKeys(k, k.times[i], 9.0f), k.values[i]);
  }
  EXPECT_EQ(sampleKeys(Keys<float>{}, 1.0f, 9.0f), 9.0f) << "no keys: the rest value";
}

TEST(KeySample, StepHoldsTheEarlierKeyAndLinearLerps) {
  const Keys<float> step = scalarKeys(Interpolation::Step);
  EXPECT_EQ(sampleKeys(step, 1.999f, 9.0f), 0.0f);
  EXPECT_EQ(sampleKeys(step, 2.5f, 9.0f), 1.0f);
  const Keys<float> linear = scalarKeys(Interpolation::Linear);
  EXPECT_EQ(sampleKeys(linear, 1.0f, 9.0f), 0.5f);
  EXPECT_EQ(sampleKeys(linear, 2.5f, 9.0f), 3.0f);
}

// glTF Appendix C with tangents per second: p(s) = h00·v0 + h10·d·out0 + h01·v1 + h11·d·in1.
TEST(KeySample, CubicSplineTangentsArePerSecondAndScaledByTheKeyInterval) {
  Keys<float> k = scalarKeys(Interpolation::CubicSpline);
  k.values = {0.0f, 0.0f, 0.0f};
  k.inTangents = {0.0f, 0.0f, 0.0f};
  k.outTangents = {1.0f, 0.0f, 0.0f};
  // Segment 0 (d = 2) at s = 0.5: h10 = s³ − 2s² + s = 0.125, times d·out0 = 2.
  EXPECT_EQ(sampleKeys(k, 1.0f, 9.0f), 0.25f);
  k.outTangents = {0.0f, 0.0f, 0.0f};
  k.inTangents = {0.0f, 0.0f, 4.0f};
  // Segment 1 (d = 1) at s = 0.5: h11 = s³ − s² = −0.125, times d·in2 = 4.
  EXPECT_EQ(sampleKeys(k, 2.5f, 9.0f), -0.5f);
  k.values = {0.0f, 1.0f, 5.0f};
  k.inTangents = {0.0f, 0.0f, 0.0f};
  // Zero tangents: h01(0.5) = 0.5 of the way, the smoothstep midpoint.
  EXPECT_EQ(sampleKeys(k, 1.0f, 9.0f), 0.5f);
}

TEST(KeySample, CubicSplineQuaternionsAreNormalisedAndLinearOnesTakeTheShorterArc) {
  Keys<glm::quat> k;
  k.times = {0.0f, 1.0f};
  k.values = {glm::quat(1, 0, 0, 0), glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 0, 1))};
  k.interpolation = Interpolation::CubicSpline;
  k.inTangents = k.outTangents = {glm::quat(0, 0, 0, 0), glm::quat(0, 0, 0, 0)};
  // With zero tangents the 4D curve is a straight chord at the midpoint: normalise(mean) = 45°.
  expectNear(sampleKeys(k, 0.5f, glm::quat(1, 0, 0, 0)), glm::angleAxis(glm::radians(45.0f), glm::vec3(0, 0, 1)), kTol, "cubic");
  k.interpolation = Interpolation::Linear;
  k.inTangents.clear();
  k.outTangents.clear();
  k.values[1] = -k.values[1];  // the same rotation from the other hemisphere
  const glm::quat mid = sampleKeys(k, 0.5f, glm::quat(1, 0, 0, 0));
  expectNear(mid * (mid.w < 0 ? -1.0f : 1.0f), glm::angleAxis(glm::radians(45.0f), glm::vec3(0, 0, 1)), kTol, "slerp, not the long way");
}

// The look for key sets already in order (sortAndMerge) compares every pair, in lanes and in the
// tail after them: one pair out of order or of equal times anywhere in a long key set sends it to
// the sort, and a set in order is left as it is.
TEST(NormalizeKeys, OnePairOutOfOrderAnywhereIsSorted) {
  constexpr size_t n = 37;
  std::vector<float> inOrder(n);
  for (size_t k = 0; k < n; ++k) inOrder[k] = 0.125f * static_cast<float>(k);
  auto normalised = [](const std::vector<float>& times) {
    Animation a;
    BoneTrack t;
    t.translation.times = times;
    for (size_t k = 0; k < times.size(); ++k) t.translation.values.emplace_back(static_cast<float>(k), 0.0f, 0.0f);
    a.tracks.push_back(t);
    normalizeKeys(a);
    return a.tracks[0].translation;
  };
  const Keys<glm::vec3> same = normalised(inOrder);
  EXPECT_EQ(same.times, inOrder);
  EXPECT_EQ(same.values.back(), glm::vec3(n - 1, 0, 0));
  for (size_t p = 1; p < n; ++p) {
    std::vector<float> swapped = inOrder;
    std::swap(swapped[p - 1], swapped[p]);
    const Keys<glm::vec3> sorted = normalised(swapped);
    EXPECT_EQ(sorted.times, inOrder) << "pair " << p;
    EXPECT_EQ(sorted.values[p], glm::vec3(p - 1, 0, 0)) << "pair " << p;
    std::vector<float> equal = inOrder;
    equal[p] = equal[p - 1];
    EXPECT_EQ(normalised(equal).times.size(), n - 1) << "pair " << p;
  }
}

TEST(NormalizeKeys, TangentsTravelWithTheirKeysAndTheLastOfEqualTimesWins) {
  Animation a;
  BoneTrack t;
  t.translation.interpolation = Interpolation::CubicSpline;
  t.translation.times = {1.0f, 0.0f, 1.0f, 0.5f};
  t.translation.values = {{1, 0, 0}, {0, 0, 0}, {2, 0, 0}, {5, 0, 0}};
  t.translation.inTangents = {{10, 0, 0}, {0, 0, 0}, {20, 0, 0}, {50, 0, 0}};
  t.translation.outTangents = {{11, 0, 0}, {1, 0, 0}, {21, 0, 0}, {51, 0, 0}};
  a.tracks.push_back(t);
  normalizeKeys(a);
  const Keys<glm::vec3>& k = a.tracks[0].translation;
  EXPECT_EQ(k.times, (std::vector<float>{0.0f, 0.5f, 1.0f}));
  EXPECT_EQ(k.values, (std::vector<glm::vec3>{{0, 0, 0}, {5, 0, 0}, {2, 0, 0}}));
  EXPECT_EQ(k.inTangents, (std::vector<glm::vec3>{{0, 0, 0}, {50, 0, 0}, {20, 0, 0}}));
  EXPECT_EQ(k.outTangents, (std::vector<glm::vec3>{{1, 0, 0}, {51, 0, 0}, {21, 0, 0}}));
}

TEST(NormalizeKeys, CubicQuaternionsKeepTheirSignsAndLinearOnesAreMadeContinuous) {
  const glm::quat q0(1, 0, 0, 0), q1 = glm::angleAxis(0.5f, glm::vec3(1, 0, 0));
  Animation a;
  BoneTrack t;
  t.rotation.times = {0.0f, 1.0f};
  t.rotation.values = {q0, -q1 * 2.0f};
  t.rotation.interpolation = Interpolation::CubicSpline;
  t.rotation.inTangents = {glm::quat(0, 0, 0, 0), glm::quat(0, 1, 0, 0)};
  t.rotation.outTangents = {glm::quat(0, 0, 1, 0), glm::quat(0, 0, 0, 0)};
  a.tracks.push_back(t);
  t.rotation.interpolation = Interpolation::Linear;
  t.rotation.inTangents.clear();
  t.rotation.outTangents.clear();
  a.tracks.push_back(t);
  normalizeKeys(a);
  expectNear(a.tracks[0].rotation.values[1], -q1, kTol, "cubic: normalised, sign kept");
  EXPECT_EQ(a.tracks[0].rotation.inTangents[1], glm::quat(0, 1, 0, 0)) << "tangents untouched";
  expectNear(a.tracks[1].rotation.values[1], q1, kTol, "linear: flipped into q0's hemisphere");
}

// A reproducible value in [-1, 1) from a linear congruential generator's state (the lane tests' keys).
float nextSigned(uint32_t& state) {
  state = state * 1664525u + 1013904223u;
  return static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
}

// normalizeRotationKeys works four keys at a time in SSE2 lanes where the build has them; every
// key must be bit for bit the scalar rule's (this loop), whose sign test reads the previous key as
// written: runs of keys in opposite hemispheres, zero, NaN, infinite and tiny keys, every tail.
TEST(NormalizeKeys, RotationLanesMatchTheScalarRule) {
  std::vector<glm::quat> keys;
  uint32_t state = 777;
  auto next = [&] { return nextSigned(state); };
  for (int i = 0; i < 1000; ++i) {
    const glm::quat q(next(), next(), next(), next());
    keys.push_back(i % 7 < 3 ? q : -q);
  }
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (const glm::quat& q : {glm::quat(0, 0, 0, 0), glm::quat(nan, 0, 0, 0), glm::quat(1, inf, 0, 0), glm::quat(1e-30f, 1e-30f, 0, 0),
                             glm::quat(1e30f, 1e30f, 1, 0), glm::quat(-0.0f, -0.0f, -0.0f, -0.0f), glm::quat(0, 1, 0, 0), glm::quat(1, 0, 0, 0)})
    keys.insert(keys.begin() + static_cast<std::ptrdiff_t>(keys.size() / 3), q);
  for (bool flip : {true, false}) {
    for (size_t count : {size_t{0}, size_t{1}, size_t{2}, size_t{4}, size_t{5}, size_t{7}, size_t{8}, size_t{9}, keys.size()}) {
      for (size_t from : {size_t{0}, size_t{1}, keys.size() / 3 - 2}) {
        if (from + count > keys.size()) continue;
        std::vector<glm::quat> want(keys.begin() + static_cast<std::ptrdiff_t>(from), keys.begin() + static_cast<std::ptrdiff_t>(from + count));
        std::vector<glm::quat> got = want;
        for (size_t k = 0; k < want.size(); ++k) {
          want[k] = glm::normalize(want[k]);
          if (flip && k > 0 && glm::dot(want[k], want[k - 1]) < 0.0f) want[k] = -want[k];
        }
        normalizeRotationKeys(got, flip);
        ASSERT_EQ(got.size(), want.size());
        for (size_t k = 0; k < count; ++k)
          EXPECT_EQ(std::memcmp(&got[k], &want[k], sizeof want[k]), 0)
              << "flip " << flip << ", key " << k << " of " << count << " from " << from << ": " << got[k].x << " " << got[k].y << " "
              << got[k].z << " " << got[k].w << " against " << want[k].x << " " << want[k].y << " " << want[k].z << " " << want[k].w;
      }
    }
  }
}

// The exporter turns a track's rotation keys into glTF's axes in normalizeRotationKeys' pass
// (normalizeTrack(track, turn)) where they were a pass of the axis change's first: every key, in
// lanes and tails, must be bit for bit the turn (AxisChange::convertTrack) and then the normalisation.
TEST(NormalizeKeys, ATurnInTheSamePassGivesTheTurnThenTheNormalisation) {
  std::vector<glm::quat> keys;
  uint32_t state = 4242;
  auto next = [&] { return nextSigned(state); };
  for (int i = 0; i < 1000; ++i) {
    const glm::quat q(next(), next(), 4.0f * next(), next());
    keys.push_back(i % 5 < 2 ? q : -q);
  }
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (const glm::quat& q : {glm::quat(0, 0, 0, 0), glm::quat(nan, 0, 0, 0), glm::quat(1, inf, 0, 0), glm::quat(1e-30f, 1e-30f, 0, 0),
                             glm::quat(1e30f, 1e30f, 1, 0), glm::quat(1e-45f, 0, 0, 0)})
    keys.insert(keys.begin() + static_cast<std::ptrdiff_t>(keys.size() / 2), q);
  for (const AxisSystem& from : {AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::PosY, true, 0.01f},
                                 AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::NegY, false, 1.0f},
                                 AxisSystem{AxisSystem::Up::Y, AxisSystem::Axis::PosX, true, 3.0f}}) {
    const AxisChange turn(from, AxisSystem{});
    for (bool flip : {true, false}) {
      for (size_t count : {size_t{0}, size_t{1}, size_t{3}, size_t{4}, size_t{5}, size_t{8}, size_t{11}, keys.size()}) {
        BoneTrack want;
        want.rotation.values.assign(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(count));
        std::vector<glm::quat> got = want.rotation.values;
        turn.convertTrack(want);
        normalizeRotationKeys(want.rotation.values, flip);
        normalizeRotationKeys(got, flip, &turn);
        ASSERT_EQ(got.size(), count);
        for (size_t k = 0; k < count; ++k) {
          const glm::quat& w = want.rotation.values[k];
          EXPECT_EQ(std::memcmp(&got[k], &w, sizeof w), 0) << "flip " << flip << ", key " << k << " of " << count << ": " << got[k].x << " "
                                                           << got[k].y << " " << got[k].z << " " << got[k].w << " against " << w.x << " " << w.y
                                                           << " " << w.z << " " << w.w;
        }
      }
    }
  }
}

TEST(Validate, TangentsMustMatchTheInterpolation) {
  Rig rig;
  rig.skeleton.bones.resize(1);
  rig.skeleton.bones[0].name = "root";
  BoneTrack t;
  t.bone = 0;
  t.scale.times = {0.0f, 1.0f};
  t.scale.values = {glm::vec3(1), glm::vec3(2)};
  t.scale.interpolation = Interpolation::CubicSpline;
  rig.animations.push_back(Animation{"a", 1.0f, {t}, {}, {}});
  const Status noTangents = validate(rig);
  ASSERT_FALSE(noTangents.ok());
  EXPECT_NE(noTangents.error().describe().find("animations[0]/tracks[0]/scale"), std::string::npos) << noTangents.error().describe();
  rig.animations[0].tracks[0].scale.inTangents = rig.animations[0].tracks[0].scale.outTangents = {glm::vec3(0), glm::vec3(0)};
  EXPECT_TRUE(validate(rig).ok());
  rig.animations[0].tracks[0].scale.interpolation = Interpolation::Linear;
  EXPECT_FALSE(validate(rig).ok()) << "tangents on a linear key set would be dropped silently";
  rig.animations[0].tracks[0].scale.interpolation = Interpolation::CubicSpline;
  rig.animations[0].tracks[0].scale.outTangents.pop_back();
  EXPECT_FALSE(validate(rig).ok());
}

// A cubic track in Z-up centimetres, converted to glTF: the converted keys must describe the
// converted motion at every time, which needs each key's sign kept and tangents mapped linearly.
TEST(Axes, ConversionCommutesWithCubicSplineSampling) {
  Rig rig;
  rig.provenance.axes = AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::PosY, true, 0.01f};
  rig.skeleton.bones.resize(1);
  BoneTrack t;
  t.bone = 0;
  t.translation.interpolation = t.rotation.interpolation = Interpolation::CubicSpline;
  t.translation.times = t.rotation.times = {0.0f, 0.5f, 1.5f};
  t.translation.values = {{0, 0, 0}, {100, 50, 20}, {-30, 10, 200}};
  t.translation.inTangents = {{0, 0, 0}, {30, -10, 5}, {0, 0, 0}};
  t.translation.outTangents = {{100, 0, 0}, {-60, 20, 40}, {0, 0, 0}};
  // Signs chosen so that quat_cast-style conversion (largest component positive) would flip some.
  t.rotation.values = {glm::quat(1, 0, 0, 0), -glm::angleAxis(2.5f, glm::normalize(glm::vec3(1, 2, 3))),
                       glm::angleAxis(-1.0f, glm::vec3(0, 1, 0))};
  t.rotation.inTangents = {glm::quat(0, 0, 0, 0), glm::quat(0.1f, 0.5f, -0.2f, 0.3f), glm::quat(0.2f, 0, 0, 0.4f)};
  t.rotation.outTangents = {glm::quat(0, 1, 0, 0), glm::quat(-0.3f, 0.1f, 0.2f, 0), glm::quat(0, 0, 0, 0)};
  rig.animations.push_back(Animation{"a", 1.5f, {t}, {}, {}});
  Rig converted = rig;
  toGltfAxes(converted);
  const glm::mat3 p = basisToGltf(rig.provenance.axes);
  const glm::quat pq = glm::quat_cast(p * glm::determinant(p));
  for (float time : {0.1f, 0.25f, 0.5f, 0.7f, 1.2f}) {
    const BoneTrack& a = rig.animations[0].tracks[0];
    const BoneTrack& b = converted.animations[0].tracks[0];
    expectNear(sampleKeys(b.translation, time, glm::vec3(0)), 0.01f * (p * sampleKeys(a.translation, time, glm::vec3(0))), 1e-5f,
               "translation at " + std::to_string(time));
    const glm::quat expected = pq * sampleKeys(a.rotation, time, glm::quat(1, 0, 0, 0)) * glm::conjugate(pq);
    expectNear(sampleKeys(b.rotation, time, glm::quat(1, 0, 0, 0)), expected, 1e-5f, "rotation at " + std::to_string(time));
  }
}

// The axis change turns rotation keys four at a time in SSE2 lanes (core/axes.cpp): every key,
// in the lanes and in the tail after them, is bit for bit glm's normalize(pq * q * conjugate(pq)),
// also for keys glm's normalize treats specially (zero, NaN, infinite, tiny, huge).
TEST(Axes, RotationLanesMatchTheScalarRule) {
  std::vector<glm::quat> keys;
  uint32_t state = 12345;
  auto next = [&] { return nextSigned(state); };
  for (int i = 0; i < 1000; ++i) keys.emplace_back(next(), next(), next(), next());
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (const glm::quat& q : {glm::quat(0, 0, 0, 0), glm::quat(nan, 0, 0, 0), glm::quat(1, inf, 0, 0), glm::quat(1e-30f, 1e-30f, 0, 0),
                             glm::quat(1e30f, 1e30f, 1, 0), glm::quat(-0.0f, -0.0f, -0.0f, -0.0f), glm::quat(1e-45f, 0, 0, 0)})
    keys.insert(keys.begin() + static_cast<std::ptrdiff_t>(keys.size() / 2), q);
  for (const AxisSystem& from : {AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::PosY, true, 1.0f},
                                 AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::NegY, false, 1.0f},
                                 AxisSystem{AxisSystem::Up::Y, AxisSystem::Axis::PosX, true, 1.0f}}) {
    const glm::mat3 p = basisToGltf(from);
    const glm::quat pq = glm::normalize(glm::quat_cast(p * glm::determinant(p)));
    for (size_t count : {size_t{0}, size_t{1}, size_t{3}, size_t{4}, size_t{5}, size_t{8}, size_t{11}, keys.size()}) {
      Rig rig;
      rig.provenance.axes = from;
      rig.skeleton.bones.resize(1);
      BoneTrack t;
      t.bone = 0;
      t.rotation.values.assign(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(count));
      for (size_t k = 0; k < count; ++k) t.rotation.times.push_back(static_cast<float>(k));
      rig.animations.push_back(Animation{"a", 1.0f, {t}, {}, {}});
      toGltfAxes(rig);
      const std::vector<glm::quat>& got = rig.animations[0].tracks[0].rotation.values;
      ASSERT_EQ(got.size(), count);
      for (size_t k = 0; k < count; ++k) {
        const glm::quat want = glm::normalize(pq * keys[k] * glm::conjugate(pq));
        EXPECT_EQ(std::memcmp(&got[k], &want, sizeof want), 0)
            << "key " << k << " of " << count << ": " << got[k].x << " " << got[k].y << " " << got[k].z << " " << got[k].w << " against "
            << want.x << " " << want.y << " " << want.z << " " << want.w;
      }
    }
  }
}

// The bind pose on the left: local = B·D (rig.hpp, TrackSpace).
glm::mat4 trs(const glm::vec3& t, const glm::quat& r, const glm::vec3& s) {
  return glm::translate(glm::mat4(1.0f), t) * glm::mat4_cast(r) * glm::scale(glm::mat4(1.0f), s);
}

void expectNear(const glm::mat4& a, const glm::mat4& b, float tol, const std::string& what) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) EXPECT_NEAR(a[c][r], b[c][r], tol) << what << " [" << c << "][" << r << "]";
}

Skeleton boundSkeleton() {
  Skeleton sk;
  sk.bones.resize(2);
  sk.bones[1].parent = 0;
  sk.bones[1].translation = {1, 2, 3};
  sk.bones[1].rotation = glm::angleAxis(0.7f, glm::normalize(glm::vec3(0, 1, 1)));
  sk.bones[1].scale = glm::vec3(2.0f);  // uniform: B·D is a TRS for any delta (rig.hpp, TrackSpace)
  return sk;
}

TEST(TrackSpace, RelativeKeysComposeAsBindTimesDelta) {
  const Skeleton sk = boundSkeleton();
  const Bone& b = sk.bones[1];
  BoneTrack t;
  t.bone = 1;
  t.space = TrackSpace::RelativeToBind;
  t.translation.times = t.rotation.times = t.scale.times = {0.0f, 1.0f};
  t.translation.values = {{0, 0, 0}, {0.5f, -1, 0.25f}};
  t.rotation.values = {glm::quat(1, 0, 0, 0), glm::angleAxis(-1.2f, glm::vec3(1, 0, 0))};
  t.scale.values = {glm::vec3(1), {1, 3, 0.5f}};
  Animation a{"a", 1.0f, {t}, {}, {}};
  makeAbsolute(a, sk);
  const BoneTrack& abs = a.tracks[0];
  EXPECT_EQ(abs.space, TrackSpace::Absolute);
  // The zero delta is the bind pose itself, exactly.
  EXPECT_EQ(abs.translation.values[0], b.translation);
  EXPECT_EQ(abs.rotation.values[0], b.rotation);
  EXPECT_EQ(abs.scale.values[0], b.scale);
  expectNear(trs(abs.translation.values[1], abs.rotation.values[1], abs.scale.values[1]),
             b.localMatrix() * trs(t.translation.values[1], t.rotation.values[1], t.scale.values[1]), 1e-5f, "B·D");
}

TEST(TrackSpace, MakeAbsoluteCommutesWithEveryInterpolation) {
  const Skeleton sk = boundSkeleton();
  const Bone& b = sk.bones[1];
  for (Interpolation mode : {Interpolation::Step, Interpolation::Linear, Interpolation::CubicSpline}) {
    BoneTrack t;
    t.bone = 1;
    t.space = TrackSpace::RelativeToBind;
    t.translation.times = t.rotation.times = t.scale.times = {0.0f, 0.4f, 1.0f};
    t.translation.interpolation = t.rotation.interpolation = t.scale.interpolation = mode;
    t.translation.values = {{0, 0, 0}, {0.5f, -1, 0.25f}, {1, 1, 1}};
    t.rotation.values = {glm::quat(1, 0, 0, 0), glm::angleAxis(-1.2f, glm::vec3(1, 0, 0)), glm::angleAxis(0.4f, glm::vec3(0, 0, 1))};
    t.scale.values = {glm::vec3(1), {1, 3, 0.5f}, glm::vec3(2)};
    if (mode == Interpolation::CubicSpline) {
      t.translation.inTangents = {glm::vec3(0), {1, 2, 3}, {-1, 0, 0}};
      t.translation.outTangents = {{0, 4, 0}, {2, 0, -1}, glm::vec3(0)};
      t.rotation.inTangents = {glm::quat(0, 0, 0, 0), glm::quat(0.1f, 0.2f, 0, 0), glm::quat(0, 0, 0.3f, 0)};
      t.rotation.outTangents = {glm::quat(0, 0.5f, 0, 0), glm::quat(0, 0, 0, 0.2f), glm::quat(0, 0, 0, 0)};
      t.scale.inTangents = {glm::vec3(0), {1, 1, 1}, glm::vec3(0)};
      t.scale.outTangents = {glm::vec3(1), {0, -1, 0}, glm::vec3(0)};
    }
    Animation a{"a", 1.0f, {t}, {}, {}};
    makeAbsolute(a, sk);
    const BoneTrack& abs = a.tracks[0];
    for (float time : {0.1f, 0.3f, 0.55f, 0.9f}) {
      const std::string what = "mode " + std::to_string(static_cast<int>(mode)) + " at " + std::to_string(time);
      const glm::vec3 dt = sampleKeys(t.translation, time, glm::vec3(0));
      const glm::quat dr = sampleKeys(t.rotation, time, glm::quat(1, 0, 0, 0));
      const glm::vec3 ds = sampleKeys(t.scale, time, glm::vec3(1));
      expectNear(sampleKeys(abs.translation, time, glm::vec3(0)), b.translation + b.rotation * (b.scale * dt), 1e-5f, what + " T");
      expectNear(sampleKeys(abs.rotation, time, glm::quat(1, 0, 0, 0)), b.rotation * dr, 1e-5f, what + " R");
      expectNear(sampleKeys(abs.scale, time, glm::vec3(1)), b.scale * ds, 1e-5f, what + " S");
    }
  }
}

TEST(TrackSpace, AbsoluteAndUnboundTracksAreLeftAlone) {
  const Skeleton sk = boundSkeleton();
  BoneTrack absolute;
  absolute.bone = 1;
  absolute.translation.times = {0.0f};
  absolute.translation.values = {{7, 8, 9}};
  BoneTrack unbound = absolute;
  unbound.bone = -1;
  unbound.space = TrackSpace::RelativeToBind;
  Animation a{"a", 1.0f, {absolute, unbound}, {}, {}};
  makeAbsolute(a, sk);
  EXPECT_EQ(a.tracks[0].translation.values[0], glm::vec3(7, 8, 9));
  EXPECT_EQ(a.tracks[1].translation.values[0], glm::vec3(7, 8, 9));
  EXPECT_EQ(a.tracks[1].space, TrackSpace::RelativeToBind) << "no bind pose to apply: still relative";
}

}  // namespace
