// `rigport convert` on damaged files (core/repair.hpp): a DFF with non-finite vertex positions
// converts with a warning and fails with --strict; an IFP with a clip starting before 0 converts
// every clip. Fixtures come from our own DFF writer and a hand-built ANP3 package.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

#include <tiny_gltf.h>

#include "platform/files.hpp"
#include "demo/character.hpp"
#include "formats/renderware/renderware.hpp"
#include "support/gltf_validator.hpp"
#include "support/ifp_builder.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using test::CliRun;
using test::quote;
namespace fs = std::filesystem;

namespace {

std::string writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  EXPECT_TRUE(platform::writeFileAtomic(path, bytes).ok()) << path;
  return path;
}

// The demo character as a DFF, with vertices 5 and 9 of its mesh made non-finite.
std::string damagedDff(const std::string& dir) {
  Rig rig = makeDemoCharacter();
  rig.meshes.at(0).positions[5].x = std::numeric_limits<float>::quiet_NaN();
  rig.meshes.at(0).positions[9].z = std::numeric_limits<float>::infinity();
  auto bytes = renderware::writeDff(rig);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().describe());
  return writeFile(dir + "/damaged.dff", bytes.ok() ? *bytes : std::vector<uint8_t>{});
}

TEST(CliRepair, NonFinitePositionsConvertWithAWarningAndFailWithStrict) {
  const std::string dir = test::scratchDir("cli_repair_positions");
  const std::string dff = damagedDff(dir);
  const CliRun info = test::runCli("info " + quote(dff));
  EXPECT_EQ(info.code, 0) << info.text;
  EXPECT_NE(info.text.find("[repaired-position]"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("2 vertex position(s) not finite (first: 5, 9)"), std::string::npos) << info.text;

  const CliRun converted = test::runCli("convert " + quote(dff) + " -o " + quote(dir + "/out"));
  EXPECT_EQ(converted.code, 0) << converted.text;
  EXPECT_NE(converted.text.find("warning"), std::string::npos) << converted.text;
  const test::ValidatorRun run = test::validateGltfFile(dir + "/out/damaged.glb");
  EXPECT_TRUE(run.ok) << run.output;

  const CliRun strict = test::runCli("convert --strict " + quote(dff) + " -o " + quote(dir + "/strict"));
  EXPECT_EQ(strict.code, 1) << strict.text;
  EXPECT_NE(strict.text.find("positions[5]"), std::string::npos) << strict.text;
  EXPECT_FALSE(fs::exists(dir + "/strict/damaged.glb"));
  EXPECT_EQ(test::runCli("info --strict " + quote(dff)).code, 1);
}

// A real modded ped.ifp has clips starting a few ticks before 0; the other clips must not be lost.
TEST(CliRepair, IfpClipStartingBeforeZeroConvertsWithEveryOtherClip) {
  const std::string dir = test::scratchDir("cli_repair_ifp");
  const Rig character = makeDemoCharacter();
  auto dffBytes = renderware::writeDff(character);
  ASSERT_TRUE(dffBytes.ok());
  const std::string dff = writeFile(dir + "/ped.dff", *dffBytes);
  const std::string bone = character.skeleton.bones.at(1).name;
  const std::vector<test::IfpClip> clips = {{"walk", {{bone, -1, {0, 30, 60}}}},
                                            {"fall", {{bone, -1, {-7, 20, 40}}}},
                                            {"idle", {{bone, -1, {0, 60}}}}};
  const std::string ifp = writeFile(dir + "/ped.ifp", test::buildAnp3("ped", clips));

  const CliRun r = test::runCli("convert " + quote(dff) + " --anim " + quote(ifp) + " -o " + quote(dir + "/out"));
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string glb = dir + "/out/ped.glb";
  const test::ValidatorRun run = test::validateGltfFile(glb);
  EXPECT_TRUE(run.ok) << run.output;
  tinygltf::Model m;
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromFile(&m, &err, &warn, glb)) << err;
  ASSERT_EQ(m.animations.size(), clips.size());
  EXPECT_EQ(m.animations[1].name, "fall");
  const tinygltf::Accessor& times = m.accessors.at(static_cast<size_t>(m.animations[1].samplers.at(0).input));
  EXPECT_EQ(times.minValues.at(0), 0.0);
  EXPECT_NEAR(times.maxValues.at(0), 47.0 / 60.0, 1e-6);
  EXPECT_EQ(test::runCli("convert --strict " + quote(dff) + " --anim " + quote(ifp) + " -o " + quote(dir + "/strict")).code, 1);
}

}  // namespace
