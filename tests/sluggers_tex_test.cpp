// Mario Super Sluggers textures (issue 29; sluggers.md §5 TEX, §3 texture binds): GX textures
// encoded by the tests' own code (support/gx_builder.hpp) in GX's tile order, decoded by the image
// room bit for bit against the tests' own rule for each stored bit pattern; a block with a TEX
// section binds them to its meshes' materials, and its glTF passes the validator with each material
// on its texture. No public sample exists (§10): every block is rigport's writer's, with a TEX
// section the tests append.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>

#include <tiny_gltf.h>

#include "core/byte_reader.hpp"
#include "core/read_context.hpp"
#include "formats/sluggers/sluggers.hpp"
#include "image/gx_decode.hpp"
#include "support/gltf_validator.hpp"
#include "support/gx_builder.hpp"
#include "support/png_decode.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using image::GxFormat;
using image::GxPalette;
using Rgba = std::array<uint8_t, 4>;

namespace {

// An n-bit channel as 8 bits: its bits repeated down, spelled as a loop (Dolphin's Convert*To8).
uint8_t widen(uint32_t v, int bits) {
  uint32_t out = 0;
  for (int shift = 8 - bits; shift > -bits; shift -= bits) out |= shift >= 0 ? v << shift : v >> -shift;
  return static_cast<uint8_t>(out & 0xFF);
}

Rgba rgb565(uint32_t v) { return {widen(v >> 11, 5), widen((v >> 5) & 63, 6), widen(v & 31, 5), 255}; }
// Fact: RGB5A3's top bit picks its mode: set, an opaque RGB555; clear, A3 then RGB444.
Rgba rgb5a3(uint32_t v) {
  if (v & 0x8000) return {widen((v >> 10) & 31, 5), widen((v >> 5) & 31, 5), widen(v & 31, 5), 255};
  return {widen((v >> 8) & 15, 4), widen((v >> 4) & 15, 4), widen(v & 15, 4), widen((v >> 12) & 7, 3)};
}
Rgba ia8(uint32_t v) { return {uint8_t(v & 0xFF), uint8_t(v & 0xFF), uint8_t(v & 0xFF), uint8_t(v >> 8)}; }

Rgba paletteColour(GxPalette f, uint16_t e) { return f == GxPalette::IA8 ? ia8(e) : f == GxPalette::RGB565 ? rgb565(e) : rgb5a3(e); }

// What one stored pixel value gives, format by format.
Rgba expected(GxFormat f, uint32_t v, const std::vector<uint16_t>& palette, GxPalette pf) {
  switch (f) {
    case GxFormat::I4: return {widen(v, 4), widen(v, 4), widen(v, 4), widen(v, 4)};
    case GxFormat::I8: return {uint8_t(v), uint8_t(v), uint8_t(v), uint8_t(v)};
    case GxFormat::IA4: return {widen(v & 15, 4), widen(v & 15, 4), widen(v & 15, 4), widen(v >> 4, 4)};
    case GxFormat::IA8: return ia8(v);
    case GxFormat::RGB565: return rgb565(v);
    case GxFormat::RGB5A3: return rgb5a3(v);
    case GxFormat::C4:
    case GxFormat::C8: return paletteColour(pf, palette[v]);
    case GxFormat::C14X2: return paletteColour(pf, palette[v & 0x3FFF]);
    default: return {};
  }
}

struct Case {
  GxFormat format;
  uint32_t valueMask;   // the bits a pixel stores
  uint32_t paletteSize;
  GxPalette paletteFormat;
};

const Case kCases[] = {
    {GxFormat::I4, 15, 0, GxPalette::IA8},          {GxFormat::I8, 255, 0, GxPalette::IA8},
    {GxFormat::IA4, 255, 0, GxPalette::IA8},        {GxFormat::IA8, 0xFFFF, 0, GxPalette::IA8},
    {GxFormat::RGB565, 0xFFFF, 0, GxPalette::IA8},  {GxFormat::RGB5A3, 0xFFFF, 0, GxPalette::IA8},
    {GxFormat::C4, 15, 16, GxPalette::RGB5A3},      {GxFormat::C8, 255, 256, GxPalette::RGB565},
    {GxFormat::C8, 255, 256, GxPalette::IA8},       {GxFormat::C14X2, 0x3FF, 1024, GxPalette::RGB5A3},
};

std::vector<uint8_t> paletteBytes(const std::vector<uint16_t>& palette) {
  std::vector<uint8_t> out;
  for (uint16_t e : palette) out.insert(out.end(), {uint8_t(e >> 8), uint8_t(e)});
  return out;
}

Result<ImageLevel> decode(GxFormat f, uint32_t w, uint32_t h, const std::vector<uint8_t>& bytes, const std::vector<uint16_t>& palette = {},
                          GxPalette pf = GxPalette::IA8) {
  ByteReader r(bytes, Endian::Big);
  const std::vector<uint8_t> p = paletteBytes(palette);
  return image::decodeGxLevel(r, f, w, h, p, pf, "pixels");
}

Rgba pixelOf(const ImageLevel& l, size_t i) { return {l.rgba[4 * i], l.rgba[4 * i + 1], l.rgba[4 * i + 2], l.rgba[4 * i + 3]}; }

// A 16x16 CMPR image: blocks alternating four-colour (c0 > c1) and three-colour (c0 <= c1, index 3
// transparent) mode, every block its own end points, so a block in the wrong place shows.
std::vector<test::CmprBlock> cmprBlocks(uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<test::CmprBlock> blocks(16);
  for (size_t b = 0; b < blocks.size(); ++b) {
    uint16_t a = static_cast<uint16_t>(rng()), c = static_cast<uint16_t>(rng());
    if (a == c) ++a;
    blocks[b].c0 = b % 2 == 0 ? std::max(a, c) : std::min(a, c);
    blocks[b].c1 = b % 2 == 0 ? std::min(a, c) : std::max(a, c);
    for (uint8_t& i : blocks[b].index) i = static_cast<uint8_t>(rng() & 3);
  }
  return blocks;
}

// The GX hardware's CMPR colours (Dolphin's DXTBlend: 3/8 of the way, not DXT1's 1/3).
Rgba cmprColour(const test::CmprBlock& b, uint8_t index) {
  const Rgba a = rgb565(b.c0), c = rgb565(b.c1);
  if (index == 0) return a;
  if (index == 1) return c;
  Rgba out{};
  for (int k = 0; k < 3; ++k) {
    if (b.c0 > b.c1) out[k] = static_cast<uint8_t>(index == 2 ? (5 * a[k] + 3 * c[k]) / 8 : (3 * a[k] + 5 * c[k]) / 8);
    else out[k] = static_cast<uint8_t>((a[k] + c[k]) / 2);
  }
  out[3] = b.c0 <= b.c1 && index == 3 ? 0 : 255;
  return out;
}

}  // namespace

