// Writers keep the texture references they read (issue 29: names, not pixels), through the command
// line as a modder goes: a model whose material names its textures, `convert` to .glb, then
// `convert x.glb --to FORMAT`, read back by the format's own reader. RenderWare keeps the texture
// and mask names (its Material/Texture chunks), BattleForge each map by role (§7 Textures), Sluggers
// the texture bind by index (§3: a block names no texture). No texture file is beside any model: the
// names alone must survive. (An RW4 arena writer has nothing to keep: its reader reads no materials.)
#include <gtest/gtest.h>

#include <fstream>

#include "formats/battleforge/battleforge.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/sluggers/sluggers.hpp"
#include "support/quad_rig.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// `model` converted to .glb and that .glb back to `format`: the bytes written, empty on failure.
std::vector<uint8_t> throughGltf(const std::string& dir, const std::string& model, const std::string& format, const std::string& out) {
  const test::CliRun toGlb = test::runCli("convert " + test::quote(dir + "/" + model) + " -o " + test::quote(dir + "/model.glb"));
  EXPECT_EQ(toGlb.code, 0) << toGlb.text;
  const test::CliRun back = test::runCli("convert " + test::quote(dir + "/model.glb") + " --to " + format + " -o " + test::quote(dir + "/" + out));
  EXPECT_EQ(back.code, 0) << back.text;
  return toGlb.code == 0 && back.code == 0 ? test::readBytes(dir + "/" + out) : std::vector<uint8_t>{};
}

Material named(const std::string& name, const std::vector<std::string>& textures) {
  Material m;
  m.name = name;
  m.textures = textures;
  return m;
}

}  // namespace

TEST(TextureNamesRoundTrip, DffKeepsItsTextureAndMaskNames) {
  const std::string dir = test::scratchDir("texture_names_dff");
  Material m = named("body", {"Body_Skin"});
  m.extras = {{"maskTexture", "body_skin_a"}};
  auto dff = renderware::writeDff(test::quadRig(m, true));
  ASSERT_TRUE(dff.ok()) << dff.error().describe();
  writeFile(dir + "/body.dff", *dff);
  auto back = renderware::readDff(throughGltf(dir, "body.dff", "renderware-dff", "back.dff"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->materials.size(), 1u);
  EXPECT_EQ(back->materials[0].textures, std::vector<std::string>{"Body_Skin"}) << "the name as stored, case kept";
  EXPECT_EQ(back->materials[0].extras.value("maskTexture", ""), "body_skin_a");
}

TEST(TextureNamesRoundTrip, DrsKeepsEachMapByRole) {
  const std::string dir = test::scratchDir("texture_names_drs");
  Material m = named("unit_col", {});
  m.extras["battleforge"]["maps"] = {{"_col", "unit_col"}, {"_nor", "unit_nor"}, {"_par", "unit_par"}};
  auto drs = battleforge::writeDrs(test::quadRig(m, true));
  ASSERT_TRUE(drs.ok()) << drs.error().describe();
  writeFile(dir + "/unit.drs", *drs);
  auto back = battleforge::readDrs(throughGltf(dir, "unit.drs", "battleforge-drs", "back.drs"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->materials.size(), 1u);
  EXPECT_EQ(back->materials[0].extras["battleforge"]["maps"], m.extras["battleforge"]["maps"]);
}

TEST(TextureNamesRoundTrip, SluggersKeepsTheTextureBind) {
  const std::string dir = test::scratchDir("texture_names_sluggers");
  Material m = named("texture3", {});
  m.extras["sluggers"]["texture"] = 3u;
  auto block = sluggers::writeModel(test::quadRig(m, false));
  ASSERT_TRUE(block.ok()) << block.error().describe();
  writeFile(dir + "/model.sluggers", *block);
  const std::vector<uint8_t> bytes = throughGltf(dir, "model.sluggers", "sluggers-model", "back.sluggers");
  ReadContext ctx;
  auto back = sluggers::readModel(bytes, ctx);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->materials.size(), 1u);
  EXPECT_EQ(back->materials[0].extras["sluggers"]["texture"], 3u) << "the bind names TEX texture 3 as before";
}

// A name read in one format reaches another's writer: a BattleForge colour map becomes the DFF
// material's texture.
TEST(TextureNamesRoundTrip, ADrsColourMapBecomesTheDffTexture) {
  const std::string dir = test::scratchDir("texture_names_drs_dff");
  Material m = named("unit_col", {});
  m.extras["battleforge"]["maps"] = {{"_col", "unit_col"}};
  auto drs = battleforge::writeDrs(test::quadRig(m, true));
  ASSERT_TRUE(drs.ok()) << drs.error().describe();
  writeFile(dir + "/unit.drs", *drs);
  auto back = renderware::readDff(throughGltf(dir, "unit.drs", "renderware-dff", "unit.dff"));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->materials.size(), 1u);
  EXPECT_EQ(back->materials[0].textures, std::vector<std::string>{"unit_col"});
}
