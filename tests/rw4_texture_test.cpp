// RenderWare 4 textures (issue 29): synthetic arenas written by the tests' own writer
// (support/rw4_texture_builder.hpp) holding Skate's PS3 Texture objects and Spore's PC Raster
// objects in every format rigport reads, with mip chains, decoded through the image room. The 32-bit
// formats must decode bit for bit to what the tests compute from the stored bytes by their own rule
// (A, R, G, B bytes; swizzled texels found by de-interleaving their index, the reverse of the
// reader's rule); DXT exactly as libsquish's own decoder does and within its encoder's error.
// Forged sizes are refused naming the field; unread formats are skipped with a warning naming them;
// `convert` of a texture arena writes PNG files and `info` lists the textures.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include <png.h>
#include <squish.h>

#include "core/read_context.hpp"
#include "formats/rw4/rw4.hpp"
#include "support/rw4_texture_builder.hpp"
#include "support/png_decode.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using test::Rw4Texture;

namespace {

std::vector<uint8_t> randomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (uint8_t& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

uint32_t side(uint32_t s, size_t level) { return std::max(1u, s >> level); }

Result<Asset> read(const std::vector<uint8_t>& bytes, uint64_t memoryLimit = Budget::kDefaultLimit) {
  ReadOptions options;
  options.memoryLimit = memoryLimit;
  ReadContext ctx(options);
  return rw4::readArena(*Source::fromBytes(bytes, "textures.psg"), ctx);
}

Error readError(const std::vector<uint8_t>& bytes, uint64_t memoryLimit = Budget::kDefaultLimit) {
  auto asset = read(bytes, memoryLimit);
  EXPECT_FALSE(asset.ok()) << "the arena was read";
  return asset.ok() ? Error{} : asset.error();
}

bool names(const Error& e, const std::string& field) { return e.path.find(field) != std::string::npos; }

bool warned(const Provenance& p, const std::string& code, const std::string& text) {
  return std::any_of(p.warnings.begin(), p.warnings.end(),
                     [&](const Warning& w) { return w.code == code && w.message.find(text) != std::string::npos; });
}

// The texel a Morton-ordered level stores at `index`: its bits dealt out again, x first, each side
// taking bits only while it has any (RPCS3's and qemu's rule). The reader goes the other way, from
// (x, y) to the index, so a mistake in either shows.
std::pair<uint32_t, uint32_t> deinterleave(uint64_t index, uint32_t width, uint32_t height) {
  uint32_t x = 0, y = 0, xBits = 0, yBits = 0;
  while ((1u << xBits) < width || (1u << yBits) < height) {
    if ((1u << xBits) < width) x |= static_cast<uint32_t>(index & 1) << xBits++, index >>= 1;
    if ((1u << yBits) < height) y |= static_cast<uint32_t>(index & 1) << yBits++, index >>= 1;
  }
  return {x, y};
}

// The RGBA a stored 32-bit level gives: A, R, G, B bytes (PS3, big-endian ARGB; `opaque` for
// D8R8G8B8, whose first byte is unused), in rows or Morton order.
std::vector<uint8_t> expectedArgb(const std::vector<uint8_t>& stored, uint32_t w, uint32_t h, bool swizzled, bool opaque) {
  std::vector<uint8_t> rgba(size_t{w} * h * 4);
  for (uint64_t i = 0; i < uint64_t{w} * h; ++i) {
    const auto [x, y] = swizzled ? deinterleave(i, w, h) : std::pair<uint32_t, uint32_t>{uint32_t(i % w), uint32_t(i / w)};
    const uint8_t* p = stored.data() + 4 * i;
    uint8_t* out = rgba.data() + 4 * (size_t{y} * w + x);
    out[0] = p[1], out[1] = p[2], out[2] = p[3], out[3] = opaque ? 255 : p[0];
  }
  return rgba;
}

// A texture of random 32-bit texels, `levels` levels of a w x h chain.
Rw4Texture argbTexture(uint8_t format, uint16_t w, uint16_t h, size_t levels, uint32_t seed) {
  Rw4Texture t;
  t.format = format;
  t.width = w;
  t.height = h;
  for (size_t l = 0; l < levels; ++l) t.levels.push_back(randomBytes(size_t{side(w, l)} * side(h, l) * 4, seed + uint32_t(l)));
  return t;
}

// A smooth RGBA picture for the DXT encoder: colours on one line (what a DXT block holds best), alpha
// varying so DXT3 and DXT5 differ, never under 128 so DXT1 keeps every texel's colour.
std::vector<uint8_t> picture(uint32_t w, uint32_t h) {
  std::vector<uint8_t> rgba;
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) rgba.insert(rgba.end(), {uint8_t(10 * (x + y)), uint8_t(12 * (x + y)), uint8_t(200 - 8 * (x + y)), uint8_t(255 - 8 * x)});
  return rgba;
}

struct Dxt {
  const char* name;
  uint8_t gcm;
  uint32_t fourCc;
  int flags;
};
const Dxt kDxt[] = {{"DXT1", 0x86, 0x31545844, squish::kDxt1}, {"DXT3", 0x87, 0x33545844, squish::kDxt3}, {"DXT5", 0x88, 0x35545844, squish::kDxt5}};

// A DXT texture of `picture` halved per level (12x8 -> 6x4 -> 3x2 -> 1x1: the last two smaller than
// a block), each level encoded by libsquish; `references` gets libsquish's decoding of each.
Rw4Texture dxtTexture(const Dxt& d, std::vector<std::vector<uint8_t>>* references) {
  Rw4Texture t;
  t.format = d.gcm;
  t.d3dFormat = d.fourCc;
  t.width = 12;
  t.height = 8;
  for (size_t l = 0; l < 4; ++l) {
    const int w = int(side(12, l)), h = int(side(8, l));
    const std::vector<uint8_t> source = picture(uint32_t(w), uint32_t(h));
    std::vector<uint8_t> blocks(size_t(squish::GetStorageRequirements(w, h, d.flags)));
    squish::CompressImage(source.data(), w, h, blocks.data(), d.flags);
    std::vector<uint8_t> decoded(size_t(w) * h * 4);
    squish::DecompressImage(decoded.data(), w, h, blocks.data(), d.flags);
    references->push_back(std::move(decoded));
    t.levels.push_back(std::move(blocks));
  }
  return t;
}

void expectLevels(const Texture& t, const std::vector<std::vector<uint8_t>>& expected, uint32_t w, uint32_t h) {
  ASSERT_EQ(t.image.levels.size(), expected.size()) << t.name;
  for (size_t l = 0; l < expected.size(); ++l) {
    EXPECT_EQ(t.image.levels[l].width, side(w, l)) << t.name << " level " << l;
    EXPECT_EQ(t.image.levels[l].height, side(h, l)) << t.name << " level " << l;
    EXPECT_EQ(t.image.levels[l].rgba, expected[l]) << t.name << " level " << l;
  }
}

}  // namespace