// Fact: each GX format stores its pixels in tiles (8x8, 8x4 or 4x4 by bits a pixel) and each pixel's
// bits by its own rule; a 12x10 image leaves its last tiles partly outside, padding the tests fill.
TEST(SluggersTex, EveryGxFormatDecodesBitForBitInTileOrder) {
  std::mt19937 rng(29);
  constexpr uint32_t w = 12, h = 10;
  for (const Case& c : kCases) {
    std::vector<uint32_t> values(w * h);
    for (uint32_t& v : values) v = static_cast<uint32_t>(rng()) & c.valueMask;
    std::vector<uint16_t> palette(c.paletteSize);
    for (uint16_t& e : palette) e = static_cast<uint16_t>(rng());
    auto level = decode(c.format, w, h, test::gxTiles(static_cast<uint8_t>(c.format), w, h, values), palette, c.paletteFormat);
    ASSERT_TRUE(level.ok()) << image::gxFormatName(c.format) << ": " << level.error().describe();
    ASSERT_EQ(level->rgba.size(), size_t{w} * h * 4);
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(pixelOf(*level, i), expected(c.format, values[i], palette, c.paletteFormat))
          << image::gxFormatName(c.format) << " pixel (" << i % w << ", " << i / w << ") value 0x" << std::hex << values[i];
    }
  }
}

