// BattleForge SKA reader and writer against expected_oracle_parse.json (the SR-ImpEx-for-Blender
// reader's parse of the two synthetic .ska files): headers, normalised times × duration, keys with
// rotations as (x, y, z, −w), tangents per second (tangent / duration), and binding by Bone.version
// to the synthetic DRS. Tolerance: 1e-6 absolute (the oracle prints the float32 values exactly).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "core/bind.hpp"
#include "formats/battleforge/axes.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using namespace rigport::battleforge;
using nlohmann::json;

namespace {

constexpr float kTol = 1e-6f;
const char* kSka7 = "synthetic_type7_spine.ska";
const char* kSka6 = "synthetic_type6_root_head.ska";

std::vector<uint8_t> sampleBytes(const std::string& name) { return test::readBytes(test::sample("battleforge/" + name)); }

json oracle(const std::string& name) {
  std::ifstream in(test::sample("battleforge/expected_oracle_parse.json"));
  return json::parse(in)[name];
}

ClipSet readSample(const std::string& name) {
  auto r = readSka(sampleBytes(name));
  EXPECT_TRUE(r.ok()) << (r ? "" : r.error().describe());
  return r ? *r : ClipSet{};
}

const BoneTrack* trackOf(const Animation& anim, uint32_t version) {
  for (const BoneTrack& t : anim.tracks)
    if (t.target.id == version) return &t;
  return nullptr;
}

// Every channel of the oracle's parse, as read: times × duration, values, tangents / duration.
void expectMatchesOracle(const ClipSet& clips, const json& o) {
  ASSERT_EQ(clips.animations.size(), 1u);
  const Animation& anim = clips.animations[0];
  const float duration = o["duration"].get<float>();
  EXPECT_EQ(anim.duration, duration);
  EXPECT_EQ(anim.extras["battleforge"]["type"], o["type"]);
  EXPECT_EQ(anim.extras["battleforge"]["repeat"], o["repeat"]);
  EXPECT_EQ(anim.extras["battleforge"]["stutterMode"], o["stutter_mode"]);
  EXPECT_EQ(anim.extras["battleforge"]["frameLength"], o["frame_length"]);
  size_t channels = 0;
  for (const json& h : o["headers"]) {
    const BoneTrack* t = trackOf(anim, h["bone_id"].get<uint32_t>());
    ASSERT_NE(t, nullptr) << h.dump();
    const size_t start = h["tick"].get<size_t>(), count = h["interval"].get<size_t>();
    const bool rotation = h["type"].get<int>() == 1;
    const size_t n = rotation ? t->rotation.times.size() : t->translation.times.size();
    ASSERT_EQ(n, count) << h.dump();
    for (size_t k = 0; k < count; ++k) {
      const json& key = o["keys"][start + k];
      const float time = o["times"][start + k].get<float>() * duration;
      if (rotation) {
        EXPECT_EQ(t->rotation.interpolation, Interpolation::CubicSpline);
        EXPECT_NEAR(t->rotation.times[k], time, kTol);
        const glm::quat q = t->rotation.values[k];
        EXPECT_NEAR(q.x, key[0].get<float>(), kTol);
        EXPECT_NEAR(q.y, key[1].get<float>(), kTol);
        EXPECT_NEAR(q.z, key[2].get<float>(), kTol);
        EXPECT_NEAR(q.w, -key[3].get<float>(), kTol);  // stored negated (§9)
        const glm::quat m = t->rotation.outTangents[k];
        EXPECT_NEAR(m.x, key[4].get<float>() / duration, kTol);
        EXPECT_NEAR(m.w, -key[7].get<float>() / duration, kTol);
      } else {
        EXPECT_NEAR(t->translation.times[k], time, kTol);
        for (int c = 0; c < 3; ++c) {
          EXPECT_NEAR(t->translation.values[k][c], key[c].get<float>(), kTol);
          EXPECT_NEAR(t->translation.outTangents[k][c], key[4 + c].get<float>() / duration, kTol);
          EXPECT_NEAR(t->translation.inTangents[k][c], key[4 + c].get<float>() / duration, kTol);
        }
      }
      ++channels;
    }
  }
  EXPECT_GT(channels, 0u);
  EXPECT_EQ(clips.provenance.axes, kBattleForgeAxes);
  EXPECT_TRUE(clips.provenance.warnings.empty());
}

}  // namespace

TEST(BattleforgeSka, Type7MatchesOracle) { expectMatchesOracle(readSample(kSka7), oracle(kSka7)); }

TEST(BattleforgeSka, Type6MatchesOracle) { expectMatchesOracle(readSample(kSka6), oracle(kSka6)); }

TEST(BattleforgeSka, Type7KeysAreTheRotationsTheGeneratorMeant) {
  // make_synthetic.py: spine rotates 0°, 45°, 90° about z at t = 0, 0.625, 1.25 s.
  const Animation anim = readSample(kSka7).animations[0];
  const BoneTrack* t = trackOf(anim, 100);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->rotation.values.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    const glm::quat expected = glm::angleAxis(glm::radians(45.0f * static_cast<float>(k)), glm::vec3(0, 0, 1));
    EXPECT_NEAR(glm::dot(t->rotation.values[k], expected), 1.0f, 1e-6f) << k;
  }
  EXPECT_EQ(t->rotation.times, (std::vector<float>{0.0f, 0.625f, 1.25f}));
}

