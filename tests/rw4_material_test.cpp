// Skate 3 materials (issue 29, docs/rw4_materials.md): model arenas written by rigport's own arena
// writer with a RenderMaterialData (ArenaWriteOptions::materials), texture arenas by the tests'
// texture arena writer (support/rw4_texture_builder.hpp). The facts each fixture reproduces from the
// one public model/texture pair (REAL in the note):
// - a material's channels are Name, AttribulatorMaterialName (GUID 0), specular, diffuse, detail, in
//   that order, each with the pad words DEADBEEF DEADC0DE and an image channel of 0xFFFF (§3);
// - a texture channel's GUID is the TOC GUID of a Texture in another arena, whose TOC names it
//   "0x<guid>.Texture" (§3); the mesh's m_pMaterial is a subreference {RenderMaterialData row,
//   0x14 + 12 · material} (§4);
// - the texture arena lies beside the model as <model>_Textures.psg (world models) or as
//   0x<guid>.psg (create-a-character textures) (§3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>
#include <png.h>
#include <tiny_gltf.h>

#include "core/read_context.hpp"
#include "formats/rw4/material_layout.hpp"
#include "formats/rw4/rw4.hpp"
#include "support/gltf_validator.hpp"
#include "support/rw4_texture_builder.hpp"
#include "support/gltf_pose.hpp"
#include "support/png_decode.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using namespace rigport::rw4;

namespace {

constexpr uint64_t kSkyGuid = 0x0A950EAC2DFEFC7BULL;     // REAL's diffuse channel and TOC entry
constexpr uint64_t kMoonGuid = 0x26E564982E587B70ULL;    // REAL's specular
constexpr uint64_t kDetailGuid = 0x26E51B122E587B70ULL;  // REAL's detail
constexpr uint64_t kMissingGuid = 0x00000000000000AAULL;
constexpr uint64_t kNormalGuid = 0x00000000000000BBULL;

nlohmann::json channel(const std::string& input, uint64_t guid, const std::string& stream) {
  return {{"input", input}, {"flags", 0}, {"imageChannel", 0xFFFF}, {"guid", fmt::format("0x{:016x}", guid)}, {"stream", stream}};
}

// Two bones, one skinned quad per material.
Rig texturedModel() {
  Rig rig;
  rig.name = "sky";
  Bone root, child;
  root.name = "ROOT";
  child.name = "CHILD";
  child.parent = 0;
  child.translation = {0, 1, 0};
  rig.skeleton.bones = {root, child};
  for (uint32_t m = 0; m < 2; ++m) {
    Mesh mesh;
    mesh.name = fmt::format("quad{}", m);
    mesh.positions = {{0, 0, float(m)}, {1, 0, float(m)}, {1, 1, float(m)}, {0, 1, float(m)}};
    mesh.normals.assign(4, {0, 0, 1});
    mesh.uvs = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    mesh.indices = {0, 1, 2, 0, 2, 3};
    mesh.influenceOffsets = {0, 1, 2, 3, 4};
    for (uint32_t v = 0; v < 4; ++v) mesh.influences.push_back({v % 2, 1.0f});
    mesh.parts = {MeshPart{m, 0, 6}};
    rig.meshes.push_back(std::move(mesh));
  }
  Material sky;  // REAL's five channels, kept as read
  sky.name = "night_skybox_shader_0x000133ab03e38717";
  sky.textures = {fmt::format("0x{:016x}", kSkyGuid)};
  sky.extras = {{"rw4",
                 {{"channels",
                   {channel("Name", 0x8CF9A7010D02E5ABULL, "night_skybox_shader_0x000133ab03e38717"), channel("AttribulatorMaterialName", 0, "sky.default"),
                    channel("specular", kMoonGuid, "moon_gradient_0x00007d3e03e3870a"),
                    channel("diffuse", kSkyGuid, "sky_sanitariumdlc_night_0x2c70170a00450001"),
                    channel("detail", kDetailGuid, "default_gray_0x000002b403e3870a")}}}}};
  Material plain;  // written from its names alone: Name, diffuse, normal
  plain.name = "plain";
  plain.textures = {fmt::format("0x{:016x}", kMissingGuid)};
  plain.normalMap = fmt::format("0x{:016x}", kNormalGuid);
  rig.materials = {sky, plain};
  return rig;
}

std::vector<uint8_t> modelArena(const Rig& rig = texturedModel()) {
  ArenaWriteOptions o;
  o.materials = true;
  auto bytes = writeArena(rig, o);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().describe());
  return bytes.ok() ? std::move(*bytes) : std::vector<uint8_t>{};
}