// Fact: RGB5A3's two modes, one value each way: 0xFC00 is opaque red (RGB555), 0x7F00 alpha 7/7
// red (A3 RGB444), 0x0F00 a transparent red.
TEST(SluggersTex, Rgb5a3TopBitPicksOpaqueOrAlphaMode) {
  const std::vector<uint32_t> values{0xFC00, 0x7F00, 0x0F00, 0x3888};
  auto level = decode(GxFormat::RGB5A3, 4, 1, test::gxTiles(5, 4, 1, values));
  ASSERT_TRUE(level.ok()) << level.error().describe();
  EXPECT_EQ(pixelOf(*level, 0), (Rgba{255, 0, 0, 255}));
  EXPECT_EQ(pixelOf(*level, 1), (Rgba{255, 0, 0, 255}));
  EXPECT_EQ(pixelOf(*level, 2), (Rgba{255, 0, 0, 0}));
  EXPECT_EQ(pixelOf(*level, 3), (Rgba{136, 136, 136, 109})) << "alpha 3 of 7 widens to 0b01101101";
}

// Fact: RGBA8 keeps a 4x4 tile's alpha-red pairs in its first 32 bytes and green-blue in the next 32.
TEST(SluggersTex, Rgba8SplitsEachTileIntoArAndGbHalves) {
  std::mt19937 rng(8);
  constexpr uint32_t w = 6, h = 5;
  std::vector<Rgba> rgba(w * h);
  for (Rgba& p : rgba)
    for (uint8_t& c : p) c = static_cast<uint8_t>(rng());
  auto level = decode(GxFormat::RGBA8, w, h, test::gxRgba8(w, h, rgba));
  ASSERT_TRUE(level.ok()) << level.error().describe();
  for (size_t i = 0; i < rgba.size(); ++i) ASSERT_EQ(pixelOf(*level, i), rgba[i]) << "pixel " << i;
}

// Fact: a CMPR 8x8 tile holds four DXT1-like sub-blocks, top-left, top-right, bottom-left,
// bottom-right, big-endian, each row's first pixel in the top two bits, blending 3/8.
TEST(SluggersTex, CmprSubBlocksLandInTileOrderWithTheHardwareBlend) {
  const std::vector<test::CmprBlock> blocks = cmprBlocks(14);
  auto level = decode(GxFormat::CMPR, 16, 16, test::gxCmpr(16, 16, blocks));
  ASSERT_TRUE(level.ok()) << level.error().describe();
  for (uint32_t y = 0; y < 16; ++y)
    for (uint32_t x = 0; x < 16; ++x) {
      const test::CmprBlock& b = blocks[(y / 4) * 4 + x / 4];
      ASSERT_EQ(pixelOf(*level, size_t{y} * 16 + x), cmprColour(b, b.index[(y % 4) * 4 + x % 4])) << "pixel (" << x << ", " << y << ")";
    }
}

// Fact: a C8 pixel indexes its palette; an index past the entries the descriptor gives is an error
// naming the pixel, and a level the bytes cannot hold is refused before anything is allocated.
TEST(SluggersTex, PaletteIndicesAndSizesAreChecked) {
  std::vector<uint32_t> values(8 * 4, 3);
  values[13] = 200;
  auto level = decode(GxFormat::C8, 8, 4, test::gxTiles(9, 8, 4, values), std::vector<uint16_t>(16, 0xFFFF), GxPalette::RGB5A3);
  ASSERT_FALSE(level.ok());
  EXPECT_NE(level.error().describe().find("pixel (5, 1)"), std::string::npos) << level.error().describe();
  EXPECT_NE(level.error().describe().find("16 entries"), std::string::npos) << level.error().describe();

  level = decode(GxFormat::RGBA8, 4096, 4096, std::vector<uint8_t>(64));
  ASSERT_FALSE(level.ok());
  EXPECT_EQ(level.error().code, ErrorCode::Truncated);
}

