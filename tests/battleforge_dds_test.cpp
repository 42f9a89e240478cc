// BattleForge's DDS textures (issue 29): synthetic DDS files written by the tests' own writer
// (support/dds_builder.hpp), decoded through the image room. Lossless layouts must decode bit for
// bit to what the tests compute from the stored bits by their own rule; DXT exactly as libsquish's
// own decoder does, and within its encoder's error of the source; a header that lies about its size,
// forged sides and mip counts are refused naming the field. A DRS written by rigport's writer takes
// the `_col` and `_nor` DDS files its material names from beside it (any case) into a
// validator-clean glTF; a missing one is a warning naming the file looked for.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include <png.h>
#include <squish.h>
#include <tiny_gltf.h>

#include "core/read_context.hpp"
#include "demo/character.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "formats/registry.hpp"
#include "support/dds_builder.hpp"
#include "support/gltf_validator.hpp"
#include "support/gltf_pose.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using test::DdsImage;

namespace {

Result<Asset> read(const std::vector<uint8_t>& bytes, uint64_t memoryLimit = 0) {
  ReadOptions options;
  if (memoryLimit != 0) options.memoryLimit = memoryLimit;
  ReadContext ctx(options);
  return battleforge::readDds(bytes, ctx);
}

std::vector<uint8_t> randomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (uint8_t& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

// An n-bit channel as 8 bits: its bits repeated down (image/decode.cpp's rule), spelled as a loop.
uint8_t widen(uint32_t v, int bits) {
  uint32_t out = 0;
  for (int shift = 8 - bits; shift > -bits; shift -= bits) out |= shift >= 0 ? v << shift : v >> -shift;
  return static_cast<uint8_t>(out & 0xFF);
}

struct Layout {
  const char* name;
  uint32_t flags, bits, r, g, b, a;
  size_t bytesPerPixel;
};

// Direct3D's uncompressed layouts as a DDS pixel format states them (flags: 0x40 RGB, 0x1 alpha
// pixels, 0x20000 luminance).
const Layout kLayouts[] = {
    {"A8R8G8B8", 0x41, 32, 0xFF0000, 0xFF00, 0xFF, 0xFF000000, 4}, {"X8R8G8B8", 0x40, 32, 0xFF0000, 0xFF00, 0xFF, 0, 4},
    {"A8B8G8R8", 0x41, 32, 0xFF, 0xFF00, 0xFF0000, 0xFF000000, 4}, {"X8B8G8R8", 0x40, 32, 0xFF, 0xFF00, 0xFF0000, 0, 4},
    {"R8G8B8", 0x40, 24, 0xFF0000, 0xFF00, 0xFF, 0, 3},            {"R5G6B5", 0x40, 16, 0xF800, 0x7E0, 0x1F, 0, 2},
    {"A1R5G5B5", 0x41, 16, 0x7C00, 0x3E0, 0x1F, 0x8000, 2},        {"A4R4G4B4", 0x41, 16, 0xF00, 0xF0, 0xF, 0xF000, 2},
    {"L8", 0x20000, 8, 0xFF, 0, 0, 0, 1},
};

// The RGBA a pixel's stored bytes give: each mask's bits, widened to 8, alpha 255 without a mask.
std::array<uint8_t, 4> expectedPixel(const Layout& f, const uint8_t* p) {
  uint32_t v = 0;
  for (size_t i = 0; i < f.bytesPerPixel; ++i) v |= uint32_t{p[i]} << (8 * i);
  const auto channel = [&](uint32_t mask) -> uint8_t {
    if (mask == 0) return 255;
    int shift = 0;
    while (((mask >> shift) & 1) == 0) ++shift;
    int bits = 0;
    while (((mask >> (shift + bits)) & 1) != 0) ++bits;
    return widen((v & mask) >> shift, bits);
  };
  if (std::string(f.name) == "L8") return {p[0], p[0], p[0], 255};
  return {channel(f.r), channel(f.g), channel(f.b), channel(f.a)};
}

DdsImage layoutDds(const Layout& f, uint32_t width, uint32_t height, uint32_t seed) {
  DdsImage d;
  d.width = width;
  d.height = height;
  d.pixelFlags = f.flags;
  d.bitCount = f.bits;
  d.rMask = f.r;
  d.gMask = f.g;
  d.bMask = f.b;
  d.aMask = f.a;
  for (uint32_t w = width, h = height;; w = std::max(1u, w / 2), h = std::max(1u, h / 2)) {
    d.levels.push_back(randomBytes(size_t{w} * h * f.bytesPerPixel, seed++));
    if (w == 1 && h == 1) break;
  }
  return d;
}

// An opaque RGBA source ramping along x only: each 4x4 block's colours lie on one line, which DXT's
// two end points and their 1/3 steps hold to within a 565 step.
std::vector<uint8_t> rampSource(uint32_t w, uint32_t h) {
  std::vector<uint8_t> rgba;
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) rgba.insert(rgba.end(), {uint8_t(255 * x / w), uint8_t(64), uint8_t(128), uint8_t(255)});
  return rgba;
}

std::vector<uint8_t> squishEncode(const std::vector<uint8_t>& rgba, uint32_t w, uint32_t h, int flags) {
  std::vector<uint8_t> out(static_cast<size_t>(squish::GetStorageRequirements(static_cast<int>(w), static_cast<int>(h), flags)));
  squish::CompressImage(rgba.data(), static_cast<int>(w), static_cast<int>(h), out.data(), flags);
  return out;
}

// Every 2x2 box of `rgba` averaged: the next mip level's source.
std::vector<uint8_t> halve(const std::vector<uint8_t>& rgba, uint32_t w, uint32_t h) {
  const uint32_t hw = std::max(1u, w / 2), hh = std::max(1u, h / 2);
  std::vector<uint8_t> out(size_t{hw} * hh * 4);
  for (uint32_t y = 0; y < hh; ++y)
    for (uint32_t x = 0; x < hw; ++x)
      for (uint32_t c = 0; c < 4; ++c) {
        uint32_t sum = 0;
        for (uint32_t dy = 0; dy < 2; ++dy)
          for (uint32_t dx = 0; dx < 2; ++dx) sum += rgba[4 * (size_t{std::min(h - 1, 2 * y + dy)} * w + std::min(w - 1, 2 * x + dx)) + c];
        out[4 * (size_t{y} * hw + x) + c] = static_cast<uint8_t>(sum / 4);
      }
  return out;
}

}  // namespace