Result<Asset> readModel(const std::vector<uint8_t>& bytes) {
  ReadContext ctx;
  return readArena(*Source::fromBytes(bytes, "sky.psg"), ctx);
}

bool warned(const Rig& rig, const std::string& code, const std::string& text) {
  return std::any_of(rig.provenance.warnings.begin(), rig.provenance.warnings.end(),
                     [&](const Warning& w) { return w.code == code && w.message.find(text) != std::string::npos; });
}

std::string warnings(const Rig& rig) {
  std::string out;
  for (const Warning& w : rig.provenance.warnings) out += w.code + ": " + w.message + "\n";
  return out;
}

uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b.at(at)) << 24 | uint32_t(b.at(at + 1)) << 16 | uint32_t(b.at(at + 2)) << 8 | b.at(at + 3);
}

void putBe32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) b.at(at + size_t(k)) = uint8_t(v >> (24 - 8 * k));
}

// The file offset of the first object of `type`, from the dictionary (rw4_arena.md §2.3).
size_t objectAt(const std::vector<uint8_t>& b, uint32_t type) {
  const uint32_t rows = be32(b, 0x20), dict = be32(b, 0x30);
  for (uint32_t r = 0; r < rows; ++r) {
    if (be32(b, dict + 0x18 * r + 0x14) == type) return be32(b, dict + 0x18 * r);
  }
  ADD_FAILURE() << "no object of type " << type;
  return 0;
}

// A 4x4 A8R8G8B8 linear texture (format 0xA5, rows 16 bytes apart): every texel a different colour.
test::Rw4Texture argbTexture(uint64_t guid, uint8_t seed) {
  test::Rw4Texture t;
  t.format = 0xA5;
  t.width = 4;
  t.height = 4;
  t.pitch = 16;
  t.guid = guid;
  t.tocName = fmt::format("0x{:016x}.Texture", guid);
  std::vector<uint8_t> level;
  for (uint8_t i = 0; i < 16; ++i) level.insert(level.end(), {uint8_t(255 - 8 * i), uint8_t(seed + i), uint8_t(16 * i), uint8_t(seed ^ i)});
  t.levels = {level};
  return t;
}

// What argbTexture's texels are as RGBA (stored A, R, G, B: rw4_arena.md §3.2, the reader's rule).
std::vector<uint8_t> argbPixels(uint8_t seed) {
  std::vector<uint8_t> rgba;
  for (uint8_t i = 0; i < 16; ++i) rgba.insert(rgba.end(), {uint8_t(seed + i), uint8_t(16 * i), uint8_t(seed ^ i), uint8_t(255 - 8 * i)});
  return rgba;
}

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// A .glb's JSON chunk and BIN chunk (glTF 2.0 §4.4: 12-byte header, then length-type-data chunks).
nlohmann::json glbJson(const std::string& path) {
  const std::vector<uint8_t> glb = test::readBytes(path);
  const uint32_t length = glb.size() >= 20 ? uint32_t(glb[12]) | uint32_t(glb[13]) << 8 | uint32_t(glb[14]) << 16 | uint32_t(glb[15]) << 24 : 0;
  if (glb.size() < 20 + size_t{length}) return nullptr;
  return nlohmann::json::parse(glb.begin() + 20, glb.begin() + 20 + length);
}

std::vector<uint8_t> glbBin(const std::string& path) {
  const std::vector<uint8_t> glb = test::readBytes(path);
  const size_t json = glb.size() >= 20 ? size_t{glb[12]} | size_t{glb[13]} << 8 | size_t{glb[14]} << 16 | size_t{glb[15]} << 24 : 0;
  const size_t bin = 20 + json;
  if (glb.size() < bin + 8) return {};
  return {glb.begin() + static_cast<std::ptrdiff_t>(bin + 8), glb.end()};
}