TEST(BattleforgeSka, TracksBindToTheDrsByBoneVersion) {
  auto drs = readDrs(sampleBytes("synthetic_skinned_3bones_2meshes.drs"));
  ASSERT_TRUE(drs.ok());
  Rig rig = *drs;
  std::vector<Animation> anims = readSample(kSka7).animations;
  const std::vector<Animation> six = readSample(kSka6).animations;
  anims.insert(anims.end(), six.begin(), six.end());
  auto report = bindAnimations(rig, anims);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_EQ(report->tracks, 3u);
  EXPECT_EQ(report->bound, 3u);
  EXPECT_EQ(rig.skeleton.bones[rig.animations[0].tracks[0].bone].name, "Bip01_Spine");
  std::vector<std::string> bound;
  for (const BoneTrack& t : rig.animations[1].tracks) bound.push_back(rig.skeleton.bones[t.bone].name);
  EXPECT_EQ(bound, (std::vector<std::string>{"Bip01", "Bip01_Head"}));
}

TEST(BattleforgeSka, WriterReproducesTheSamples) {
  for (const char* name : {kSka6, kSka7}) {
    const ClipSet clips = readSample(name);
    auto bytes = writeSka(clips.animations[0], Skeleton{});
    ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
    EXPECT_EQ(*bytes, sampleBytes(name)) << name;
  }
}

TEST(BattleforgeSka, RigWriterFillsMissingChannelsWithTheBindPoseAndConvertsAxes) {
  auto drs = readDrs(sampleBytes("synthetic_skinned_3bones_2meshes.drs"));
  ASSERT_TRUE(drs.ok());
  Rig rig = *drs;
  ASSERT_TRUE(bindAnimations(rig, readSample(kSka6).animations).ok());
  toGltfAxes(rig);  // written from glTF axes: the writer mirrors back
  auto bytes = writeSka(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  const ClipSet back = readSka(*bytes).value();
  const Animation& anim = back.animations[0];
  ASSERT_EQ(anim.tracks.size(), 2u);
  for (const BoneTrack& t : anim.tracks) {
    EXPECT_EQ(t.translation.values.size(), 1u);  // both channels always (PR #74)
    EXPECT_EQ(t.rotation.values.size(), 1u);
  }
  const BoneTrack* root = trackOf(anim, 300);
  ASSERT_NE(root, nullptr);
  EXPECT_NEAR(std::fabs(glm::dot(root->rotation.values[0], glm::quat(1, 0, 0, 0))), 1.0f, kTol);  // the key, not the bind
  const BoneTrack* head = trackOf(anim, 200);
  ASSERT_NE(head, nullptr);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(head->translation.values[0][c], glm::vec3(0.2f, 1.0f, 0.1f)[c], kTol);
  const Bone& headBone = drs->skeleton.bones[2];
  EXPECT_NEAR(std::fabs(glm::dot(head->rotation.values[0], headBone.rotation)), 1.0f, 1e-5f);  // the bind, in game axes
}

TEST(BattleforgeSka, EveryTruncationAndByteFlipFailsCleanly) {
  size_t runs = 0, failures = 0;
  for (const char* name : {kSka6, kSka7}) {
    const std::vector<uint8_t> original = sampleBytes(name);
    for (size_t len = 0; len < original.size(); ++len) {
      auto r = readSka(std::span(original.data(), len));
      ++runs;
      ASSERT_FALSE(r.ok()) << name << " truncated at " << len << " was accepted";
      ++failures;
      EXPECT_TRUE(r.error().offset.has_value()) << r.error().describe();
    }
    std::vector<uint8_t> bytes = original;
    for (size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] ^= 0xFF;
      auto r = readSka(bytes);
      ++runs;
      failures += r.ok() ? 0 : 1;
      if (!r) EXPECT_TRUE(r.error().offset.has_value()) << name << " flipped at " << i << ": " << r.error().describe();
      bytes[i] ^= 0xFF;
    }
  }
  EXPECT_GT(failures, 0u);
  RecordProperty("runs", static_cast<int>(runs));
}

TEST(BattleforgeSka, HeaderPastTheKeysIsNamed) {
  std::vector<uint8_t> b = sampleBytes(kSka7);
  b[12 + 16 + 4] = 9;  // header 1's interval: 3 -> 9 keys from index 2
  auto r = readSka(b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().describe().find("keys 2..11 of bone version 100 lie past the 5 keys"), std::string::npos) << r.error().describe();
  EXPECT_EQ(r.error().offset, 28u);
}

TEST(BattleforgeSka, TypesWithoutKeyframesAreUnsupported) {
  std::vector<uint8_t> b = sampleBytes(kSka6);
  b[4] = 5;
  auto r = readSka(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::Unsupported);
  EXPECT_NE(r.error().message.find("type 5 carries no keyframes"), std::string::npos);
}

TEST(BattleforgeSka, ProbeAcceptsSkaOnly) {
  EXPECT_TRUE(probeSka(sampleBytes(kSka6)));
  EXPECT_FALSE(probeSka(sampleBytes("synthetic_skinned_3bones_2meshes.drs")));
}

TEST(BattleforgeSka, ZeroDurationIsWarned) {
  std::vector<uint8_t> b = sampleBytes(kSka7);
  std::fill(b.begin() + 228, b.begin() + 232, 0);  // duration (after 5 times and 5 keys)
  auto r = readSka(b);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->provenance.warnings.size(), 1u);
  EXPECT_EQ(r->provenance.warnings[0].code, "zero-duration");
  EXPECT_EQ(r->animations[0].duration, 0.0f);
}

TEST(BattleforgeSka, NegativeDurationIsAnError) {
  std::vector<uint8_t> b = sampleBytes(kSka7);
  b[231] = 0xBF;  // 1.25f = 0x3FA00000 -> 0xBFA00000 = -1.25f
  auto r = readSka(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().offset, 228u);
  EXPECT_NE(r.error().message.find("duration -1.25 s"), std::string::npos) << r.error().describe();
}