// Fact: every uncompressed layout BattleForge's tools write is told apart by its bit count and
// masks alone; each decodes bit for bit, every mip level of it.
TEST(BattleforgeDds, EveryUncompressedLayoutDecodesBitForBit) {
  uint32_t seed = 1;
  for (const Layout& f : kLayouts) {
    const DdsImage d = layoutDds(f, 8, 4, seed += 10);
    auto asset = read(test::writeDds(d));
    ASSERT_TRUE(asset.ok()) << f.name << ": " << asset.error().describe();
    ASSERT_EQ(asset->textures.size(), 1u);
    const Texture& t = asset->textures[0];
    EXPECT_EQ(t.pixelFormat, f.name);
    ASSERT_EQ(t.image.levels.size(), 4u) << "8x4, 4x2, 2x1, 1x1";
    for (size_t l = 0; l < 4; ++l) {
      const ImageLevel& level = t.image.levels[l];
      EXPECT_EQ(level.width, std::max(1u, 8u >> l));
      EXPECT_EQ(level.height, std::max(1u, 4u >> l));
      for (size_t i = 0; i < size_t{level.width} * level.height; ++i) {
        const auto want = expectedPixel(f, d.levels[l].data() + i * f.bytesPerPixel);
        ASSERT_EQ((std::array<uint8_t, 4>{level.rgba[4 * i], level.rgba[4 * i + 1], level.rgba[4 * i + 2], level.rgba[4 * i + 3]}), want)
            << f.name << " level " << l << " pixel " << i;
      }
    }
  }
}