std::vector<uint8_t> imagePixels(const tinygltf::Model& m, int texture) {
  const tinygltf::Image& image = m.images.at(static_cast<size_t>(m.textures.at(static_cast<size_t>(texture)).source));
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<size_t>(image.bufferView));
  return test::decodePng(std::span<const uint8_t>(m.buffers.at(0).data).subspan(v.byteOffset, v.byteLength));
}

// A folder holding the model as DIST_sky.psg, the sky's texture arena beside it as
// DIST_sky_Textures.psg (with REAL's other two textures) and the normal map's as 0x<guid>.psg.
std::string modelFolder(const std::string& name) {
  const std::string dir = test::scratchDir(name);
  writeFile(dir + "/DIST_sky.psg", modelArena());
  writeFile(dir + "/DIST_sky_Textures.psg",
            test::writeTextureArena({argbTexture(kDetailGuid, 3), argbTexture(kSkyGuid, 40), argbTexture(kMoonGuid, 90)}));
  writeFile(dir + fmt::format("/0x{:016x}.psg", kNormalGuid), test::writeTextureArena({argbTexture(kNormalGuid, 7)}));
  return dir;
}

}  // namespace

TEST(Rw4Material, ChannelsAreReadAsTheRealModelLaysThemOut) {
  const std::vector<uint8_t> bytes = modelArena();
  const size_t object = objectAt(bytes, kRenderMaterialData);
  EXPECT_EQ(be32(bytes, object + material::kNumMaterials), 2u);
  EXPECT_EQ(be32(bytes, object + material::kNumChannels), 8u) << "REAL's five, then Name, diffuse, normal";
  EXPECT_EQ(be32(bytes, object + material::kMaterials), 0x14u);
  const size_t firstChannel = object + be32(bytes, object + material::kChannels);
  EXPECT_EQ(be32(bytes, firstChannel + 8), material::kPad0);
  EXPECT_EQ(be32(bytes, firstChannel + 12), material::kPad1);

  auto asset = readModel(bytes);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->rigs.size(), 1u);
  const Rig& rig = asset->rigs[0];
  ASSERT_EQ(rig.materials.size(), 2u) << warnings(rig);
  const Material& sky = rig.materials[0];
  EXPECT_EQ(sky.name, "night_skybox_shader_0x000133ab03e38717") << "named by its Name channel's stream";
  EXPECT_EQ(sky.textures, std::vector<std::string>{"0x0a950eac2dfefc7b"}) << "the diffuse channel, not the specular before it";
  EXPECT_TRUE(sky.normalMap.empty());
  const nlohmann::json& channels = sky.extras["rw4"]["channels"];
  ASSERT_EQ(channels.size(), 5u);
  EXPECT_EQ(channels[2]["input"], "specular");
  EXPECT_EQ(channels[2]["guid"], "0x26e564982e587b70");
  EXPECT_EQ(channels[4]["stream"], "default_gray_0x000002b403e3870a");
  EXPECT_EQ(channels[1]["imageChannel"], 0xFFFF);
  const Material& plain = rig.materials[1];
  EXPECT_EQ(plain.name, "plain");
  EXPECT_EQ(plain.textures, std::vector<std::string>{"0x00000000000000aa"});
  EXPECT_EQ(plain.normalMap, "0x00000000000000bb");
  ASSERT_EQ(rig.meshes.size(), 2u);
  for (uint32_t m = 0; m < 2; ++m) {
    ASSERT_EQ(rig.meshes[m].parts.size(), 1u) << "mesh " << m;
    EXPECT_EQ(rig.meshes[m].parts[0].material, m) << "each mesh's m_pMaterial subreference";
    EXPECT_EQ(rig.meshes[m].parts[0].indexCount, 6u);
  }
  EXPECT_TRUE(rig.textures.empty()) << "a model arena holds no texture; the pipeline binds them";
}