namespace {

// One root bone and a rigid quad strip of `parts` quads, quad i drawn with material i, whose texture
// bind (extras.sluggers.texture, as the reader leaves it) names TEX texture `bindOf[i]`.
Rig texturedRig(const std::vector<uint32_t>& bindOf) {
  Rig rig;
  rig.name = "slugger";
  Bone root;
  root.name = "root";
  rig.skeleton.bones.push_back(root);
  Mesh mesh;
  mesh.name = "board";
  mesh.attachBone = 0;
  for (uint32_t i = 0; i <= bindOf.size(); ++i) {
    const float x = static_cast<float>(i);
    mesh.positions.insert(mesh.positions.end(), {{x, 0.0f, 0.0f}, {x, 1.0f, 0.0f}});
    mesh.normals.insert(mesh.normals.end(), {{0, 0, 1}, {0, 0, 1}});
    mesh.uvs.insert(mesh.uvs.end(), {{x / 4.0f, 1.0f}, {x / 4.0f, 0.0f}});
  }
  for (uint32_t i = 0; i < bindOf.size(); ++i) {
    const uint32_t v = 2 * i;
    mesh.parts.push_back(MeshPart{i, static_cast<uint32_t>(mesh.indices.size()), 6});
    mesh.indices.insert(mesh.indices.end(), {v, v + 2, v + 1, v + 1, v + 2, v + 3});
    Material m;
    m.name = "texture" + std::to_string(bindOf[i]);
    m.extras["sluggers"]["texture"] = bindOf[i];
    rig.materials.push_back(m);
  }
  rig.meshes.push_back(mesh);
  return rig;
}

std::vector<uint8_t> blockWith(const Rig& rig, const std::vector<test::TexEntry>& tex) {
  auto bytes = sluggers::writeModel(rig);
  EXPECT_TRUE(bytes.ok()) << bytes.error().describe();
  return test::withTex(bytes.ok() ? *bytes : std::vector<uint8_t>{}, test::writeTex(tex));
}

Result<Rig> readBlock(const std::vector<uint8_t>& bytes) {
  ReadContext ctx;
  return sluggers::readModel(bytes, ctx);
}

bool hasWarning(const Rig& rig, const std::string& code, const std::string& text = "") {
  for (const Warning& w : rig.provenance.warnings)
    if (w.code == code && w.message.find(text) != std::string::npos) return true;
  return false;
}

// Three textures: a C8 with an RGB5A3 palette, a CMPR and an RGB565, 8x8 each.
struct ThreeTextures {
  std::vector<test::TexEntry> entries;
  std::vector<std::vector<Rgba>> pixels;  // what each decodes to, by the tests' own rules
};

ThreeTextures threeTextures() {
  ThreeTextures t;
  std::mt19937 rng(3);
  std::vector<uint32_t> indices(64), colours(64);
  std::vector<uint16_t> palette(256);
  for (uint16_t& e : palette) e = static_cast<uint16_t>(rng());
  for (uint32_t& v : indices) v = rng() & 255;
  for (uint32_t& v : colours) v = rng() & 0xFFFF;
  t.entries.push_back({9, 8, 8, test::gxTiles(9, 8, 8, indices), palette, static_cast<uint8_t>(GxPalette::RGB5A3)});
  const std::vector<test::CmprBlock> blocks = cmprBlocks(5);
  t.entries.push_back({14, 8, 8, test::gxCmpr(8, 8, {blocks[0], blocks[1], blocks[2], blocks[3]}), {}, 0});
  t.entries.push_back({4, 8, 8, test::gxTiles(4, 8, 8, colours), {}, 0});
  t.pixels.resize(3);
  for (size_t i = 0; i < 64; ++i) {
    t.pixels[0].push_back(expected(GxFormat::C8, indices[i], palette, GxPalette::RGB5A3));
    const test::CmprBlock& b = blocks[(i / 8 / 4) * 2 + (i % 8) / 4];
    t.pixels[1].push_back(cmprColour(b, b.index[((i / 8) % 4) * 4 + i % 4]));
    t.pixels[2].push_back(expected(GxFormat::RGB565, colours[i], {}, GxPalette::IA8));
  }
  return t;
}

std::vector<Rgba> pixelsOf(const Texture& t) {
  std::vector<Rgba> out;
  for (size_t i = 0; i < t.image.levels.at(0).rgba.size() / 4; ++i) out.push_back(pixelOf(t.image.levels[0], i));
  return out;
}

}  // namespace