// Fact: a DXT1 DDS with DDSD_MIPMAPCOUNT stores its levels back to back, each in whole 4x4 blocks
// (the 2x2 and 1x1 levels take one block each).
TEST(BattleforgeDds, Dxt1WithMipsDecodesEveryLevelAsLibsquishDoes) {
  for (const int dxt : {1, 3, 5}) {
    const int flags = dxt == 1 ? squish::kDxt1 : dxt == 3 ? squish::kDxt3 : squish::kDxt5;
    DdsImage d = test::dxtDds(dxt, 16, 8);
    std::vector<std::vector<uint8_t>> sources;
    std::vector<uint8_t> source = rampSource(16, 8);
    for (uint32_t w = 16, h = 8;; w = std::max(1u, w / 2), h = std::max(1u, h / 2)) {
      sources.push_back(source);
      d.levels.push_back(squishEncode(source, w, h, flags));
      if (w == 1 && h == 1) break;
      source = halve(source, w, h);
    }
    auto asset = read(test::writeDds(d));
    ASSERT_TRUE(asset.ok()) << asset.error().describe();
    const Texture& t = asset->textures.at(0);
    EXPECT_EQ(t.pixelFormat, "DXT" + std::to_string(dxt));
    EXPECT_EQ(t.sampler.mip, MipFilter::Linear) << "a chain of levels is sampled with mips";
    ASSERT_EQ(t.image.levels.size(), 5u) << "16x8 down to 1x1";
    for (size_t l = 0; l < t.image.levels.size(); ++l) {
      const ImageLevel& level = t.image.levels[l];
      const uint32_t w = level.width, h = level.height;
      std::vector<uint8_t> expected(size_t{std::max(4u, w)} * std::max(4u, h) * 4);
      squish::DecompressImage(expected.data(), static_cast<int>(std::max(4u, w)), static_cast<int>(std::max(4u, h)), d.levels[l].data(), flags);
      for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
          for (uint32_t c = 0; c < 4; ++c) {
            const uint8_t got = level.rgba[4 * (size_t{y} * w + x) + c];
            ASSERT_EQ(got, expected[4 * (size_t{y} * std::max(4u, w) + x) + c]) << "DXT" << dxt << " level " << l;
            EXPECT_NEAR(got, sources[l][4 * (size_t{y} * w + x) + c], 10) << "within DXT's 565 end points and 1/3 steps: DXT" << dxt << " level " << l << " (" << x << ", " << y << ") channel " << c;
          }
    }
  }
}

// Fact: DDS_HEADER.dwSize is 124 and DDS_PIXELFORMAT.dwSize 32; a header that says otherwise lies
// about its layout and is refused naming the field, before any pixel is read.
TEST(BattleforgeDds, AHeaderThatLiesAboutItsSizeIsRefusedNamingTheField) {
  DdsImage d = layoutDds(kLayouts[0], 4, 4, 3);
  d.headerSize = 128;
  auto asset = read(test::writeDds(d));
  ASSERT_FALSE(asset.ok());
  EXPECT_EQ(asset.error().code, ErrorCode::BadValue);
  EXPECT_NE(asset.error().describe().find("dwSize"), std::string::npos) << asset.error().describe();
  EXPECT_NE(asset.error().describe().find("says it is 128 bytes"), std::string::npos) << asset.error().describe();

  d.headerSize = 124;
  d.pixelFormatSize = 24;
  asset = read(test::writeDds(d));
  ASSERT_FALSE(asset.ok());
  EXPECT_NE(asset.error().describe().find("ddspf/dwSize"), std::string::npos) << asset.error().describe();
}

