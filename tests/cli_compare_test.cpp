// `rigport compare` (RIGPORT_CLI) as a user runs it: exit 0 for the same rig, 1 with the bone, clip
// and time named when the rigs differ or one lacks a clip (0 with --allow-missing), 2 for usage
// errors, --json that parses, and the modding workflow's last step on the RenderWare sample (game
// file against the .glb `convert` wrote from it, which the glTF-Validator accepts).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "demo/character.hpp"
#include "export/gltf.hpp"
#include "support/gltf_edit.hpp"
#include "support/gltf_validator.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using test::Capture;
using test::CliRun;
using test::quote;
using test::writeGlb;

namespace {

nlohmann::json measureNamed(const nlohmann::json& report, const std::string& name) {
  for (const auto& m : report.at("measures")) {
    if (m.at("measure") == name) return m;
  }
  ADD_FAILURE() << "no measure " << name;
  return {};
}

nlohmann::json jsonOf(const CliRun& r) {
  nlohmann::json j = nlohmann::json::parse(r.text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.text;
  return j;
}

}  // namespace

TEST(CliCompare, UsageErrorsExitTwo) {
  EXPECT_EQ(test::runCli("compare").code, 2);
  EXPECT_EQ(test::runCli("compare a.glb").code, 2);
  EXPECT_EQ(test::runCli("compare a.glb b.glb --rate 0").code, 2);
  EXPECT_EQ(test::runCli("compare a.glb b.glb --tolerance -1").code, 2);
  EXPECT_EQ(test::runCli("compare a.glb b.glb --no-such-option").code, 2);
}

TEST(CliCompare, HelpStatesTheDefaultToleranceAndExitCodes) {
  const CliRun r = test::runCli("compare --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.text.find("1e-4 for float values, 1e-3 for quantised keys"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("--allow-missing"), std::string::npos);
  EXPECT_NE(test::runCli("--help").text.find("compare"), std::string::npos);
}

TEST(CliCompare, AnUnreadableFileExitsOneNamingIt) {
  const std::string dir = test::scratchDir("cli_compare_unreadable");
  const std::string a = writeGlb(makeDemoCharacter(), dir + "/a.glb");
  const CliRun r = test::runCli("compare " + quote(a) + " " + quote(dir + "/missing.glb"), Capture::StderrOnly);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.text.rfind("rigport: error: " + dir + "/missing.glb", 0), 0u) << r.text;
}

// The same file twice: exit 0, every measure 0 in the JSON.
TEST(CliCompare, TheSameRigExitsZero) {
  const std::string dir = test::scratchDir("cli_compare_same");
  const std::string a = writeGlb(makeDemoCharacter(), dir + "/a.glb");
  const CliRun text = test::runCli("compare " + quote(a) + " " + quote(a), Capture::StdoutOnly);
  EXPECT_EQ(text.code, 0) << text.text;
  EXPECT_NE(text.text.find("result          same within"), std::string::npos) << text.text;
  const CliRun json = test::runCli("compare --json " + quote(a) + " " + quote(a), Capture::StdoutOnly);
  EXPECT_EQ(json.code, 0);
  const nlohmann::json j = jsonOf(json);
  EXPECT_EQ(j.at("same"), true);
  for (const auto& m : j.at("measures")) EXPECT_EQ(m.at("worst"), 0.0) << m.dump();
  EXPECT_TRUE(j.at("unmatched").empty());
}

// A joint moved 1 cm: exit 1, the joint named in text and JSON; a --tolerance above 1 cm accepts it.
TEST(CliCompare, AMovedJointExitsOneNamingIt) {
  const std::string dir = test::scratchDir("cli_compare_moved");
  const Rig rig = makeDemoCharacter();
  Rig moved = rig;
  moved.skeleton.bones[static_cast<size_t>(moved.skeleton.find("spine_02"))].translation += glm::vec3(0.01f, 0.0f, 0.0f);
  const std::string a = writeGlb(rig, dir + "/a.glb");
  const std::string b = writeGlb(moved, dir + "/b.glb");
  const CliRun text = test::runCli("compare " + quote(a) + " " + quote(b), Capture::StdoutOnly);
  EXPECT_EQ(text.code, 1);
  EXPECT_NE(text.text.find("bone 'spine_02'  BEYOND"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find("result          differ"), std::string::npos) << text.text;
  const CliRun json = test::runCli("compare --json " + quote(a) + " " + quote(b), Capture::StdoutOnly);
  EXPECT_EQ(json.code, 1);
  const nlohmann::json j = jsonOf(json);
  EXPECT_EQ(j.at("same"), false);
  const nlohmann::json rest = measureNamed(j, "rest joints");
  EXPECT_EQ(rest.at("where").at("bone"), "spine_02");
  EXPECT_NEAR(rest.at("worst").get<double>(), 0.01, 1e-5);
  EXPECT_EQ(rest.at("within"), false);
  EXPECT_EQ(test::runCli("compare --tolerance 0.0101 " + quote(a) + " " + quote(b)).code, 0);
}

// A clip only the first file has: exit 1 listing it; --allow-missing accepts it.
TEST(CliCompare, AMissingClipExitsOneUnlessAllowed) {
  const std::string dir = test::scratchDir("cli_compare_missing_clip");
  const Rig rig = makeDemoCharacter();
  Rig still = rig;
  still.animations.clear();
  const std::string a = writeGlb(rig, dir + "/a.glb");
  const std::string b = writeGlb(still, dir + "/b.glb");
  const CliRun text = test::runCli("compare " + quote(a) + " " + quote(b), Capture::StdoutOnly);
  EXPECT_EQ(text.code, 1);
  EXPECT_NE(text.text.find("only in first   clip 'walk'"), std::string::npos) << text.text;
  const nlohmann::json j = jsonOf(test::runCli("compare --json " + quote(a) + " " + quote(b), Capture::StdoutOnly));
  ASSERT_EQ(j.at("unmatched").size(), 1u);
  EXPECT_EQ(j.at("unmatched")[0].at("kind"), "clip");
  EXPECT_EQ(j.at("unmatched")[0].at("onlyIn"), "first");
  EXPECT_EQ(test::runCli("compare --allow-missing " + quote(a) + " " + quote(b)).code, 0);
}

// The modding workflow's last step (README): the game file with its .anm against the .glb convert
// wrote from them is the same within 1e-5 m on every measure; --anim binds to the first file only.
TEST(CliCompare, RenderwareSampleAgainstItsConvertedGlb) {
  const std::string dir = test::scratchDir("cli_compare_rw");
  const std::string dff = test::sample("renderware/synthetic_skin_rw36003.dff");
  const std::string anm = test::sample("renderware/synthetic_skin_rw36003.anm");
  const std::string glb = dir + "/ped.glb";
  const CliRun converted = test::runCli("convert " + quote(dff) + " --anim " + quote(anm) + " -o " + quote(glb));
  ASSERT_EQ(converted.code, 0) << converted.text;
  const test::ValidatorRun validator = test::validateGltfFile(glb);
  EXPECT_TRUE(validator.ok) << validator.output;
  const CliRun r = test::runCli("compare --json " + quote(dff) + " --anim " + quote(anm) + " " + quote(glb), Capture::StdoutOnly);
  EXPECT_EQ(r.code, 0) << r.text;
  const nlohmann::json j = jsonOf(r);
  for (const auto& m : j.at("measures")) {
    EXPECT_GT(m.at("compared").get<size_t>(), 0u) << m.dump();
    EXPECT_LE(m.at("worst").get<double>(), 1e-5) << m.dump();
  }
  EXPECT_EQ(j.at("matched").at("clips").size(), 1u);
  EXPECT_EQ(j.at("first").at("format"), "renderware-dff");
  EXPECT_EQ(j.at("second").at("format"), "gltf");
  // Without the .anm the first file has no clip while the .glb has one.
  const CliRun noAnim = test::runCli("compare " + quote(dff) + " " + quote(glb), Capture::StdoutOnly);
  EXPECT_EQ(noAnim.code, 1);
  EXPECT_NE(noAnim.text.find("only in second  clip"), std::string::npos) << noAnim.text;
}

// A Sims 3 CLIP stores keys of 12 bits (sims3_clip.md §2.5): the demo's walk written as a CLIP poses
// up to 0.44 mm (1.7e-4 of its 2.6 m) from the .glb's, beyond float precision but within the
// format's stated 1e-3, which compare takes as its default tolerance and names.
TEST(CliCompare, TheDefaultToleranceIsTheCoarsestFormatsStatedPrecision) {
  const std::string dir = test::scratchDir("cli_compare_precision");
  const std::string a = writeGlb(makeDemoCharacter(), dir + "/a.glb");
  const CliRun convert = test::runCli("convert " + quote(a) + " --to sims3-clip -o " + quote(dir + "/{clip}.clip"));
  ASSERT_EQ(convert.code, 0) << convert.text;
  const std::string args = quote(a) + " " + quote(dir + "/walk.clip") + " --skeleton-b " + quote(a);
  const CliRun text = test::runCli("compare " + args, Capture::StdoutOnly);
  EXPECT_EQ(text.code, 0) << text.text;
  EXPECT_NE(text.text.find("(0.001 x model size: sims3-clip's stated precision)"), std::string::npos) << text.text;
  const nlohmann::json j = jsonOf(test::runCli("compare --json " + args, Capture::StdoutOnly));
  const double worst = measureNamed(j, "clip joints").at("worst").get<double>();
  EXPECT_GT(worst, 1e-4 * j.at("modelSize").get<double>()) << "beyond float precision: the 12-bit keys are measured";
  EXPECT_LE(worst, j.at("tolerance").get<double>());
  EXPECT_EQ(test::runCli("compare " + args + " --tolerance 0.0001", Capture::StdoutOnly).code, 1);
}