// 0xA5 (A8R8G8B8 | LN) stores rows; 0x85 Morton order (square, wider and taller chains, so both
// sides' carries are crossed); 0x9E (D8R8G8B8) ignores its first byte.
TEST(Rw4Texture, Ps3ArgbTexturesDecodeBitForBitLinearAndSwizzled) {
  struct Case {
    uint8_t format;
    uint16_t w, h;
    bool swizzled, opaque;
  };
  const Case cases[] = {{0xA5, 8, 8, false, false}, {0x85, 8, 8, true, false}, {0x85, 16, 4, true, false},
                        {0x85, 2, 16, true, false}, {0x9E, 8, 4, true, true},   {0xBE, 4, 8, false, true}};
  std::vector<Rw4Texture> textures;
  for (size_t i = 0; i < std::size(cases); ++i) {
    const Case& c = cases[i];
    textures.push_back(argbTexture(c.format, c.w, c.h, size_t(std::bit_width(std::max(c.w, c.h))), 100 + 10 * uint32_t(i)));
  }
  auto asset = read(test::writeTextureArena(textures));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->textures.size(), std::size(cases));
  for (size_t i = 0; i < std::size(cases); ++i) {
    const Case& c = cases[i];
    std::vector<std::vector<uint8_t>> expected;
    for (size_t l = 0; l < textures[i].levels.size(); ++l) {
      expected.push_back(expectedArgb(textures[i].levels[l], side(c.w, l), side(c.h, l), c.swizzled, c.opaque));
    }
    expectLevels(asset->textures[i], expected, c.w, c.h);
    EXPECT_EQ(asset->textures[i].pixelFormat.find(c.swizzled ? "swizzled" : "linear") != std::string::npos, true)
        << asset->textures[i].pixelFormat;
  }
  EXPECT_EQ(asset->textures[0].image.alpha, AlphaMode::Blend);  // random alpha
  EXPECT_EQ(asset->textures[4].image.alpha, AlphaMode::Opaque);  // D8R8G8B8
}