// Fact: the sides and the mip count are the file's word; sides beyond the bytes that follow, and
// more levels than halving makes, are refused naming the field, never allocated.
TEST(BattleforgeDds, ForgedSidesAndMipCountsAreRefusedNamingTheField) {
  DdsImage d = layoutDds(kLayouts[0], 4, 4, 5);
  d.width = 60000;
  d.height = 60000;
  auto asset = read(test::writeDds(d));
  ASSERT_FALSE(asset.ok());
  EXPECT_EQ(asset.error().code, ErrorCode::TooLarge);
  EXPECT_NE(asset.error().describe().find("dwWidth x dwHeight"), std::string::npos) << asset.error().describe();

  d.width = 1u << 20;
  asset = read(test::writeDds(d));
  ASSERT_FALSE(asset.ok());
  EXPECT_NE(asset.error().describe().find("dwWidth"), std::string::npos) << asset.error().describe();

  d = layoutDds(kLayouts[0], 4, 4, 5);
  d.mipMapCount = 9;
  asset = read(test::writeDds(d));
  ASSERT_FALSE(asset.ok());
  EXPECT_EQ(asset.error().code, ErrorCode::TooLarge);
  EXPECT_NE(asset.error().describe().find("dwMipMapCount"), std::string::npos) << asset.error().describe();
  EXPECT_NE(asset.error().describe().find("1 to 3"), std::string::npos) << asset.error().describe();

  d = layoutDds(kLayouts[0], 4, 4, 5);
  d.levels.pop_back();  // the 1x1 level the count promises is missing
  d.mipMapCount = 3;
  asset = read(test::writeDds(d));
  ASSERT_FALSE(asset.ok());
  EXPECT_NE(asset.error().describe().find("dwMipMapCount"), std::string::npos) << asset.error().describe();

  d = layoutDds(kLayouts[0], 64, 64, 5);
  asset = read(test::writeDds(d), 8 * 1024);
  ASSERT_FALSE(asset.ok()) << "a 64x64 RGBA level needs 16 KiB, over an 8 KiB budget";
  EXPECT_EQ(asset.error().code, ErrorCode::TooLarge);
}

TEST(BattleforgeDds, CubeMapsDx10AndUnknownLayoutsAreUnsupported) {
  DdsImage cube = layoutDds(kLayouts[0], 4, 4, 7);
  cube.caps2 = 0xFE00;
  auto asset = read(test::writeDds(cube));
  ASSERT_FALSE(asset.ok());
  EXPECT_EQ(asset.error().code, ErrorCode::Unsupported);
  EXPECT_NE(asset.error().describe().find("dwCaps2"), std::string::npos) << asset.error().describe();

  DdsImage dx10 = test::dxtDds(1, 4, 4);
  dx10.fourCc = 0x30315844;  // "DX10"
  dx10.levels = {std::vector<uint8_t>(8)};
  asset = read(test::writeDds(dx10));
  ASSERT_FALSE(asset.ok());
  EXPECT_NE(asset.error().describe().find("FourCC 'DX10'"), std::string::npos) << asset.error().describe();

  DdsImage odd = layoutDds(kLayouts[0], 4, 4, 7);
  odd.rMask = 0xFF00;  // R and G swapped: no Direct3D layout
  odd.gMask = 0xFF0000;
  asset = read(test::writeDds(odd));
  ASSERT_FALSE(asset.ok());
  EXPECT_EQ(asset.error().code, ErrorCode::Unsupported);
}

// The registry finds a DDS by its magic and names its one texture after the file's stem, the name a
// BattleForge material gives it.
TEST(BattleforgeDds, TheRegistryNamesTheTextureAfterTheFile) {
  const std::string dir = test::scratchDir("dds_registry");
  const std::vector<uint8_t> bytes = test::writeDds(layoutDds(kLayouts[0], 2, 2, 9));
  const std::string path = dir + "/Unit_Skin_col.dds";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  auto asset = loadAsset(path);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  EXPECT_EQ(asset->provenance.format, "dds");
  ASSERT_EQ(asset->textures.size(), 1u);
  EXPECT_EQ(asset->textures[0].name, "Unit_Skin_col");
  auto items = listItems(path);
  ASSERT_TRUE(items.ok());
  ASSERT_EQ(items->size(), 1u);
  EXPECT_EQ((*items)[0].kind, "texture");
}