// Written back from what it read, the arena names the same textures (the material's channels are
// kept in extras), so a round trip does not lose them.
TEST(Rw4Material, AReadModelWritesTheSameMaterialsBack) {
  auto first = readModel(modelArena());
  ASSERT_TRUE(first.ok());
  Rig rig = first->rigs.at(0);
  auto again = readModel(modelArena(rig));
  ASSERT_TRUE(again.ok()) << again.error().describe();
  const Rig& back = again->rigs.at(0);
  ASSERT_EQ(back.materials.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.materials[i].name, rig.materials[i].name);
    EXPECT_EQ(back.materials[i].textures, rig.materials[i].textures);
    EXPECT_EQ(back.materials[i].normalMap, rig.materials[i].normalMap);
    EXPECT_EQ(back.materials[i].extras, rig.materials[i].extras);
  }
}

// Forged counts and offsets: each costs only the binding it breaks, with a warning naming the
// object's row and the field; nothing is allocated for a count the object cannot hold.
TEST(Rw4Material, DamagedRecordsCostOnlyTheirBinding) {
  const std::vector<uint8_t> good = modelArena();
  const size_t object = objectAt(good, kRenderMaterialData);
  const size_t materials = object + be32(good, object + material::kMaterials);
  const size_t channels = object + be32(good, object + material::kChannels);
  struct Case {
    const char* what;
    size_t at;
    uint32_t value;
    const char* field;
    bool skyBound, plainBound;
  };
  const Case cases[] = {
      {"m_uiNumMaterials", object + material::kNumMaterials, 0x10000000, "m_uiNumMaterials", false, false},
      {"m_pChannels of the object", object + material::kChannels, 0xFFFFFF00, "m_pChannels", false, false},
      {"m_uiNumChannels of material 1", materials + material::kMaterialSize, 0x08000000, "m_uiNumChannels", true, false},
      {"m_StreamName of channel 3 (sky's diffuse)", channels + 3 * material::kChannelSize + 0x18, 0x7FFFFFF0, "m_StreamName", false, true},
      {"m_ShaderInput of channel 0", channels, 0xFFFF0000, "m_ShaderInput", true, true},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> bytes = good;
    putBe32(bytes, c.at, c.value);
    auto asset = readModel(bytes);
    ASSERT_TRUE(asset.ok()) << c.what << ": " << asset.error().describe();
    const Rig& rig = asset->rigs.at(0);
    EXPECT_TRUE(warned(rig, "rw4-material", c.field)) << c.what << "\n" << warnings(rig);
    EXPECT_TRUE(warned(rig, "rw4-material", "row ")) << c.what << "\n" << warnings(rig);
    const auto bound = [&](size_t m) { return m < rig.materials.size() && !rig.materials[m].textures.empty(); };
    EXPECT_EQ(bound(0), c.skyBound) << c.what;
    EXPECT_EQ(bound(1), c.plainBound) << c.what;
    EXPECT_EQ(rig.meshes.size(), 2u) << c.what << ": the meshes are read all the same";
  }
}

// A model whose vertex descriptor has no blend indices (REAL's sky: XYZ and TEX0 only) is static:
// read unskinned, on the model's root, with its material. REAL's m_uiNumVerts is 0: not stored.
TEST(Rw4Material, AMeshWithoutBlendIndicesIsReadStatic) {
  std::vector<uint8_t> bytes = modelArena();
  const uint32_t rows = be32(bytes, 0x20), dict = be32(bytes, 0x30);
  for (uint32_t r = 0; r < rows; ++r) {
    if (be32(bytes, dict + 0x18 * r + 0x14) == kRenderOptiMeshData) putBe32(bytes, be32(bytes, dict + 0x18 * r) + optimesh::kNumVerts, 0);
    if (be32(bytes, dict + 0x18 * r + 0x14) != kVertexDescriptor) continue;
    const size_t vd = be32(bytes, dict + 0x18 * r);
    for (size_t i = 0; i < bytes[vd + 0x0B]; ++i) {
      uint8_t* e = bytes.data() + vd + kVertexDescriptorHeader + i * kVertexElementSize;
      if (e[6] == kIndices || e[6] == kWeights) e[6] = kTex0 + 1;  // no blend indices nor weights: TEX1 streams
    }
  }
  auto asset = readModel(bytes);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  const Rig& rig = asset->rigs.at(0);
  ASSERT_EQ(rig.meshes.size(), 2u) << warnings(rig);
  EXPECT_TRUE(rig.provenance.warnings.empty()) << warnings(rig);
  for (uint32_t m = 0; m < 2; ++m) {
    const Mesh& mesh = rig.meshes[m];
    EXPECT_FALSE(mesh.skinned());
    EXPECT_EQ(mesh.attachBone, -1);
    ASSERT_EQ(mesh.positions.size(), 4u);
    EXPECT_EQ(mesh.positions[2], glm::vec3(1, 1, float(m)));
    EXPECT_EQ(mesh.uvs.size(), 4u);
    EXPECT_EQ(mesh.indices.size(), 6u);
    EXPECT_EQ(mesh.parts.at(0).material, m);
  }
}

