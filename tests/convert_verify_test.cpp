// `convert --to FORMAT` measures what it wrote (pipeline/verify.hpp, issue 27): the encoded files
// read back in memory and compared with the input as `rigport compare` compares them. A writer that
// loses something known (the .anm holds no scale keys: a ×1.3 chest scale on the demo's walk) gets one
// pose-loss warning giving the measured size and place, the same as `rigport compare` finds in the
// files written; a lossless write gets none; --strict refuses the loss; --no-verify skips the check;
// a part that does not read back is one note, and the conversion goes on.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/axes.hpp"
#include "demo/character.hpp"
#include "formats/registry.hpp"
#include "pipeline/encode.hpp"
#include "pipeline/verify.hpp"
#include "support/gltf_edit.hpp"
#include "support/test_support.hpp"
#include "support/writer_cell.hpp"

using namespace rigport;
namespace fs = std::filesystem;

namespace {

Rig demo(bool scaleKeys, uint32_t vertices = DemoOptions{}.vertices) {
  DemoOptions options;
  options.vertices = vertices;
  Rig rig = makeDemoCharacter(options);
  toGltfAxes(rig);
  if (!scaleKeys) return rig;
  const int32_t chest = rig.skeleton.find("spine_03");
  for (BoneTrack& t : rig.animations.at(0).tracks) {
    if (t.bone != chest) continue;
    t.scale.times = {0.0f, 0.5f, 1.0f};
    t.scale.values = {glm::vec3(1.0f), glm::vec3(1.3f), glm::vec3(1.0f)};
  }
  return rig;
}

struct Converted {
  std::string dir;
  test::CliRun run;
  nlohmann::json report;  // convert --json
};

Converted convertToDff(const std::string& name, bool scaleKeys, const std::string& flags) {
  Converted c;
  c.dir = test::scratchDir("convert_verify_" + name);
  const std::string in = test::writeGlb(demo(scaleKeys), c.dir + "/in.glb");
  c.run = test::runCli(fmt::format("convert {} --to renderware-dff -o {}/m.dff --anim-out {}/walk.anm --json{}", test::quote(in), c.dir, c.dir, flags),
                       test::Capture::StdoutOnly);
  c.report = nlohmann::json::parse(c.run.text, nullptr, false);
  return c;
}

// The messages of the warnings with this code.
std::vector<std::string> warnings(const Converted& c, const std::string& code) {
  std::vector<std::string> out;
  if (c.report.is_discarded()) return out;
  for (const auto& file : c.report["files"])
    for (const auto& w : file["warnings"])
      if (w["code"] == code) out.push_back(w["message"].get<std::string>());
  return out;
}

// The dropped chest scale moves the torso and arms: the warning states the worst of each measure as
// `rigport compare` measures the files written, at the same place.
TEST(ConvertVerify, ScaleKeysIntoAnmAreMeasured) {
  const Converted c = convertToDff("scale", true, "");
  ASSERT_EQ(c.run.code, 0) << c.run.text;
  const std::vector<std::string> lost = warnings(c, kPoseLossCode);
  ASSERT_EQ(lost.size(), 1u) << c.run.text;
  const test::CliRun compared = test::runCli(fmt::format("compare {}/in.glb {}/m.dff --anim-b {}/walk.anm --json", c.dir, c.dir, c.dir),
                                             test::Capture::StdoutOnly);
  ASSERT_EQ(compared.code, 1) << compared.text;
  const nlohmann::json report = nlohmann::json::parse(compared.text);
  const std::string text = "warning: " + lost.front();
  for (const auto& m : report["measures"]) {
    const std::string measure = m["measure"].get<std::string>();
    const double worst = m["worst"].get<double>();
    const double stated = test::statedSize(text, measure);
    EXPECT_NEAR(stated, worst, 5e-3 * worst + 1e-12) << measure << ": " << lost.front();
    if (m["within"].get<bool>()) continue;
    // Beyond: the place compare names is the one the warning names.
    const auto& where = m["where"];
    EXPECT_EQ(where["clip"], "walk") << measure;
    EXPECT_NE(text.find(fmt::format("{} {:.3g} m (clip 'walk' at {:.4f} s", measure, worst, where["time"].get<double>())), std::string::npos)
        << where.dump() << "\n" << lost.front();
  }
  // Beyond precision only in the clips: the rest pose is written exactly.
  EXPECT_LT(test::statedSize(text, "rest joints"), 1e-4 * report["modelSize"].get<double>()) << lost.front();
  EXPECT_GT(test::statedSize(text, "clip vertices"), 0.05) << "the 30% chest scale moves the arms by centimetres: " << lost.front();
  EXPECT_TRUE(warnings(c, kPoseUnverifiedCode).empty()) << c.run.text;
}

TEST(ConvertVerify, LosslessWriteSaysNothing) {
  const Converted c = convertToDff("lossless", false, "");
  ASSERT_EQ(c.run.code, 0) << c.run.text;
  EXPECT_TRUE(warnings(c, kPoseLossCode).empty()) << c.run.text;
  EXPECT_TRUE(warnings(c, kPoseUnverifiedCode).empty()) << c.run.text;
  EXPECT_TRUE(fs::exists(c.dir + "/m.dff") && fs::exists(c.dir + "/walk.anm"));
}

TEST(ConvertVerify, StrictRefusesThePoseLossAndWritesNothing) {
  const Converted c = convertToDff("strict", true, " --strict");
  EXPECT_EQ(c.run.code, 1) << c.run.text;
  ASSERT_FALSE(c.report.is_discarded()) << c.run.text;
  const std::string error = c.report["files"].at(0)["error"].dump();
  EXPECT_NE(error.find("pose-loss; strict"), std::string::npos) << error;
  EXPECT_NE(error.find("clip vertices"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(c.dir + "/m.dff"));
  EXPECT_FALSE(fs::exists(c.dir + "/walk.anm"));
}

TEST(ConvertVerify, NoVerifySkipsTheCheck) {
  const Converted c = convertToDff("skip", true, " --no-verify --strict");
  ASSERT_EQ(c.run.code, 0) << c.run.text;
  EXPECT_TRUE(warnings(c, kPoseLossCode).empty()) << c.run.text;
  EXPECT_FALSE(warnings(c, "scale-keys-dropped").empty()) << "the writer's own warning stays: " << c.run.text;
  EXPECT_TRUE(fs::exists(c.dir + "/m.dff"));
  const test::CliRun usage = test::runCli(fmt::format("convert {}/in.glb -o {}/x.glb --no-verify", c.dir, c.dir));
  EXPECT_EQ(usage.code, 2) << usage.text;
  EXPECT_NE(usage.text.find("--no-verify goes with --to"), std::string::npos) << usage.text;
}

// An .anm that does not read back (its bytes cut short) is a note; the model is still measured.
TEST(ConvertVerify, APartThatDoesNotReadBackIsOneNote) {
  const Rig rig = demo(false);
  const FormatInfo* dff = findFormat("renderware-dff");
  const FormatInfo* anm = findFormat("renderware-anm");
  ASSERT_TRUE(dff != nullptr && anm != nullptr);
  auto encoded = encodeForFormat(rig, *dff, "out/m.dff", anm, "out/walk.anm");
  ASSERT_TRUE(encoded) << encoded.error().describe();
  ASSERT_EQ(encoded->files.size(), 2u);
  encoded->files[1].second.resize(20);
  const Provenance measured = measureWritten(rig, *encoded, ReadOptions{});
  ASSERT_EQ(measured.warnings.size(), 1u);
  EXPECT_EQ(measured.warnings[0].code, kPoseUnverifiedCode);
  EXPECT_NE(measured.warnings[0].message.find("out/walk.anm does not read back"), std::string::npos) << measured.warnings[0].message;
  EXPECT_NE(measured.warnings[0].message.find("not measured whole"), std::string::npos) << measured.warnings[0].message;
}

// A mesh beyond the DFF's 65535 vertices is split (exactly): the check pairs the pieces read back with
// the input split the same way, so no pose-loss (before: bind vertices 0.256 m, vertices of other
// pieces paired by index). The scale keys' loss on it is measured with the vertices posed at a few
// of the clip's times (kCheckClipVertexPoses), which the warning says.
TEST(ConvertVerify, ASplitMeshIsNoLossAndABigMeshIsPosedAtFewTimes) {
  const FormatInfo* dff = findFormat("renderware-dff");
  const FormatInfo* anm = findFormat("renderware-anm");
  ASSERT_TRUE(dff != nullptr && anm != nullptr);
  for (const bool scaleKeys : {false, true}) {
    const Rig rig = demo(scaleKeys, 70000);
    auto encoded = encodeForFormat(rig, *dff, "out/m.dff", anm, "out/walk.anm");
    ASSERT_TRUE(encoded) << encoded.error().describe();
    const bool split = std::any_of(encoded->losses.warnings.begin(), encoded->losses.warnings.end(), [](const Warning& w) { return w.code == "mesh-split"; });
    EXPECT_TRUE(split) << "the mesh is split";
    const Provenance measured = measureWritten(rig, *encoded, ReadOptions{});
    if (!scaleKeys) {
      EXPECT_TRUE(measured.warnings.empty()) << measured.warnings.front().message;
      continue;
    }
    ASSERT_EQ(measured.warnings.size(), 1u);
    const std::string& message = measured.warnings[0].message;
    EXPECT_EQ(measured.warnings[0].code, kPoseLossCode);
    EXPECT_LT(test::statedSize("warning: " + message, "bind vertices"), 1e-4 * 2.56) << message;
    EXPECT_GT(test::statedSize("warning: " + message, "clip vertices"), 0.05) << message;
    EXPECT_NE(message.find("vertices posed at 3 of"), std::string::npos) << message;
  }
}

}  // namespace
