// A DFF with its TXD (issue 29) through the command line as a user runs it: the TXD beside the DFF
// by name in any case, or given with --txd, embeds its textures as PNG images in the .glb, bound to
// the materials that name them (ignoring case) and validator-clean; a texture found nowhere is a
// warning naming it and the files looked in; --no-textures keeps the untextured output byte for
// byte; a TXD alone is listed by `info` and written as PNG files by `convert`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <png.h>

#include "demo/character.hpp"
#include "formats/renderware/renderware.hpp"
#include <tiny_gltf.h>

#include "support/gltf_validator.hpp"
#include "support/gltf_pose.hpp"
#include "support/png_decode.hpp"
#include "support/test_support.hpp"
#include "support/txd_builder.hpp"

using namespace rigport;
namespace fs = std::filesystem;

namespace {

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// An 8x8 8888 texture: opaque colour ramps, and with `cutOut` a transparent left column (a mask).
test::TxdRaster rampTexture(const std::string& name, bool cutOut) {
  test::TxdRaster r;
  r.name = name;
  r.width = 8;
  r.height = 8;
  r.filterAddressing = 0x3106;  // linear mip linear, U wrap, V clamp
  std::vector<uint8_t> level;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) level.insert(level.end(), {uint8_t(30 * y), uint8_t(200), uint8_t(30 * x), uint8_t(cutOut && x == 0 ? 0 : 255)});
  r.levels = {level};
  return r;
}

// The RGBA pixels `rampTexture` stores as B, G, R, A.
std::vector<uint8_t> rampPixels(bool cutOut) {
  std::vector<uint8_t> rgba;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) rgba.insert(rgba.end(), {uint8_t(30 * x), uint8_t(200), uint8_t(30 * y), uint8_t(cutOut && x == 0 ? 0 : 255)});
  return rgba;
}

std::vector<uint8_t> imagePixels(const tinygltf::Model& m, size_t image, uint32_t* width, uint32_t* height) {
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<size_t>(m.images.at(image).bufferView));
  return test::decodePng(std::span<const uint8_t>(m.buffers.at(0).data).subspan(v.byteOffset, v.byteLength), width, height);
}

// The demo character, its triangles in two materials: "Skin" (textured, red tint) and "Cloth"
// (textured "cloth_cut"), and one more material naming a texture no file holds.
Rig texturedCharacter() {
  Rig rig = makeDemoCharacter();
  Material skin, cloth, lost;
  skin.name = "skin";
  skin.baseColor = {1.0f, 0.5f, 0.5f, 1.0f};
  skin.textures = {"Skin"};
  cloth.name = "cloth";
  cloth.textures = {"CLOTH_CUT"};
  lost.name = "lost";
  lost.textures = {"nowhere"};
  rig.materials = {skin, cloth, lost};
  Mesh& mesh = rig.meshes.at(0);
  const auto third = static_cast<uint32_t>(mesh.indices.size() / 9 * 3);
  mesh.parts = {MeshPart{0, 0, third}, MeshPart{1, third, third}, MeshPart{2, 2 * third, static_cast<uint32_t>(mesh.indices.size()) - 2 * third}};
  return rig;
}

std::string writeDffFolder(const std::string& name) {
  const std::string dir = test::scratchDir(name);
  auto dff = renderware::writeDff(texturedCharacter());
  EXPECT_TRUE(dff.ok());
  if (dff.ok()) writeFile(dir + "/ped.dff", *dff);
  return dir;
}

}  // namespace