// Fact: a display state id 1 binds texture `setting & 0x1FFF` of the block's TEX for the lists after
// it (§3); each bound texture becomes its material's base colour, one material per texture index.
TEST(SluggersTex, TextureBindsBecomeMaterialsOnTheBlocksTextures) {
  const ThreeTextures tex = threeTextures();
  auto rig = readBlock(blockWith(texturedRig({2, 0, 2, 1}), tex.entries));
  ASSERT_TRUE(rig.ok()) << rig.error().describe();
  ASSERT_EQ(rig->materials.size(), 3u) << "texture 2 is bound twice, one material";
  ASSERT_EQ(rig->textures.size(), 3u);
  const Mesh& mesh = rig->meshes.at(0);
  ASSERT_EQ(mesh.parts.size(), 4u);
  const std::vector<uint32_t> want{2, 0, 2, 1};
  for (size_t p = 0; p < 4; ++p) {
    const Material& m = rig->materials.at(mesh.parts[p].material);
    EXPECT_EQ(m.name, "texture" + std::to_string(want[p]));
    ASSERT_TRUE(m.baseColorTexture.has_value());
    const Texture& t = rig->textures.at(*m.baseColorTexture);
    EXPECT_EQ(t.name, m.name);
    EXPECT_EQ(pixelsOf(t), tex.pixels[want[p]]) << "part " << p;
  }
  EXPECT_EQ(rig->textures[*rig->materials[mesh.parts[0].material].baseColorTexture].pixelFormat, "RGB565");
  EXPECT_EQ(rig->textures[*rig->materials[mesh.parts[1].material].baseColorTexture].pixelFormat, "C8");
  EXPECT_EQ(rig->textures[*rig->materials[mesh.parts[3].material].baseColorTexture].pixelFormat, "CMPR");
  EXPECT_FALSE(hasWarning(*rig, "sluggers-not-read")) << "the TEX section is read";

  // The writer keeps the binds by index: read back without the TEX, the materials stay, untextured.
  auto bytes = sluggers::writeModel(*rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  auto back = readBlock(*bytes);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->meshes.at(0).parts.size(), 4u);
  EXPECT_EQ(back->materials.at(back->meshes[0].parts[3].material).name, "texture1");
  EXPECT_TRUE(back->textures.empty());
  EXPECT_TRUE(hasWarning(*back, "sluggers-texture", "no TEX section")) << "an L_ model binds its partner's textures";
}

// A rig built in code holds its texture index as a signed JSON number (`= 1`), one read from a file
// as an unsigned one: the writer binds both alike.
TEST(SluggersTex, ASignedTextureIndexBindsLikeAnUnsignedOne) {
  const ThreeTextures tex = threeTextures();
  Rig rig = texturedRig({1});
  rig.materials[0].extras["sluggers"]["texture"] = 1;
  ASSERT_TRUE(rig.materials[0].extras["sluggers"]["texture"].is_number_integer() && !rig.materials[0].extras["sluggers"]["texture"].is_number_unsigned());
  auto back = readBlock(blockWith(rig, tex.entries));
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->materials.size(), 1u);
  ASSERT_TRUE(back->materials[0].baseColorTexture.has_value()) << "the bind was written";
  EXPECT_EQ(pixelsOf(back->textures.at(*back->materials[0].baseColorTexture)), tex.pixels[1]);
}

