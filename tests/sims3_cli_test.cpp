// The Sims 3 from the command line: `info` lists a package's resources, `convert` writes one
// validator-clean .glb per clip (on the package's rig, a --skeleton, or hash-named nodes with a
// warning), `hash` prints the keys users look clips up by, and Blender imports a converted clip
// with its keys on the rig's bones.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <map>

#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "formats/registry.hpp"
#include "formats/sims3/sims3.hpp"
#include "support/blender.hpp"
#include "support/gltf_pose.hpp"
#include "support/gltf_validator.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string s3(const std::string& name) { return test::sample("sims3/" + name); }
const std::string kPackage = "synthetic_clip_and_rig.package";

// Node names an animation's channels target, with the paths animated on each.
std::map<std::string, std::set<std::string>> animatedNodes(const tinygltf::Model& m, size_t animation = 0) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& c : m.animations.at(animation).channels) out[m.nodes.at(static_cast<size_t>(c.target_node)).name].insert(c.target_path);
  return out;
}

TEST(Sims3Cli, InfoListsEveryResourceOfAPackage) {
  const test::CliRun run = test::runCli("info " + test::quote(s3(kPackage)), test::Capture::StdoutOnly);
  ASSERT_EQ(run.code, 0) << run.text;
  EXPECT_NE(run.text.find("sims3-package"), std::string::npos) << run.text;
  EXPECT_NE(run.text.find("items           3"), std::string::npos) << run.text;
  for (const char* want : {"0166038C:00000000:0000000000000000", "6B20C4F3:00000000:2643EC3DB99F3F8C", "a_synthetic_test_x", "synthRig",
                           "name-map"}) {
    EXPECT_NE(run.text.find(want), std::string::npos) << want << "\n" << run.text;
  }
}

TEST(Sims3Cli, ConvertPackageGivesAValidGlbPlayingOnTheRigsBones) {
  const std::string dir = test::scratchDir("sims3_convert_package");
  const test::CliRun run = test::runCli("convert " + test::quote(s3(kPackage)) + " -o " + test::quote(dir));
  ASSERT_EQ(run.code, 0) << run.text;
  const std::string glb = dir + "/synthetic_clip_and_rig.glb";
  ASSERT_TRUE(fs::exists(glb)) << run.text;
  const test::ValidatorRun v = test::validateGltfFile(glb);
  EXPECT_TRUE(v.ok) << v.output;
  const tinygltf::Model m = test::loadGlbModel(glb);
  ASSERT_EQ(m.animations.size(), 1u);
  EXPECT_EQ(m.animations[0].name, "a_synthetic_test_x");
  const auto nodes = animatedNodes(m);
  EXPECT_EQ(nodes.at("b__ROOT_bind__"), (std::set<std::string>{"translation", "rotation"}));
  EXPECT_EQ(nodes.at("b__Pelvis__"), (std::set<std::string>{"translation", "rotation"}));
  EXPECT_EQ(nodes.count("b__Spine0__"), 1u);
  // The morph channel and the sound event travel in the animation's extras.
  const std::string extras = tinygltf::Value(m.animations[0].extras).Get("events").IsArray() ? "events" : "";
  EXPECT_EQ(extras, "events");
}

// A package of the rig and two clips, written by rigport's package writer: one .glb per clip.
std::string twoClipPackage(const std::string& dir) {
  auto asset = loadAsset(s3(kPackage));
  EXPECT_TRUE(asset) << asset.error().describe();
  Rig rig = asset->rigs.at(0);
  Animation walk = asset->clips.at(0).animations.at(0);
  walk.name = "a_walk_x";
  Animation run = walk;
  run.name = "c_run_x";
  rig.animations = {walk, run};
  auto bytes = sims3::writePackage(rig);
  EXPECT_TRUE(bytes) << bytes.error().describe();
  const std::string path = dir + "/two.package";
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
  return path;
}

TEST(Sims3Cli, ConvertPackageWithSeveralClipsWritesOneGlbEach) {
  const std::string dir = test::scratchDir("sims3_convert_many");
  const std::string pkg = twoClipPackage(dir);
  const test::CliRun run = test::runCli("convert " + test::quote(pkg) + " -o " + test::quote(dir));
  ASSERT_EQ(run.code, 0) << run.text;
  for (const char* clip : {"a_walk_x", "c_run_x"}) {
    const std::string glb = dir + "/two/" + clip + ".glb";
    ASSERT_TRUE(fs::exists(glb)) << clip << "\n" << run.text;
    const test::ValidatorRun v = test::validateGltfFile(glb);
    EXPECT_TRUE(v.ok) << v.output;
    const tinygltf::Model m = test::loadGlbModel(glb);
    ASSERT_EQ(m.animations.size(), 1u);
    EXPECT_EQ(m.animations[0].name, clip);
    EXPECT_EQ(animatedNodes(m).count("b__ROOT_bind__"), 1u);
  }
}