// DXT blocks lie in rows of blocks whether or not the LN bit is set (0x86 is what the public PSGs
// store; 0xA6 the same with LN): decoded exactly as libsquish decodes them, and close to the source.
TEST(Rw4Texture, Ps3DxtTexturesDecodeAsLibsquishWithEveryMip) {
  std::vector<Rw4Texture> textures;
  std::vector<std::vector<std::vector<uint8_t>>> references(std::size(kDxt) + 1);
  for (size_t i = 0; i < std::size(kDxt); ++i) textures.push_back(dxtTexture(kDxt[i], &references[i]));
  textures.push_back(dxtTexture(kDxt[0], &references.back()));
  textures.back().format = 0xA6;
  auto asset = read(test::writeTextureArena(textures));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->textures.size(), textures.size());
  for (size_t i = 0; i < textures.size(); ++i) {
    expectLevels(asset->textures[i], references[i], 12, 8);
    EXPECT_EQ(asset->textures[i].pixelFormat, kDxt[i % std::size(kDxt)].name);
    // libsquish's encoder keeps a smooth picture within a few steps per channel.
    const std::vector<uint8_t> source = picture(12, 8);
    const std::vector<uint8_t>& got = asset->textures[i].image.levels[0].rgba;
    for (size_t b = 0; b < source.size(); ++b) {
      const bool alpha = b % 4 == 3;
      const int tolerance = alpha && i % 3 == 0 ? 255 : alpha && i % 3 == 1 ? 9 : 24;  // DXT1 has 1-bit alpha, DXT3 4-bit
      ASSERT_LE(std::abs(int(got[b]) - int(source[b])), tolerance) << kDxt[i % 3].name << " byte " << b;
    }
  }
}

// A linear texture's rows lie `pitch` bytes apart on every level; the padding is never a texel.
TEST(Rw4Texture, PitchedLinearRowsSkipTheirPadding) {
  Rw4Texture t;
  t.format = 0xA5;
  t.width = 4;
  t.height = 4;
  t.pitch = 24;  // 16 bytes of texels and 8 of padding per row
  std::vector<std::vector<uint8_t>> expected;
  for (size_t l = 0; l < 3; ++l) {
    const uint32_t w = side(4, l), h = side(4, l);
    std::vector<uint8_t> stored = randomBytes(size_t{24} * h, 7 + uint32_t(l)), rows;
    for (uint32_t y = 0; y < h; ++y) rows.insert(rows.end(), stored.begin() + 24 * y, stored.begin() + 24 * y + 4 * w);
    expected.push_back(expectedArgb(rows, w, h, false, false));
    t.levels.push_back(std::move(stored));
  }
  auto asset = read(test::writeTextureArena({t}));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->textures.size(), 1u);
  expectLevels(asset->textures[0], expected, 4, 4);
  t.pitch = 12;  // shorter than a row: that texture is not read, the arena is
  auto shorter = read(test::writeTextureArena({t}));
  ASSERT_TRUE(shorter.ok()) << shorter.error().describe();
  EXPECT_TRUE(shorter->textures.empty());
  EXPECT_TRUE(warned(shorter->provenance, "rw4-texture-skipped", "pitch 12 is shorter than a row of 4 texels"));
}

// Spore's Raster: D3D's little-endian layouts (A8R8G8B8 as B, G, R, A bytes) and DXT, each level
// back to back in a BaseResource 0x10030 of a PC arena.
TEST(Rw4Texture, SporeRastersDecodeWithTheirMips) {
  std::vector<std::vector<uint8_t>> dxtReference, argbExpected;
  Rw4Texture dxt = dxtTexture(kDxt[2], &dxtReference);
  Rw4Texture argb = argbTexture(0, 8, 4, 4, 300);
  argb.d3dFormat = 21;
  for (size_t l = 0; l < argb.levels.size(); ++l) {
    std::vector<uint8_t> rgba = argb.levels[l];
    for (size_t p = 0; p < rgba.size(); p += 4) std::swap(rgba[p], rgba[p + 2]);  // B, G, R, A -> R, G, B, A
    argbExpected.push_back(std::move(rgba));
  }
  auto asset = read(test::writeTextureArena({dxt, argb}, false));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->textures.size(), 2u);
  expectLevels(asset->textures[0], dxtReference, 12, 8);
  expectLevels(asset->textures[1], argbExpected, 8, 4);
  EXPECT_EQ(asset->textures[0].name, "texture_1");  // Spore's arenas have no TableOfContents
  EXPECT_EQ(asset->textures[1].pixelFormat, "A8R8G8B8");
}