// A texture whose palette index runs past its entries costs that texture (a warning naming it),
// not the block; a descriptor whose image leaves the section refuses the block naming the field.
TEST(SluggersTex, DamagedTexturesCostThemselvesAndForgedSizesTheBlock) {
  ThreeTextures tex = threeTextures();
  tex.entries[0].paletteEntries = 4;
  auto rig = readBlock(blockWith(texturedRig({0, 1}), tex.entries));
  ASSERT_TRUE(rig.ok()) << rig.error().describe();
  EXPECT_TRUE(hasWarning(*rig, "sluggers-texture", "texture 0 is not read")) << "the C8 texture indexes past 4 entries";
  EXPECT_FALSE(rig->materials.at(0).baseColorTexture.has_value());
  EXPECT_TRUE(rig->materials.at(1).baseColorTexture.has_value());

  tex = threeTextures();
  tex.entries[2].width = 4000;
  tex.entries[2].height = 4000;
  rig = readBlock(blockWith(texturedRig({2}), tex.entries));
  ASSERT_FALSE(rig.ok());
  EXPECT_NE(rig.error().describe().find("descriptor[2]/image"), std::string::npos) << rig.error().describe();
  EXPECT_NE(rig.error().describe().find("leaves the TEX section"), std::string::npos) << rig.error().describe();
}

// The CLI's glTF of a textured block: validator-clean, each material on its texture, PNG pixels
// those the GX decoder gave.
TEST(SluggersTex, CliConvertsATexturedBlockToAValidGlb) {
  const std::string dir = test::scratchDir("sluggers_tex_cli");
  const ThreeTextures tex = threeTextures();
  const std::vector<uint8_t> block = blockWith(texturedRig({1, 2}), tex.entries);
  const std::string path = dir + "/slugger.sluggers";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(block.size()));
  const test::CliRun run = test::runCli("convert " + test::quote(path) + " -o " + test::quote(dir + "/out.glb"));
  ASSERT_EQ(run.code, 0) << run.text;
  const test::ValidatorRun v = test::validateGltfFile(dir + "/out.glb");
  EXPECT_TRUE(v.ok) << v.output;

  tinygltf::TinyGLTF loader;
  loader.SetImageLoader([](tinygltf::Image*, int, std::string*, std::string*, int, int, const unsigned char*, int, void*) { return true; },
                        nullptr);
  tinygltf::Model m;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromFile(&m, &err, &warn, dir + "/out.glb")) << err;
  ASSERT_EQ(m.materials.size(), 2u);
  ASSERT_EQ(m.images.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const int texture = m.materials[i].pbrMetallicRoughness.baseColorTexture.index;
    ASSERT_GE(texture, 0) << "material " << i;
    const tinygltf::Image& image = m.images.at(static_cast<size_t>(m.textures.at(static_cast<size_t>(texture)).source));
    const tinygltf::BufferView& view = m.bufferViews.at(static_cast<size_t>(image.bufferView));
    const std::vector<uint8_t> rgba = test::decodePng(std::span<const uint8_t>(m.buffers[0].data).subspan(view.byteOffset, view.byteLength));
    ASSERT_FALSE(rgba.empty()) << "libpng refuses image " << i;
    std::vector<Rgba> pixels;
    for (size_t p = 0; p < rgba.size() / 4; ++p) pixels.push_back({rgba[4 * p], rgba[4 * p + 1], rgba[4 * p + 2], rgba[4 * p + 3]});
    EXPECT_EQ(pixels, tex.pixels[i + 1]) << "material " << m.materials[i].name;
  }
  const tinygltf::Sampler& s = m.samplers.at(static_cast<size_t>(m.textures[0].sampler));
  EXPECT_EQ(s.wrapS, 10497) << "the writer's binds repeat";
  EXPECT_EQ(s.magFilter, 9729);
}