// The fuzz target's seed (tests/data/fuzz/battleforge_dds/seed.dds) is this writer's output: a DXT1
// DDS with its mip chain, the layout BattleForge's maps are stored in.
TEST(BattleforgeDds, FuzzSeedIsTheWritersOutput) {
  DdsImage d = test::dxtDds(1, 8, 8);
  std::vector<uint8_t> source = rampSource(8, 8);
  for (uint32_t w = 8;; w /= 2) {
    d.levels.push_back(squishEncode(source, w, w, squish::kDxt1));
    if (w == 1) break;
    source = halve(source, w, w);
  }
  const std::vector<uint8_t> written = test::writeDds(d);
  test::expectKeptSeed("battleforge_dds/seed.dds", written);
  auto asset = read(written);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  EXPECT_EQ(asset->textures.at(0).image.levels.size(), 4u);
}

namespace {

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The demo character as a BattleForge model whose one material names its maps as a DRS does
// (§7 Textures: `_col`, `_nor`, `_par` by id), in other cases than the files beside it.
std::string writeDrsFolder(const std::string& name) {
  const std::string dir = test::scratchDir(name);
  Rig rig = makeDemoCharacter();
  Material m;
  m.name = "Unit_Col";
  m.extras["battleforge"]["maps"] = {{"_col", "Unit_Col"}, {"_nor", "unit_NOR"}, {"_par", "unit_par"}};
  rig.materials = {m};
  for (Mesh& mesh : rig.meshes) mesh.parts = {MeshPart{0, 0, static_cast<uint32_t>(mesh.indices.size())}};
  auto drs = battleforge::writeDrs(rig);
  EXPECT_TRUE(drs.ok()) << drs.error().describe();
  if (drs.ok()) writeFile(dir + "/unit.drs", *drs);
  return dir;
}

// A 4x4 A8R8G8B8 (or X8R8G8B8) map: the stored bytes and the RGBA they are.
std::pair<std::vector<uint8_t>, std::vector<uint8_t>> smallMap(uint32_t seed, bool alpha) {
  DdsImage d = layoutDds(kLayouts[alpha ? 0 : 1], 4, 4, seed);
  d.levels.resize(1);
  d.mipMapCount = 1;
  std::vector<uint8_t> rgba;
  for (size_t i = 0; i < 16; ++i) {
    const auto p = expectedPixel(kLayouts[alpha ? 0 : 1], d.levels[0].data() + 4 * i);
    rgba.insert(rgba.end(), p.begin(), p.end());
  }
  return {test::writeDds(d), rgba};
}

std::vector<uint8_t> pngPixels(const uint8_t* data, size_t size) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_memory(&image, data, size) == 0) return {};
  image.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> rgba(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, rgba.data(), 0, nullptr) == 0) return {};
  return rgba;
}

std::vector<uint8_t> imagePixels(const tinygltf::Model& m, int texture) {
  const tinygltf::Image& image = m.images.at(static_cast<size_t>(m.textures.at(static_cast<size_t>(texture)).source));
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<size_t>(image.bufferView));
  return pngPixels(m.buffers.at(0).data.data() + v.byteOffset, v.byteLength);
}

}  // namespace

