// resampleAnimations() (core/resample.hpp): every channel of a bound track keyed at 0, 1/fps, ...
// plus the clip's end, with glTF LINEAR values (lerp, shortest slerp) and the bone's rest value for
// a channel the clip does not key; and `rigport convert --resample` gives glTF channels whose
// translation, rotation and scale samplers have equal key counts.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "platform/files.hpp"
#include "core/resample.hpp"
#include "demo/character.hpp"
#include "formats/renderware/renderware.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

Rig oneBone() {
  Rig rig;
  Bone b;
  b.name = "arm";
  b.translation = {1, 2, 3};
  b.scale = {1, 1, 2};
  rig.skeleton.bones.push_back(b);
  Animation a;
  a.name = "wave";
  a.duration = 0.95f;
  BoneTrack t;
  t.bone = 0;
  t.translation.times = {0.0f, 0.5f};
  t.translation.values = {{0, 0, 0}, {1, 0, 0}};
  t.rotation.times = {0.2f, 0.6f};
  t.rotation.values = {glm::quat(1, 0, 0, 0), -glm::angleAxis(1.0f, glm::vec3(0, 0, 1))};  // far hemisphere
  a.tracks.push_back(t);
  rig.animations.push_back(a);
  return rig;
}

TEST(Resample, EveryChannelIsKeyedAtTheSameTimesUpToTheEnd) {
  Rig rig = oneBone();
  ASSERT_TRUE(resampleAnimations(rig, 10.0f));
  const BoneTrack& t = rig.animations[0].tracks[0];
  std::vector<float> expected;  // 0, 0.1, ..., 0.9 (k / 10 below the end), then the end, 0.95
  for (int k = 0; k < 10; ++k) expected.push_back(static_cast<float>(k) / 10.0f);
  expected.push_back(0.95f);
  EXPECT_EQ(t.translation.times, expected);
  EXPECT_EQ(t.rotation.times, expected);
  EXPECT_EQ(t.scale.times, expected);
  EXPECT_NEAR(t.translation.values[2].x, 0.4f, 1e-6f);       // lerp at 0.2
  EXPECT_EQ(t.translation.values.back(), glm::vec3(1, 0, 0));  // held after the last key
  EXPECT_EQ(t.rotation.values[1], glm::quat(1, 0, 0, 0));      // held before the first key
  // Halfway between the two rotation keys (0.4 s): half the angle on the short path.
  const float angle = 2.0f * std::acos(std::min(1.0f, std::fabs(t.rotation.values[4].w)));
  EXPECT_NEAR(angle, 0.5f, 1e-5f);
  for (const glm::vec3& s : t.scale.values) EXPECT_EQ(s, glm::vec3(1, 1, 2)) << "no scale keys: the rest scale";
}

TEST(Resample, RejectsARateThatIsNotPositiveOrWouldMakeTooManyKeys) {
  Rig rig = oneBone();
  EXPECT_FALSE(resampleAnimations(rig, 0.0f));
  EXPECT_FALSE(resampleAnimations(rig, -30.0f));
  rig.animations[0].duration = 1e6f;
  EXPECT_FALSE(resampleAnimations(rig, 30.0f));
}

// Through the CLI on the demo character (DFF) and its walk (.anm): per animated node, the
// translation, rotation and scale samplers of each animation have the same key count.
TEST(Resample, ConvertWithResampleGivesEqualKeyCountsPerNode) {
  const std::string dir = test::scratchDir("resample_cli");
  const Rig character = makeDemoCharacter();
  auto dff = renderware::writeDff(character);
  auto anm = renderware::writeAnm(character);
  ASSERT_TRUE(dff.ok() && anm.ok());
  ASSERT_TRUE(platform::writeFileAtomic(dir + "/walker.dff", *dff).ok());
  ASSERT_TRUE(platform::writeFileAtomic(dir + "/walk.anm", *anm).ok());
  const test::CliRun run = test::runCli("convert " + test::quote(dir + "/walker.dff") + " --anim " + test::quote(dir + "/walk.anm") +
                                        " --gltf --resample 24 -o " + test::quote(dir + "/out"));
  ASSERT_EQ(run.code, 0) << run.text;
  const std::vector<uint8_t> text = test::readBytes(dir + "/out/walker.gltf");
  const nlohmann::json j = nlohmann::json::parse(text.begin(), text.end());
  ASSERT_FALSE(j["animations"].empty());
  for (const auto& anim : j["animations"]) {
    std::map<int, std::map<std::string, int>> counts;  // node -> path -> key count
    for (const auto& c : anim["channels"]) {
      const auto& sampler = anim["samplers"][c["sampler"].get<size_t>()];
      counts[c["target"]["node"]][c["target"]["path"]] = j["accessors"][sampler["input"].get<size_t>()]["count"];
    }
    for (const auto& [node, paths] : counts) {
      ASSERT_EQ(paths.size(), 3u) << "node " << node;
      EXPECT_EQ(paths.at("translation"), paths.at("rotation")) << "node " << node;
      EXPECT_EQ(paths.at("scale"), paths.at("rotation")) << "node " << node;
    }
  }
}

}  // namespace
}  // namespace rigport