TEST(Sims3Cli, MergeWritesEveryClipOfThePackageIntoOneGlb) {
  const std::string dir = test::scratchDir("sims3_convert_merge");
  const std::string pkg = twoClipPackage(dir);
  const test::CliRun run = test::runCli("convert " + test::quote(pkg) + " --merge -o " + test::quote(dir));
  ASSERT_EQ(run.code, 0) << run.text;
  const std::string glb = dir + "/two.glb";
  ASSERT_TRUE(fs::exists(glb)) << run.text;
  EXPECT_FALSE(fs::exists(dir + "/two"));
  const test::ValidatorRun v = test::validateGltfFile(glb);
  EXPECT_TRUE(v.ok) << v.output;
  const tinygltf::Model m = test::loadGlbModel(glb);
  ASSERT_EQ(m.animations.size(), 2u);
  EXPECT_EQ(m.animations[0].name, "a_walk_x");
  EXPECT_EQ(m.animations[1].name, "c_run_x");
}

// --item picks one clip of a package; it still plays on the package's rig.
TEST(Sims3Cli, ItemPicksOneClipWhichStillPlaysOnThePackagesRig) {
  const std::string dir = test::scratchDir("sims3_convert_item");
  const std::string pkg = twoClipPackage(dir);
  const test::CliRun run = test::runCli("convert " + test::quote(pkg) + " --item c_run_x -o " + test::quote(dir + "/out"));
  ASSERT_EQ(run.code, 0) << run.text;
  const std::string glb = dir + "/out/two.glb";
  ASSERT_TRUE(fs::exists(glb)) << run.text;
  EXPECT_EQ(run.text.find("warning"), std::string::npos) << run.text;
  const tinygltf::Model m = test::loadGlbModel(glb);
  ASSERT_EQ(m.animations.size(), 1u);
  EXPECT_EQ(m.animations[0].name, "c_run_x");
  EXPECT_EQ(animatedNodes(m).count("b__ROOT_bind__"), 1u);
}

TEST(Sims3Cli, ClipWithoutARigConvertsOnHashNamedNodesWithAWarning) {
  const std::string dir = test::scratchDir("sims3_convert_clip_alone");
  const test::CliRun run = test::runCli("convert " + test::quote(s3("synthetic_a_synthetic_test_x.clip")) + " -o " + test::quote(dir));
  ASSERT_EQ(run.code, 0) << run.text;
  EXPECT_NE(run.text.find("warning"), std::string::npos) << run.text;
  const std::string glb = dir + "/synthetic_a_synthetic_test_x.glb";
  ASSERT_TRUE(fs::exists(glb));
  EXPECT_TRUE(test::validateGltfFile(glb).ok);
  const auto nodes = animatedNodes(test::loadGlbModel(glb));
  EXPECT_EQ(nodes.count("0x57884BB9"), 1u);
  EXPECT_EQ(nodes.count("0xFEAE6981"), 1u);
  const test::CliRun info = test::runCli("info " + test::quote(s3("synthetic_a_synthetic_test_x.clip")) + " --skeleton " +
                                         test::quote(s3("synthetic_synthRig.rig")));
  ASSERT_EQ(info.code, 0) << info.text;
  EXPECT_NE(info.text.find("4 of 4 tracks"), std::string::npos) << info.text;
}

TEST(Sims3Cli, ClipWithSkeletonFromARigFileOrAPackageItem) {
  const std::string dir = test::scratchDir("sims3_convert_skeleton");
  for (const std::string& skeleton : {s3("synthetic_synthRig.rig"), s3(kPackage) + "#synthRig"}) {
    const test::CliRun run = test::runCli("convert " + test::quote(s3("synthetic_a_synthetic_test_x.clip")) + " --skeleton " +
                                          test::quote(skeleton) + " --overwrite -o " + test::quote(dir));
    ASSERT_EQ(run.code, 0) << run.text;
    const std::string glb = dir + "/synthetic_a_synthetic_test_x.glb";
    EXPECT_TRUE(test::validateGltfFile(glb).ok) << skeleton;
    const auto nodes = animatedNodes(test::loadGlbModel(glb));
    EXPECT_EQ(nodes.count("b__ROOT_bind__"), 1u) << skeleton;
    EXPECT_EQ(nodes.count("0x57884BB9"), 0u) << skeleton;
  }
}