// §4.3: the TableOfContents entry naming a texture's row names it; an entry without a name gives
// the GUID in the public samples' spelling.
TEST(Rw4Texture, TableOfContentsNamesTheTextures) {
  std::vector<std::vector<uint8_t>> unused;
  Rw4Texture named = dxtTexture(kDxt[0], &unused), unnamed = named;
  named.tocName = "0x2c7f38180001000f.Texture";
  named.guid = 0x2c7f38180001000fULL;
  unnamed.guid = 0x0a950eac2dfefc7bULL;
  auto asset = read(test::writeTextureArena({named, unnamed}));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->textures.size(), 2u);
  EXPECT_EQ(asset->textures[0].name, "0x2c7f38180001000f.Texture");
  EXPECT_EQ(asset->textures[1].name, "0x0a950eac2dfefc7b");
  EXPECT_FALSE(warned(asset->provenance, "rw4-no-model", "")) << "a texture arena holds something to export";
}

// Forged sides and mip counts are refused naming the field, before anything is decoded; a budget
// smaller than the decoded pixels refuses the read.
TEST(Rw4Texture, ForgedSizesAreRefusedNamingTheField) {
  const Rw4Texture t = argbTexture(0xA5, 8, 8, 3, 5);  // 8x8, 4x4, 2x2 stored
  Rw4Texture wide = t;
  wide.width = 4096;
  Error e = readError(test::writeTextureArena({wide}));
  EXPECT_EQ(e.code, ErrorCode::TooLarge);
  EXPECT_TRUE(names(e, "width x height")) << e.describe();
  Rw4Texture mips = t;
  mips.mipmap = 4;  // the 1x1 level lies past the BaseResource
  e = readError(test::writeTextureArena({mips}));
  EXPECT_EQ(e.code, ErrorCode::TooLarge);
  EXPECT_TRUE(names(e, "mipmap")) << e.describe();
  mips.mipmap = 200;  // more than halving makes
  e = readError(test::writeTextureArena({mips}));
  EXPECT_EQ(e.code, ErrorCode::TooLarge);
  EXPECT_TRUE(names(e, "mipmap")) << e.describe();
  EXPECT_NE(e.message.find("a 8x8 texture has 1 to 4"), std::string::npos) << e.describe();
  const Rw4Texture big = argbTexture(0x85, 256, 256, 1, 9);
  e = readError(test::writeTextureArena({big}), 400 * 1024);  // 256 KiB put in rows, then 256 KiB of RGBA
  EXPECT_EQ(e.code, ErrorCode::TooLarge) << e.describe();
  EXPECT_TRUE(read(test::writeTextureArena({big}), 1024 * 1024).ok()) << "the same arena within a budget that holds it";
  Rw4Texture raster = argbTexture(0, 8, 8, 1, 11);
  raster.d3dFormat = 21;
  raster.height = 9000;
  e = readError(test::writeTextureArena({raster}, false));
  EXPECT_TRUE(names(e, "width x height")) << e.describe();
}

// What rigport does not read costs that texture alone, with a warning naming what it is.
TEST(Rw4Texture, UnreadTexturesAreSkippedWithTheReason) {
  std::vector<std::vector<uint8_t>> unused;
  const Rw4Texture good = dxtTexture(kDxt[1], &unused);
  Rw4Texture hilo = good, cube = good, npot = argbTexture(0x85, 6, 4, 1, 3), stray = good;
  hilo.format = 0x98;  // COMPRESSED_HILO8
  cube.cubemap = 1;
  stray.buffer = 1;  // the row of a Texture, not a BaseResource
  auto asset = read(test::writeTextureArena({hilo, good, cube, npot, stray}));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->textures.size(), 1u);
  EXPECT_EQ(asset->textures[0].name, "texture_3");
  EXPECT_TRUE(warned(asset->provenance, "rw4-texture-skipped", "texture format 0x98 is not read")) << asset->provenance.warnings.size();
  EXPECT_TRUE(warned(asset->provenance, "rw4-texture-skipped", "cube maps are not read"));
  EXPECT_TRUE(warned(asset->provenance, "rw4-texture-skipped", "a swizzled texture 6 wide"));
  EXPECT_TRUE(warned(asset->provenance, "rw4-texture-skipped", "row 1 is not a BaseResource"));
}

// Every prefix and every single-byte change of a texture arena reads or fails with an error: never
// a crash, never a texture of the wrong size.
TEST(Rw4Texture, EveryTruncationAndByteFlipFailsCleanly) {
  std::vector<std::vector<uint8_t>> unused;
  const std::vector<uint8_t> bytes = test::writeTextureArena({dxtTexture(kDxt[2], &unused), argbTexture(0x85, 4, 4, 3, 1)});
  for (size_t n = 0; n < bytes.size(); n += 3) (void)read(std::vector<uint8_t>(bytes.begin(), bytes.begin() + std::ptrdiff_t(n)));
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::vector<uint8_t> flipped = bytes;
    flipped[at] ^= 0xA5;
    auto asset = read(flipped);
    if (!asset) continue;
    for (const Texture& t : asset->textures) {
      for (const ImageLevel& l : t.image.levels) ASSERT_EQ(l.rgba.size(), size_t{l.width} * l.height * 4) << "byte " << at;
    }
  }
}

