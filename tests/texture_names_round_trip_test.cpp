// Writers keep the texture references they read (issue 29: names, not pixels), through the command
// line as a modder goes: a model whose material names its textures, `convert` to .glb, then
// `convert x.glb --to FORMAT`, read back by the format's own reader. RenderWare keeps the texture
// and mask names (its Material/Texture chunks), BattleForge each map by role (§7 Textures), Sluggers
// the texture bind by index (§3: a block names no texture), an RW4 arena the texture GUIDs of its
// RenderMaterialData (docs/rw4_materials.md). No texture file is beside any model: the names alone
// must survive.
#include <gtest/gtest.h>

#include <fstream>

#include "formats/battleforge/battleforge.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/rw4/rw4.hpp"
#include "image/png.hpp"
#include "formats/sluggers/sluggers.hpp"
#include "support/gltf_edit.hpp"
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

// `convert --to rw4-arena` writes the materials' RenderMaterialData: the diffuse and normal channels'
// texture GUIDs a Skate 3 model named come back (before, the arena writer wrote no material).
TEST(TextureNamesRoundTrip, Rw4ArenaKeepsItsMaterialsTextureGuids) {
  const std::string dir = test::scratchDir("texture_names_rw4");
  Material m = named("sky", {"0x0a950eac2dfefc7b"});
  m.normalMap = "0x00000000000000b1";
  rw4::ArenaWriteOptions options;
  options.materials = true;
  auto arena = rw4::writeArena(test::quadRig(m, true), options);
  ASSERT_TRUE(arena.ok()) << arena.error().describe();
  writeFile(dir + "/sky.psg", *arena);
  const std::vector<uint8_t> bytes = throughGltf(dir, "sky.psg", "rw4-arena", "back.psg");
  const auto source = Source::fromBytes(bytes, "back.psg");
  ReadContext ctx;
  auto back = rw4::readArena(*source, ctx);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->rigs.size(), 1u);
  ASSERT_EQ(back->rigs[0].materials.size(), 1u);
  EXPECT_EQ(back->rigs[0].materials[0].textures, m.textures);
  EXPECT_EQ(back->rigs[0].materials[0].normalMap, m.normalMap);
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

// A glTF from another tool (or Blender without "Custom Properties") names no textures in rigport's
// extras: the base colour image's name is the texture's, extension dropped, so a DFF written from it
// still names the texture its TXD holds. Before, the name was lost and the DFF's material had none.
TEST(TextureNamesRoundTrip, AForeignGltfsImageNameBecomesTheDffTexture) {
  const std::string dir = test::scratchDir("texture_names_foreign");
  tinygltf::Model m = test::exported(test::quadRig(named("body", {}), true));
  ASSERT_EQ(m.materials.size(), 1u);
  m.materials[0].extras = tinygltf::Value();
  // The picture in the GLB's buffer, as exporters embed it: a 1×1 grey PNG.
  auto png = image::encodePng(ImageLevel{1, 1, {128, 128, 128, 255}});
  ASSERT_TRUE(png.ok()) << png.error().describe();
  std::vector<unsigned char>& buffer = m.buffers.at(0).data;
  while (buffer.size() % 4 != 0) buffer.push_back(0);
  tinygltf::BufferView view;
  view.buffer = 0;
  view.byteOffset = buffer.size();
  view.byteLength = png->size();
  buffer.insert(buffer.end(), png->begin(), png->end());
  m.bufferViews.push_back(view);
  tinygltf::Image image;
  image.name = "Body_Skin.png";
  image.bufferView = static_cast<int>(m.bufferViews.size() - 1);
  image.mimeType = "image/png";
  m.images.push_back(image);
  tinygltf::Texture texture;
  texture.source = 0;
  m.textures.push_back(texture);
  m.materials[0].pbrMetallicRoughness.baseColorTexture.index = 0;
  const std::string glb = test::save(m, dir + "/foreign.glb");
  const test::CliRun back = test::runCli("convert " + test::quote(glb) + " --to renderware-dff -o " + test::quote(dir + "/back.dff"));
  ASSERT_EQ(back.code, 0) << back.text;
  auto dff = renderware::readDff(test::readBytes(dir + "/back.dff"));
  ASSERT_TRUE(dff.ok()) << dff.error().describe();
  ASSERT_EQ(dff->materials.size(), 1u);
  EXPECT_EQ(dff->materials[0].textures, std::vector<std::string>{"Body_Skin"});
}