// Fact (§3 id 1, [CP] SetState): a bind's setting holds wrapS in bits 16-19, wrapT in 20-23 (GX_CLAMP 0,
// GX_REPEAT 1, GX_MIRROR 2), minFilter in 24-27 and magFilter in 28-31 (GX_NEAR 0, GX_LINEAR 1,
// GX_NEAR_MIP_LIN 4). Each texture takes its bind's sampler; textures of one setting share a sampler.
TEST(SluggersTex, EachDistinctBindSettingIsOneGltfSampler) {
  const std::string dir = test::scratchDir("sluggers_tex_samplers");
  Rig rig = texturedRig({0, 1, 2});
  rig.materials[0].extras["sluggers"]["bind"] = 0u | 0u << 16 | 2u << 20 | 4u << 24 | 0u << 28;  // texture 0: clamp, mirror, nearest
  const std::vector<uint8_t> block = blockWith(rig, threeTextures().entries);  // textures 1 and 2: the writer's repeat, linear
  const std::string path = dir + "/slugger.sluggers";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(block.size()));
  ASSERT_EQ(test::runCli("convert " + test::quote(path) + " -o " + test::quote(dir + "/out.glb")).code, 0);
  const test::ValidatorRun v = test::validateGltfFile(dir + "/out.glb");
  EXPECT_TRUE(v.ok) << v.output;
  tinygltf::TinyGLTF loader;  // images kept as stored (rigport builds tinygltf without stb_image)
  loader.SetImageLoader([](tinygltf::Image*, int, std::string*, std::string*, int, int, const unsigned char*, int, void*) { return true; },
                        nullptr);
  tinygltf::Model m;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromFile(&m, &err, &warn, dir + "/out.glb")) << err;
  ASSERT_EQ(m.materials.size(), 3u);
  ASSERT_EQ(m.samplers.size(), 2u) << "two distinct settings";
  const auto samplerOf = [&](size_t material) {
    const int texture = m.materials.at(material).pbrMetallicRoughness.baseColorTexture.index;
    return texture < 0 ? -1 : m.textures.at(static_cast<size_t>(texture)).sampler;
  };
  ASSERT_GE(samplerOf(0), 0);
  EXPECT_EQ(samplerOf(1), samplerOf(2));
  EXPECT_NE(samplerOf(0), samplerOf(1));
  const tinygltf::Sampler& s = m.samplers.at(static_cast<size_t>(samplerOf(0)));
  EXPECT_EQ(s.wrapS, 33071);      // CLAMP_TO_EDGE
  EXPECT_EQ(s.wrapT, 33648);      // MIRRORED_REPEAT
  EXPECT_EQ(s.minFilter, 9986);   // NEAREST_MIPMAP_LINEAR
  EXPECT_EQ(s.magFilter, 9728);   // NEAREST
  const tinygltf::Sampler& r = m.samplers.at(static_cast<size_t>(samplerOf(1)));
  EXPECT_EQ(r.wrapS, 10497);      // REPEAT
  EXPECT_EQ(r.minFilter, 9729);   // LINEAR
}

// The sluggers_model fuzz target's textured seed (tests/data/fuzz/sluggers_model/
// seed-textured-tex.sluggers) is this writer's block with three textures (C8 + RGB5A3 palette, CMPR,
// RGB565) appended, so fuzzing reaches the TEX reader and the GX decoder.
TEST(SluggersTex, TexturedFuzzSeedIsTheWritersOutput) {
  const std::vector<uint8_t> written = blockWith(texturedRig({0, 1, 2}), threeTextures().entries);
  test::expectKeptSeed("sluggers_model/seed-textured-tex.sluggers", written);
  auto rig = readBlock(written);
  ASSERT_TRUE(rig.ok()) << rig.error().describe();
  EXPECT_EQ(rig->textures.size(), 3u);
}