// Fact (battleforge_drs.md §7): "Names are DDS files in the model's folder"; `_col` is the colour
// map, `_nor` the normal map. The note does not say how `_par` maps, so it stays in extras.
TEST(BattleforgeDdsCli, TheMaterialsMapsBesideTheDrsBecomeBaseColourAndNormal) {
  const std::string dir = writeDrsFolder("dds_cli_beside");
  const auto [col, colRgba] = smallMap(11, true);
  const auto [nor, norRgba] = smallMap(12, false);
  writeFile(dir + "/unit_col.dds", col);
  writeFile(dir + "/UNIT_NOR.DDS", nor);
  const test::CliRun run = test::runCli("convert " + test::quote(dir + "/unit.drs") + " -o " + test::quote(dir + "/out") + " -v");
  ASSERT_EQ(run.code, 0) << run.text;
  EXPECT_EQ(run.text.find("texture-missing"), std::string::npos) << run.text;
  const std::string glb = dir + "/out/unit.glb";
  const test::ValidatorRun v = test::validateGltfFile(glb);
  EXPECT_TRUE(v.ok) << v.output;
  const tinygltf::Model m = test::loadGlbModel(glb);
  ASSERT_EQ(m.materials.size(), 1u);
  EXPECT_EQ(m.meshes.at(0).primitives.at(0).attributes.count("TANGENT"), 1u) << "a normal-mapped mesh carries its tangents";
  const tinygltf::Material& material = m.materials[0];
  ASSERT_GE(material.pbrMetallicRoughness.baseColorTexture.index, 0);
  ASSERT_GE(material.normalTexture.index, 0);
  EXPECT_EQ(imagePixels(m, material.pbrMetallicRoughness.baseColorTexture.index), colRgba);
  EXPECT_EQ(imagePixels(m, material.normalTexture.index), norRgba);
  EXPECT_EQ(m.images.size(), 2u);
  const tinygltf::Value& maps = material.extras.Get("battleforge").Get("maps");
  ASSERT_TRUE(maps.IsObject()) << "the DRS's maps stay in the material's extras";
  EXPECT_EQ(maps.Get("_par").Get<std::string>(), "unit_par") << "_par is kept, not bound";

  // The DRS written back from that glTF keeps its three maps.
  ASSERT_EQ(test::runCli("convert " + test::quote(glb) + " --to battleforge-drs -o " + test::quote(dir + "/back.drs")).code, 0);
  auto back = loadAsset(dir + "/back.drs");
  ASSERT_TRUE(back.ok()) << back.error().describe();
  const Material& bm = back->rigs.at(0).materials.at(0);
  EXPECT_EQ(bm.textures.front(), "Unit_Col");
  EXPECT_EQ(bm.normalMap, "unit_NOR");
  EXPECT_EQ(bm.extras["battleforge"]["maps"]["_par"], "unit_par");
}

TEST(BattleforgeDdsCli, AMissingMapIsAWarningNamingTheFileLookedFor) {
  const std::string dir = writeDrsFolder("dds_cli_missing");
  writeFile(dir + "/unit_col.dds", smallMap(13, true).first);
  const test::CliRun run = test::runCli("convert " + test::quote(dir + "/unit.drs") + " -o " + test::quote(dir + "/out") + " -v");
  ASSERT_EQ(run.code, 0) << run.text;
  const test::CliRun info = test::runCli("info " + test::quote(dir + "/unit.drs"));
  EXPECT_NE(info.text.find("texture 'unit_NOR' not found; looked for " + dir + "/unit_NOR.dds (no such file)"), std::string::npos) << info.text;
  const tinygltf::Model m = test::loadGlbModel(dir + "/out/unit.glb");
  EXPECT_GE(m.materials.at(0).pbrMetallicRoughness.baseColorTexture.index, 0) << "the colour map found still binds";
  EXPECT_EQ(m.materials.at(0).normalTexture.index, -1);
  EXPECT_TRUE(test::validateGltfFile(dir + "/out/unit.glb").ok);
}

TEST(BattleforgeDdsCli, ADdsAloneIsWrittenAsAPng) {
  const std::string dir = test::scratchDir("dds_cli_alone");
  const auto [bytes, rgba] = smallMap(14, true);
  writeFile(dir + "/skin_col.dds", bytes);
  const test::CliRun info = test::runCli("info " + test::quote(dir + "/skin_col.dds"));
  ASSERT_EQ(info.code, 0) << info.text;
  EXPECT_NE(info.text.find("A8R8G8B8"), std::string::npos) << info.text;
  const test::CliRun run = test::runCli("convert " + test::quote(dir + "/skin_col.dds") + " -o " + test::quote(dir + "/out"));
  ASSERT_EQ(run.code, 0) << run.text;
  const std::vector<uint8_t> png = test::readBytes(dir + "/out/skin_col/skin_col.png");
  EXPECT_EQ(pngPixels(png.data(), png.size()), rgba);
}