TEST(Rw4Material, FuzzSeedIsTheWritersOutput) {
  const std::vector<uint8_t> written = modelArena();
  test::expectKeptSeed("rw4_arena/seed-ps3-materials.psg", written);
  auto asset = readModel(written);
  ASSERT_TRUE(asset.ok());
  EXPECT_EQ(asset->rigs.at(0).materials.size(), 2u);
}

// Through the command line: the texture arenas beside the model (<model>_Textures.psg, 0x<guid>.psg)
// give the materials their base colour and normal textures, the pixels decoded as stored; the
// texture no arena holds is a warning naming its GUID and the files looked at; `info` lists them.
TEST(Rw4MaterialCli, TextureArenasBesideTheModelTextureItsMaterials) {
  const std::string dir = modelFolder("rw4_material_beside");
  const test::CliRun run = test::runCli("convert " + test::quote(dir + "/DIST_sky.psg") + " -o " + test::quote(dir + "/out") + " -v");
  ASSERT_EQ(run.code, 0) << run.text;
  const std::string glb = dir + "/out/DIST_sky.glb";
  const test::ValidatorRun v = test::validateGltfFile(glb);
  EXPECT_TRUE(v.ok) << v.output;
  const tinygltf::Model m = test::loadGlbModel(glb);
  ASSERT_GE(m.materials.size(), 2u);
  EXPECT_EQ(m.materials[0].name, "night_skybox_shader_0x000133ab03e38717");
  const int sky = m.materials[0].pbrMetallicRoughness.baseColorTexture.index;
  ASSERT_GE(sky, 0) << run.text;
  EXPECT_EQ(imagePixels(m, sky), argbPixels(40)) << "the sky texture, not REAL's detail or moon beside it";
  EXPECT_EQ(m.materials[1].pbrMetallicRoughness.baseColorTexture.index, -1) << "its GUID is in no arena";
  const int normal = m.materials[1].normalTexture.index;
  ASSERT_GE(normal, 0) << run.text;
  EXPECT_EQ(imagePixels(m, normal), argbPixels(7));
  EXPECT_EQ(m.images.size(), 2u) << "only the textures a material binds";
  const std::string missing = "texture '0x00000000000000aa' not found; looked for " + dir + "/0x00000000000000aa.psg (no such file); looked in " +
                              dir + "/DIST_sky_Textures.psg, " + dir + "/0x00000000000000bb.psg";
  // Looked for in each warning's message, not in the array's JSON text, where a Windows folder's
  // `\` is escaped.
  const auto warnings = glbJson(glb)["asset"]["extras"]["warnings"];
  bool warned = false;
  for (const auto& w : warnings) warned = warned || w["message"].get<std::string>().find(missing) != std::string::npos;
  EXPECT_TRUE(warned) << warnings.dump();

  const test::CliRun info = test::runCli("info " + test::quote(dir + "/DIST_sky.psg"));
  ASSERT_EQ(info.code, 0) << info.text;
  EXPECT_NE(info.text.find("0x0a950eac2dfefc7b.Texture"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find(missing), std::string::npos) << info.text;
}

// --txd takes a texture arena from another folder (createacharacter keeps textures apart from the
// models); --no-textures reads none, giving what the model alone converts to.
TEST(Rw4MaterialCli, TxdOptionTakesATextureArenaAndNoTexturesReadsNone) {
  const std::string dir = modelFolder("rw4_material_option");
  const std::string alone = test::scratchDir("rw4_material_alone");
  writeFile(alone + "/DIST_sky.psg", modelArena());
  ASSERT_EQ(test::runCli("convert " + test::quote(alone + "/DIST_sky.psg") + " -o " + test::quote(alone + "/out")).code, 0);
  ASSERT_EQ(test::runCli("convert " + test::quote(dir + "/DIST_sky.psg") + " --no-textures -o " + test::quote(dir + "/none")).code, 0);
  // The same glTF but for the warnings of the textures the model alone looked for and did not find.
  nlohmann::json none = glbJson(dir + "/none/DIST_sky.glb"), plain = glbJson(alone + "/out/DIST_sky.glb");
  EXPECT_EQ(none["asset"]["extras"]["warnings"], nlohmann::json::array()) << "no texture file was looked for";
  EXPECT_NE(plain["asset"]["extras"]["warnings"].dump().find("texture-missing"), std::string::npos);
  none["asset"]["extras"].erase("warnings");
  plain["asset"]["extras"].erase("warnings");
  EXPECT_EQ(none, plain);
  EXPECT_FALSE(none.contains("images"));
  EXPECT_EQ(glbBin(dir + "/none/DIST_sky.glb"), glbBin(alone + "/out/DIST_sky.glb"));

  const test::CliRun run = test::runCli("convert " + test::quote(alone + "/DIST_sky.psg") + " --txd " + test::quote(dir + "/DIST_sky_Textures.psg") +
                                        " -o " + test::quote(alone + "/given"));
  ASSERT_EQ(run.code, 0) << run.text;
  const tinygltf::Model m = test::loadGlbModel(alone + "/given/DIST_sky.glb");
  const int sky = m.materials.at(0).pbrMetallicRoughness.baseColorTexture.index;
  ASSERT_GE(sky, 0) << run.text;
  EXPECT_EQ(imagePixels(m, sky), argbPixels(40));
  const test::ValidatorRun v = test::validateGltfFile(alone + "/given/DIST_sky.glb");
  EXPECT_TRUE(v.ok) << v.output;
}

// A texture arena whose TableOfContents gives the texture a name of its own (not "0x<guid>.Texture")
// still binds by the entry's GUID, which the material channel names: the binding goes by the TOC
// GUID (docs/rw4_materials.md §3), the name is only what the file calls it. `info` shows both.
TEST(Rw4MaterialCli, ATextureTheTableOfContentsNamesOtherwiseBindsByItsGuid) {
  const std::string dir = test::scratchDir("rw4_material_toc_name");
  writeFile(dir + "/DIST_sky.psg", modelArena());
  test::Rw4Texture sky = argbTexture(kSkyGuid, 40);
  sky.tocName = "sky_sanitariumdlc_night.Texture";
  writeFile(dir + "/DIST_sky_Textures.psg", test::writeTextureArena({argbTexture(kMoonGuid, 90), sky}));
  const test::CliRun run = test::runCli("convert " + test::quote(dir + "/DIST_sky.psg") + " -o " + test::quote(dir + "/out"));
  ASSERT_EQ(run.code, 0) << run.text;
  const tinygltf::Model m = test::loadGlbModel(dir + "/out/DIST_sky.glb");
  const int bound = m.materials.at(0).pbrMetallicRoughness.baseColorTexture.index;
  ASSERT_GE(bound, 0) << run.text;
  EXPECT_EQ(imagePixels(m, bound), argbPixels(40)) << "the texture of the sky's GUID, not the moon's";
  EXPECT_EQ(m.images.at(static_cast<size_t>(m.textures.at(static_cast<size_t>(bound)).source)).name, "sky_sanitariumdlc_night.Texture");

  const test::CliRun info = test::runCli("info --json " + test::quote(dir + "/DIST_sky_Textures.psg"), test::Capture::StdoutOnly);
  ASSERT_EQ(info.code, 0) << info.text;
  const nlohmann::json textures = nlohmann::json::parse(info.text)[0]["textures"];
  ASSERT_EQ(textures.size(), 2u) << info.text;
  EXPECT_FALSE(textures[0].contains("id")) << "a GUID name needs no id";
  EXPECT_EQ(textures[1]["name"], "sky_sanitariumdlc_night.Texture");
  EXPECT_EQ(textures[1]["id"], fmt::format("0x{:016x}", kSkyGuid));
}