TEST(Sims3Cli, DamagedPackageIsExitOneWithTheOffsetAndNoOutput) {
  const std::string dir = test::scratchDir("sims3_convert_bad");
  std::vector<uint8_t> bytes = test::readBytes(s3(kPackage));
  bytes.resize(bytes.size() - 10);  // the index is last
  const std::string bad = dir + "/bad.package";
  {
    std::ofstream out(bad, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const test::CliRun run = test::runCli("convert " + test::quote(bad) + " -o " + test::quote(dir + "/out"), test::Capture::StderrOnly);
  EXPECT_EQ(run.code, 1) << run.text;
  EXPECT_NE(run.text.find("bad.package"), std::string::npos) << run.text;
  EXPECT_NE(run.text.find("index"), std::string::npos) << run.text;
  EXPECT_NE(run.text.find("0x"), std::string::npos) << run.text;
  EXPECT_FALSE(fs::exists(dir + "/out/bad.glb"));
}

TEST(Sims3Cli, HashPrintsTheKeysUsersLookClipsUpBy) {
  const test::CliRun run = test::runCli("hash c_buff_EWGermy_coughing_x b__ROOT_bind__ --json", test::Capture::StdoutOnly);
  ASSERT_EQ(run.code, 0) << run.text;
  const Json j = Json::parse(run.text);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["clipKey"]["instance"], "0xAE79976FFBB8D529");
  EXPECT_EQ(j[0]["clipKey"]["genericName"], "a_buff_EWGermy_coughing_x");
  EXPECT_EQ(j[1]["fnv32"], "0x57884BB9");
  const test::CliRun text = test::runCli("hash b__ROOT__", test::Capture::StdoutOnly);
  EXPECT_NE(text.text.find("0xFEAE6981"), std::string::npos) << text.text;
}

// Blender's importer: a clip on a rig with no mesh arrives as one armature (the skin every skeleton
// gets makes its nodes bones; bare nodes would be empties) with the rig's bones and parents, and
// one action carrying the clip's keys on those pose bones.
TEST(Sims3Cli, BlenderImportsTheRigWithItsClipAsOneArmatureWithItsAction) {
  const std::string dir = test::scratchDir("sims3_blender");
  const test::CliRun run = test::runCli("convert " + test::quote(s3(kPackage)) + " -o " + test::quote(dir));
  ASSERT_EQ(run.code, 0) << run.text;
  const test::BlenderRun blender = test::inspectWithBlender(dir + "/synthetic_clip_and_rig.glb", dir + "/report.json");
  ASSERT_TRUE(blender.ok) << blender.output;
  const Json& report = blender.report;
  EXPECT_TRUE(report["empties"].empty()) << report["empties"].dump();
  ASSERT_EQ(report["armatures"].size(), 1u) << report.dump();
  std::map<std::string, std::string> parentOf;
  for (const auto& b : report["armatures"][0]["bones"]) parentOf[b["name"]] = b["parent"].is_null() ? "" : b["parent"].get<std::string>();
  EXPECT_EQ(parentOf.size(), 4u);
  EXPECT_EQ(parentOf.at("b__ROOT__"), "");
  EXPECT_EQ(parentOf.at("b__ROOT_bind__"), "b__ROOT__");
  EXPECT_EQ(parentOf.at("b__Pelvis__"), "b__ROOT_bind__");
  EXPECT_EQ(parentOf.at("b__Spine0__"), "b__ROOT_bind__");
  // Keyframes per pose bone channel, and how many actions animate pose bones.
  std::map<std::string, int> keys;
  size_t poseActions = 0;
  for (const auto& action : report["actions"]) {
    bool pose = false;
    for (const auto& fc : action["fcurves"]) {
      const std::string path = fc["data_path"];
      if (path.rfind("pose.bones[", 0) != 0) continue;
      pose = true;
      keys[path + "[" + fc["array_index"].dump() + "]"] = fc["keyframes"];
      EXPECT_NEAR(fc["first_frame"].get<double>(), 0.0, 1e-3) << path;
    }
    poseActions += pose ? 1 : 0;
  }
  EXPECT_EQ(poseActions, 1u) << report["actions"].dump();
  // b__ROOT_bind__: 4 translation keys (frames 0/10/20/30) and 3 rotation keys (0/15/30); b__Pelvis__ 2.
  EXPECT_EQ(keys["pose.bones[\"b__ROOT_bind__\"].location[1]"], 4) << report["actions"].dump();
  EXPECT_EQ(keys["pose.bones[\"b__ROOT_bind__\"].rotation_quaternion[0]"], 3);
  EXPECT_EQ(keys["pose.bones[\"b__Pelvis__\"].location[0]"], 2);
}

}  // namespace
}  // namespace rigport