TEST(RenderwareTxdCli, TxdBesideTheDffIsEmbeddedAndBoundByName) {
  const std::string dir = writeDffFolder("txd_cli_beside");
  writeFile(dir + "/PED.TXD", test::writeTxd({rampTexture("skin", false), rampTexture("cloth_cut", true), rampTexture("unused", false)}));
  const test::CliRun run = test::runCli("convert " + test::quote(dir + "/ped.dff") + " -o " + test::quote(dir + "/out") + " -v");
  ASSERT_EQ(run.code, 0) << run.text;
  const std::string glb = dir + "/out/ped.glb";
  const test::ValidatorRun v = test::validateGltfFile(glb);
  EXPECT_TRUE(v.ok) << v.output;

  const tinygltf::Model m = test::loadGlbModel(glb);
  ASSERT_EQ(m.images.size(), 2u) << "one image per texture a material uses";
  ASSERT_EQ(m.textures.size(), 2u);
  ASSERT_GE(m.materials.size(), 3u);
  const auto textureOf = [&](size_t material) { return m.materials[material].pbrMetallicRoughness.baseColorTexture.index; };
  ASSERT_EQ(textureOf(0), 0);
  ASSERT_EQ(textureOf(1), 1);
  EXPECT_EQ(textureOf(2), -1) << "the material whose texture is missing keeps its colour";
  EXPECT_EQ(m.images[0].mimeType, "image/png");
  EXPECT_EQ(m.images[0].name, "skin");
  EXPECT_EQ(m.images[1].name, "cloth_cut");
  EXPECT_EQ(m.materials[0].alphaMode, "OPAQUE");
  EXPECT_EQ(m.materials[1].alphaMode, "MASK");
  EXPECT_NEAR(m.materials[0].pbrMetallicRoughness.baseColorFactor[1], 0.5, 1e-2) << "the material colour tints its texture";
  const tinygltf::Sampler& s = m.samplers.at(static_cast<size_t>(m.textures[0].sampler));
  EXPECT_EQ(s.minFilter, 9987);  // LINEAR_MIPMAP_LINEAR
  EXPECT_EQ(s.magFilter, 9729);
  EXPECT_EQ(s.wrapS, 10497);     // REPEAT
  EXPECT_EQ(s.wrapT, 33071);     // CLAMP_TO_EDGE
  for (size_t i = 0; i < 2; ++i) {
    uint32_t w = 0, h = 0;
    EXPECT_EQ(imagePixels(m, static_cast<size_t>(m.textures[i].source), &w, &h), rampPixels(i == 1)) << "image " << i;
    EXPECT_EQ(w, 8u);
    EXPECT_EQ(h, 8u);
  }

  const test::CliRun info = test::runCli("info " + test::quote(dir + "/ped.dff"));
  ASSERT_EQ(info.code, 0) << info.text;
  EXPECT_NE(info.text.find("texture 'nowhere' not found; looked in " + dir + "/PED.TXD"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("cloth_cut"), std::string::npos) << info.text;
}

TEST(RenderwareTxdCli, TxdGivenWithTheOptionIsUsed) {
  const std::string dir = writeDffFolder("txd_cli_option");
  writeFile(dir + "/shared.txd", test::writeTxd({rampTexture("SKIN", false)}));
  const test::CliRun run = test::runCli("convert " + test::quote(dir + "/ped.dff") + " --txd " + test::quote(dir + "/shared.txd") + " -o " +
                                        test::quote(dir + "/out") + " --json");
  ASSERT_EQ(run.code, 0) << run.text;
  EXPECT_NE(run.text.find("texture 'CLOTH_CUT' not found; looked in " + dir + "/shared.txd"), std::string::npos) << run.text;
  const tinygltf::Model m = test::loadGlbModel(dir + "/out/ped.glb");
  EXPECT_EQ(m.images.size(), 1u);
  EXPECT_EQ(m.materials.at(0).pbrMetallicRoughness.baseColorTexture.index, 0);
  EXPECT_TRUE(test::validateGltfFile(dir + "/out/ped.glb").ok);
}

// Fact (librw Texture::filterAddressing): the filter mode is bits 0-7, U addressing 8-11, V 12-15.
// Each texture keeps its own as a glTF sampler, and textures of one setting share one sampler.
TEST(RenderwareTxdCli, EachDistinctFilterAndAddressingIsOneSampler) {
  const std::string dir = writeDffFolder("txd_cli_samplers");
  test::TxdRaster skin = rampTexture("skin", false), cloth = rampTexture("cloth_cut", false), other = rampTexture("nowhere", false);
  skin.filterAddressing = 0x1102;   // linear, U wrap, V wrap
  cloth.filterAddressing = 0x3201;  // nearest, U mirror, V clamp
  other.filterAddressing = 0x1102;  // as skin's
  writeFile(dir + "/ped.txd", test::writeTxd({skin, cloth, other}));
  ASSERT_EQ(test::runCli("convert " + test::quote(dir + "/ped.dff") + " -o " + test::quote(dir + "/out")).code, 0);
  const std::string glb = dir + "/out/ped.glb";
  const test::ValidatorRun v = test::validateGltfFile(glb);
  EXPECT_TRUE(v.ok) << v.output;
  const tinygltf::Model m = test::loadGlbModel(glb);
  ASSERT_EQ(m.textures.size(), 3u);
  ASSERT_EQ(m.samplers.size(), 2u) << "two distinct settings";
  const auto samplerOf = [&](size_t material) {
    const int texture = m.materials.at(material).pbrMetallicRoughness.baseColorTexture.index;
    return texture < 0 ? -1 : m.textures.at(static_cast<size_t>(texture)).sampler;
  };
  EXPECT_EQ(samplerOf(0), samplerOf(2)) << "skin and nowhere share one sampler";
  ASSERT_NE(samplerOf(0), samplerOf(1));
  ASSERT_GE(samplerOf(1), 0);
  const tinygltf::Sampler& linear = m.samplers.at(static_cast<size_t>(samplerOf(0)));
  EXPECT_EQ(linear.magFilter, 9729);  // LINEAR
  EXPECT_EQ(linear.minFilter, 9729);  // LINEAR: no mip filter in mode 2
  EXPECT_EQ(linear.wrapS, 10497);     // REPEAT
  EXPECT_EQ(linear.wrapT, 10497);
  const tinygltf::Sampler& nearest = m.samplers.at(static_cast<size_t>(samplerOf(1)));
  EXPECT_EQ(nearest.magFilter, 9728);  // NEAREST
  EXPECT_EQ(nearest.minFilter, 9728);
  EXPECT_EQ(nearest.wrapS, 33648);     // MIRRORED_REPEAT
  EXPECT_EQ(nearest.wrapT, 33071);     // CLAMP_TO_EDGE
}

// "plain": no texture file beside the DFF nor given, converted as before textures existed.
TEST(RenderwareTxdCli, NoTexturesKeepsTheUntexturedOutputByteForByte) {
  const std::string dir = writeDffFolder("txd_cli_none");
  ASSERT_EQ(test::runCli("convert " + test::quote(dir + "/ped.dff") + " -o " + test::quote(dir + "/plain")).code, 0);
  writeFile(dir + "/ped.txd", test::writeTxd({rampTexture("skin", false)}));
  ASSERT_EQ(test::runCli("convert " + test::quote(dir + "/ped.dff") + " --no-textures -o " + test::quote(dir + "/none")).code, 0);
  ASSERT_EQ(test::runCli("convert " + test::quote(dir + "/ped.dff") + " -o " + test::quote(dir + "/textured")).code, 0);
  EXPECT_EQ(test::readBytes(dir + "/none/ped.glb"), test::readBytes(dir + "/plain/ped.glb"));
  EXPECT_NE(test::readBytes(dir + "/textured/ped.glb"), test::readBytes(dir + "/plain/ped.glb"));
}

TEST(RenderwareTxdCli, ATxdAloneIsListedAndWrittenAsPngs) {
  const std::string dir = test::scratchDir("txd_cli_alone");
  writeFile(dir + "/cars.txd", test::writeTxd({rampTexture("body", false), rampTexture("glass", true)}));
  const test::CliRun info = test::runCli("info " + test::quote(dir + "/cars.txd"));
  ASSERT_EQ(info.code, 0) << info.text;
  EXPECT_NE(info.text.find("renderware-txd"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("textures        2"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("glass"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("8x8"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("8888"), std::string::npos) << info.text;

  const test::CliRun run = test::runCli("convert " + test::quote(dir + "/cars.txd") + " -o " + test::quote(dir + "/out"));
  ASSERT_EQ(run.code, 0) << run.text;
  for (const auto& [name, cutOut] : {std::pair{"body", false}, std::pair{"glass", true}}) {
    const std::vector<uint8_t> png = test::readBytes(dir + "/out/cars/" + name + ".png");
    uint32_t w = 0, h = 0;
    EXPECT_EQ(test::decodePng(png, &w, &h), rampPixels(cutOut)) << name;
  }
  EXPECT_EQ(test::runCli("convert " + test::quote(dir + "/cars.txd") + " -o " + test::quote(dir + "/one.glb")).code, 1)
      << "a TXD holds no model to write as one .glb";
  EXPECT_FALSE(fs::exists(dir + "/one.glb"));
}

// The TXD converted after its DFF into the same folder: its PNGs go to out/ped/, and the DFF's
// out/ped.glb, which the TXD never writes, was taken for its output ("exists", exit 3).
TEST(RenderwareTxdCli, ATxdConvertsIntoTheFolderOfItsModelsGlb) {
  const std::string dir = writeDffFolder("txd_cli_after_dff");
  writeFile(dir + "/ped.txd", test::writeTxd({rampTexture("skin", false)}));
  const std::string out = test::quote(dir + "/out");
  ASSERT_EQ(test::runCli("convert " + test::quote(dir + "/ped.dff") + " -o " + out).code, 0);
  const std::vector<uint8_t> glb = test::readBytes(dir + "/out/ped.glb");
  ASSERT_FALSE(glb.empty());
  const test::CliRun txd = test::runCli("convert " + test::quote(dir + "/ped.txd") + " -o " + out);
  ASSERT_EQ(txd.code, 0) << txd.text;
  uint32_t w = 0, h = 0;
  EXPECT_EQ(test::decodePng(test::readBytes(dir + "/out/ped/skin.png"), &w, &h), rampPixels(false));
  EXPECT_EQ(test::readBytes(dir + "/out/ped.glb"), glb);
  // A PNG that exists is still refused, and kept with --skip-existing.
  EXPECT_EQ(test::runCli("convert " + test::quote(dir + "/ped.txd") + " -o " + out).code, 3);
  EXPECT_EQ(test::runCli("convert " + test::quote(dir + "/ped.txd") + " --skip-existing -o " + out).code, 0);
}

// A single input's PNGs are encoded on -j threads (image::encodePngs): the outputs are the bytes of
// encoding them in turn.
TEST(RenderwareTxdCli, TexturesEncodedOnSeveralThreadsWriteTheSameBytes) {
  const std::string dir = writeDffFolder("txd_cli_threads");
  writeFile(dir + "/ped.txd", test::writeTxd({rampTexture("skin", false), rampTexture("cloth_cut", true), rampTexture("other", false)}));
  for (const char* jobs : {"1", "3"}) {
    const std::string out = dir + "/j" + jobs;
    ASSERT_EQ(test::runCli("convert " + test::quote(dir + "/ped.dff") + " -j " + jobs + " -o " + test::quote(out)).code, 0);
    ASSERT_EQ(test::runCli("convert " + test::quote(dir + "/ped.txd") + " -j " + jobs + " -o " + test::quote(out + "/txd")).code, 0);
  }
  const std::vector<uint8_t> glb = test::readBytes(dir + "/j1/ped.glb");
  ASSERT_FALSE(glb.empty());
  EXPECT_EQ(test::readBytes(dir + "/j3/ped.glb"), glb);
  for (const char* name : {"skin", "cloth_cut", "other"}) {
    const std::vector<uint8_t> png = test::readBytes(dir + "/j1/txd/ped/" + std::string(name) + ".png");
    ASSERT_FALSE(png.empty()) << name;
    EXPECT_EQ(test::readBytes(dir + "/j3/txd/ped/" + std::string(name) + ".png"), png) << name;
  }
}

TEST(RenderwareTxdCli, AConsoleTxdIsRefusedNamingItsPlatform) {
  const std::string dir = test::scratchDir("txd_cli_ps2");
  test::TxdRaster ps2 = rampTexture("body", false);
  ps2.platform = 0x00325350;
  writeFile(dir + "/ps2.txd", test::writeTxd({ps2}));
  const test::CliRun run = test::runCli("convert " + test::quote(dir + "/ps2.txd") + " -o " + test::quote(dir + "/out"));
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.text.find("PS2 rasters are not read"), std::string::npos) << run.text;
  EXPECT_FALSE(fs::exists(dir + "/out/ps2"));
}