// The fuzz target's seeds (tests/data/fuzz/rw4_arena/seed-*-textures.*) are this writer's output:
// every PS3 format with mips and a TableOfContents, and Spore's Rasters.
TEST(Rw4Texture, FuzzSeedsAreTheWritersOutput) {
  std::vector<std::vector<uint8_t>> unused;
  std::vector<Rw4Texture> ps3;
  for (const Dxt& d : kDxt) ps3.push_back(dxtTexture(d, &unused));
  for (uint8_t format : {uint8_t(0xA5), uint8_t(0x85), uint8_t(0x9E)}) ps3.push_back(argbTexture(format, 4, 2, 3, format));
  ps3[0].tocName = "0x0000000000000001.Texture";
  ps3[0].guid = 1;
  Rw4Texture raster = argbTexture(0, 4, 4, 3, 77);
  raster.d3dFormat = 21;
  const std::pair<std::string, std::vector<uint8_t>> seeds[] = {
      {"seed-ps3-textures.psg", test::writeTextureArena(ps3)},
      {"seed-spore-textures.rw4", test::writeTextureArena({dxtTexture(kDxt[0], &unused), raster}, false)}};
  for (const auto& [name, written] : seeds) {
    test::expectKeptSeed("rw4_arena/" + name, written);
    auto asset = read(written);
    ASSERT_TRUE(asset.ok()) << asset.error().describe();
    EXPECT_EQ(asset->textures.size(), name.find("ps3") != std::string::npos ? ps3.size() : 2u) << name;
  }
}

namespace {

std::string lineWith(const std::string& text, const std::string& part) {
  const size_t at = text.find(part);
  if (at == std::string::npos) return {};
  const size_t start = text.rfind('\n', at) + 1;
  return text.substr(start, text.find('\n', at) - start);
}

}  // namespace

// A texture arena through the command line: `info` lists each texture (name, size, format, mips)
// and `convert` writes each one's level 0 as a PNG named after it, instead of "holds nothing to export".
TEST(Rw4TextureCli, ATextureArenaIsListedAndWrittenAsPngs) {
  const std::string dir = test::scratchDir("rw4_texture_cli");
  Rw4Texture argb = argbTexture(0x85, 8, 4, 4, 21);
  argb.tocName = "0x2c7f38180001000f.Texture";
  argb.guid = 0x2c7f38180001000fULL;
  std::vector<std::vector<uint8_t>> reference;
  Rw4Texture dxt = dxtTexture(kDxt[2], &reference);
  dxt.guid = 0x26e51b122e587b70ULL;
  const std::vector<uint8_t> bytes = test::writeTextureArena({argb, dxt});
  std::ofstream(dir + "/0x2c7f38180001000f.psg", std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  const std::string psg = test::quote(dir + "/0x2c7f38180001000f.psg");

  const test::CliRun info = test::runCli("info " + psg);
  ASSERT_EQ(info.code, 0) << info.text;
  EXPECT_NE(info.text.find("textures        2"), std::string::npos) << info.text;
  const std::string argbLine = lineWith(info.text, "0x2c7f38180001000f.Texture");
  EXPECT_NE(argbLine.find(" 8x4  A8R8G8B8 swizzled     4  blend"), std::string::npos) << info.text;
  const std::string dxtLine = lineWith(info.text, "0x26e51b122e587b70");
  EXPECT_NE(dxtLine.find(" 12x8  DXT5       4  blend"), std::string::npos) << info.text;

  const test::CliRun run = test::runCli("convert " + psg + " -o " + test::quote(dir + "/out"));
  ASSERT_EQ(run.code, 0) << run.text;
  uint32_t w = 0, h = 0;
  EXPECT_EQ(test::decodePng(test::readBytes(dir + "/out/0x2c7f38180001000f/0x2c7f38180001000f.Texture.png"), &w, &h),
            expectedArgb(argb.levels[0], 8, 4, true, false));
  EXPECT_EQ(w, 8u);
  EXPECT_EQ(h, 4u);
  EXPECT_EQ(test::decodePng(test::readBytes(dir + "/out/0x2c7f38180001000f/0x26e51b122e587b70.png"), &w, &h), reference[0]);
}
