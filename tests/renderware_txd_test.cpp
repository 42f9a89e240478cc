// RenderWare texture dictionaries (issue 29): synthetic TXDs written by the tests' own writer
// (support/txd_builder.hpp) in every raster format rigport reads, on D3D8 and D3D9, decoded through
// the image room. Lossless formats must decode bit for bit to what the tests compute from the
// stored bits by their own rule; DXT exactly as libsquish's own decoder does, and within the error
// of its encoder; forged sizes are refused naming the field; other platforms are `unsupported`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>

#include <squish.h>

#include "core/byte_reader.hpp"
#include "core/read_context.hpp"
#include "formats/renderware/renderware.hpp"
#include "image/png.hpp"
#include "support/test_support.hpp"
#include "support/txd_builder.hpp"

using namespace rigport;
using test::TxdRaster;

namespace {

constexpr uint32_t kD3d8 = 8, kD3d9 = 9;

// An n-bit channel as 8 bits: its bits repeated down (the rule image/decode.cpp states; libsquish's
// for 565 end points), written out here as shifts of the whole value.
uint8_t widen(uint32_t v, int bits) {
  uint32_t out = 0;
  for (int shift = 8 - bits; shift > -bits; shift -= bits) out |= shift >= 0 ? v << shift : v >> -shift;
  return static_cast<uint8_t>(out & 0xFF);
}

std::vector<uint8_t> randomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (uint8_t& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

uint32_t side(uint32_t s, size_t level) { return std::max(1u, s >> level); }

// A lossless format: how many bytes a pixel takes, and the RGBA a pixel's stored bytes give.
struct Lossless {
  const char* name;
  uint32_t rasterFormat;
  uint32_t d3dFormat;  // D3D9's D3DFORMAT for it
  size_t bytesPerPixel;
  uint32_t paletteEntries;
};

const Lossless kLossless[] = {
    {"8888", 0x0500, 21, 4, 0}, {"888", 0x0600, 22, 4, 0},  {"1555", 0x0100, 25, 2, 0},   {"565", 0x0200, 23, 2, 0},
    {"4444", 0x0300, 26, 2, 0}, {"LUM8", 0x0400, 50, 1, 0}, {"PAL8", 0x2500, 41, 1, 256}, {"PAL4", 0x4500, 41, 1, 32},
};

std::array<uint8_t, 4> expectedPixel(const Lossless& f, const uint8_t* p, const std::vector<uint8_t>& palette) {
  const uint32_t v16 = p[0] | (p[1] << 8);
  const std::string name = f.name;
  if (name == "8888") return {p[2], p[1], p[0], p[3]};
  if (name == "888") return {p[2], p[1], p[0], 255};
  if (name == "1555") return {widen((v16 >> 10) & 31, 5), widen((v16 >> 5) & 31, 5), widen(v16 & 31, 5), uint8_t(v16 >> 15 ? 255 : 0)};
  if (name == "565") return {widen(v16 >> 11, 5), widen((v16 >> 5) & 63, 6), widen(v16 & 31, 5), 255};
  if (name == "4444") return {widen((v16 >> 8) & 15, 4), widen((v16 >> 4) & 15, 4), widen(v16 & 15, 4), widen(v16 >> 12, 4)};
  if (name == "LUM8") return {p[0], p[0], p[0], 255};
  return {palette[4 * p[0]], palette[4 * p[0] + 1], palette[4 * p[0] + 2], palette[4 * p[0] + 3]};
}

// An 8x4 raster of random stored bits with its four mip levels (8x4, 4x2, 2x1, 1x1).
TxdRaster losslessRaster(const Lossless& f, uint32_t platform, uint32_t seed) {
  TxdRaster r;
  r.platform = platform;
  r.name = std::string("tex_") + f.name;
  r.rasterFormat = f.rasterFormat | 0x8000;  // with mipmaps
  r.alphaOrD3dFormat = platform == kD3d9 ? f.d3dFormat : 1;
  r.width = 8;
  r.height = 4;
  r.depth = static_cast<uint8_t>(f.paletteEntries == 256 ? 8 : f.paletteEntries == 32 ? 4 : f.bytesPerPixel * 8);
  r.palette = randomBytes(size_t{f.paletteEntries} * 4, seed + 100);
  for (size_t level = 0; level < 4; ++level) {
    std::vector<uint8_t> bytes = randomBytes(size_t{side(8, level)} * side(4, level) * f.bytesPerPixel, seed + static_cast<uint32_t>(level));
    if (f.paletteEntries > 0) {
      for (uint8_t& b : bytes) b = static_cast<uint8_t>(b % f.paletteEntries);
    }
    r.levels.push_back(std::move(bytes));
  }
  return r;
}

Result<Asset> read(const std::vector<uint8_t>& bytes, uint64_t memoryLimit = Budget::kDefaultLimit) {
  ReadOptions options;
  options.memoryLimit = memoryLimit;
  ReadContext ctx(options);
  return renderware::readTxd(bytes, ctx);
}

Error readError(const std::vector<uint8_t>& bytes, uint64_t memoryLimit = Budget::kDefaultLimit) {
  auto asset = read(bytes, memoryLimit);
  EXPECT_FALSE(asset.ok()) << "the TXD was read";
  return asset.ok() ? Error{} : asset.error();
}

}  // namespace

TEST(RenderwareTxd, ProbeKnowsADictionaryFromAClump) {
  EXPECT_TRUE(renderware::probeTxd(test::writeTxd({})));
  std::vector<uint8_t> clump = test::writeTxd({});
  clump[0] = 0x10;  // a Clump chunk
  EXPECT_FALSE(renderware::probeTxd(clump));
}

TEST(RenderwareTxd, EveryLosslessFormatDecodesBitForBitWithItsMips) {
  for (const uint32_t platform : {kD3d8, kD3d9}) {
    uint32_t seed = 1;
    for (const Lossless& f : kLossless) {
      SCOPED_TRACE(std::string(f.name) + (platform == kD3d8 ? " D3D8" : " D3D9"));
      const TxdRaster raster = losslessRaster(f, platform, seed += 10);
      auto asset = read(test::writeTxd({raster}));
      ASSERT_TRUE(asset.ok()) << asset.error().describe();
      ASSERT_EQ(asset->textures.size(), 1u);
      const Texture& t = asset->textures[0];
      EXPECT_EQ(t.name, raster.name);
      EXPECT_EQ(t.pixelFormat, f.name);
      ASSERT_EQ(t.image.levels.size(), 4u);
      for (size_t level = 0; level < 4; ++level) {
        const ImageLevel& l = t.image.levels[level];
        ASSERT_EQ(l.width, side(8, level));
        ASSERT_EQ(l.height, side(4, level));
        ASSERT_EQ(l.rgba.size(), size_t{l.width} * l.height * 4);
        std::vector<uint8_t> palette = raster.palette;
        for (size_t p = 0; p < size_t{l.width} * l.height; ++p) {
          const auto want = expectedPixel(f, raster.levels[level].data() + p * f.bytesPerPixel, palette);
          ASSERT_TRUE(std::equal(want.begin(), want.end(), l.rgba.begin() + static_cast<std::ptrdiff_t>(4 * p))) << "level " << level << " pixel " << p;
        }
      }
    }
  }
}

// A palette over an 888 raster: D3D's palette entries carry a fourth byte that is not alpha there.
TEST(RenderwareTxd, PaletteOverAn888RasterIsOpaque) {
  TxdRaster raster = losslessRaster(kLossless[6], kD3d8, 7);
  raster.rasterFormat = 0x2600;  // PAL8 | 888
  for (size_t i = 3; i < raster.palette.size(); i += 4) raster.palette[i] = 0;
  auto asset = read(test::writeTxd({raster}));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  const std::vector<uint8_t>& rgba = asset->textures.at(0).image.levels.at(0).rgba;
  for (size_t i = 3; i < rgba.size(); i += 4) ASSERT_EQ(rgba[i], 255);
  EXPECT_EQ(asset->textures[0].image.alpha, AlphaMode::Opaque);
}

namespace {

// A 12x8 image whose colours lie on one line in RGB space (a ramp along x + y, what a block's two
// end points and their blends can hold) and, for DXT3/5, an alpha ramp along x; DXT1 gets 0/255
// alpha, a hole in one corner (its 1-bit alpha).
std::vector<uint8_t> dxtSource(int flags) {
  std::vector<uint8_t> rgba;
  const bool dxt1 = (flags & squish::kDxt1) != 0;
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 12; ++x) {
      const int t = x + y;
      const bool hole = dxt1 && x < 4 && y < 4;
      rgba.insert(rgba.end(), {uint8_t(10 * t), uint8_t(12 * t), uint8_t(200 - 8 * t), uint8_t(hole ? 0 : dxt1 ? 255 : 255 - 20 * x)});
    }
  }
  return rgba;
}

std::vector<uint8_t> squishEncode(const std::vector<uint8_t>& rgba, int w, int h, int flags) {
  std::vector<uint8_t> blocks(static_cast<size_t>(squish::GetStorageRequirements(w, h, flags)));
  squish::CompressImage(rgba.data(), w, h, blocks.data(), flags);
  return blocks;
}

// libsquish's own decoder of `blocks` (w x h), our reference.
std::vector<uint8_t> squishDecode(const std::vector<uint8_t>& blocks, int w, int h, int flags) {
  std::vector<uint8_t> rgba(static_cast<size_t>(w) * h * 4);
  squish::DecompressImage(rgba.data(), w, h, blocks.data(), flags);
  return rgba;
}

}  // namespace

TEST(RenderwareTxd, DxtDecodesAsLibsquishDoesWithinItsEncoderError) {
  struct Case {
    const char* name;
    int flags;
    uint32_t fourCc;
    uint8_t d3d8Compression;
  };
  const Case cases[] = {{"DXT1", squish::kDxt1, 0x31545844, 1}, {"DXT3", squish::kDxt3, 0x33545844, 3}, {"DXT5", squish::kDxt5, 0x35545844, 5}};
  for (const uint32_t platform : {kD3d8, kD3d9}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + (platform == kD3d8 ? " D3D8" : " D3D9"));
      const std::vector<uint8_t> source = dxtSource(c.flags);
      TxdRaster raster;
      raster.platform = platform;
      raster.name = c.name;
      raster.rasterFormat = (c.flags & squish::kDxt1 ? 0x0100 : 0x0300) | 0x8000;
      raster.alphaOrD3dFormat = platform == kD3d9 ? c.fourCc : 1;
      raster.compressionOrFlags = platform == kD3d9 ? 8 | 1 : c.d3d8Compression;
      raster.width = 12;
      raster.height = 8;
      raster.depth = 16;
      // Levels 12x8, 6x4, 3x2, 1x1: the last two are smaller than a block.
      std::vector<std::vector<uint8_t>> references;
      for (size_t level = 0; level < 4; ++level) {
        const int w = static_cast<int>(side(12, level)), h = static_cast<int>(side(8, level));
        std::vector<uint8_t> pixels(static_cast<size_t>(w) * h * 4);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) std::copy_n(source.begin() + 4 * (y * 12 + x), 4, pixels.begin() + 4 * (y * w + x));
        raster.levels.push_back(squishEncode(pixels, w, h, c.flags));
        references.push_back(squishDecode(raster.levels.back(), w, h, c.flags));
      }
      auto asset = read(test::writeTxd({raster}));
      ASSERT_TRUE(asset.ok()) << asset.error().describe();
      const Texture& t = asset->textures.at(0);
      EXPECT_EQ(t.pixelFormat, c.name);
      ASSERT_EQ(t.image.levels.size(), 4u);
      for (size_t level = 0; level < 4; ++level) EXPECT_EQ(t.image.levels[level].rgba, references[level]) << "level " << level;
      // Against the source (a misplaced block would be far off): a block's colours are 4 blends of
      // two 565 end points, so a ramp spanning 6 steps of (10, 12, 8) per block keeps within a
      // third of its span over 2 plus an end point's rounding: 72 / 3 / 2 + 4 = 16 levels a
      // channel. DXT3's 4-bit alpha is within 9 (half of 17), DXT5's 8 blends of a 60-level span
      // within 5; DXT1's holes are exactly 0, their colour too (a transparent DXT1 texel stores none).
      const std::vector<uint8_t>& rgba = t.image.levels[0].rgba;
      for (size_t i = 0; i < rgba.size(); ++i) {
        if (source[i | 3] == 0) {
          ASSERT_EQ(rgba[i], 0) << "byte " << i;
          continue;
        }
        const int bound = i % 4 != 3 ? 16 : (c.flags & squish::kDxt1) ? 0 : (c.flags & squish::kDxt3) ? 9 : 5;
        ASSERT_LE(std::abs(int(rgba[i]) - int(source[i])), bound) << "byte " << i;
      }
      EXPECT_EQ(t.image.alpha, (c.flags & squish::kDxt1) ? AlphaMode::Mask : AlphaMode::Blend);
    }
  }
}

TEST(RenderwareTxd, AlphaModeIsJudgedFromThePixels) {
  auto alphaOf = [](std::vector<uint8_t> alphas) {
    TxdRaster r;
    r.width = static_cast<uint16_t>(alphas.size());
    std::vector<uint8_t> level;
    for (uint8_t a : alphas) level.insert(level.end(), {10, 20, 30, a});
    r.levels = {level};
    auto asset = read(test::writeTxd({r}));
    EXPECT_TRUE(asset.ok());
    return asset.ok() ? asset->textures.at(0).image.alpha : AlphaMode::Opaque;
  };
  EXPECT_EQ(alphaOf({255, 255}), AlphaMode::Opaque);
  EXPECT_EQ(alphaOf({255, 0}), AlphaMode::Mask);
  EXPECT_EQ(alphaOf({255, 128}), AlphaMode::Blend);
}

TEST(RenderwareTxd, FilterAndAddressingBecomeTheSampler) {
  TxdRaster r;
  r.levels = {{1, 2, 3, 4}};
  r.filterAddressing = 0x3204;  // MIPLINEAR (nearest texel, linear between mips), U mirror, V clamp
  auto asset = read(test::writeTxd({r}));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  const Sampler& s = asset->textures.at(0).sampler;
  EXPECT_EQ(s.magnify, TextureFilter::Nearest);
  EXPECT_EQ(s.minify, TextureFilter::Nearest);
  EXPECT_EQ(s.mip, MipFilter::Linear);
  EXPECT_EQ(s.wrapU, TextureWrap::Mirror);
  EXPECT_EQ(s.wrapV, TextureWrap::Clamp);
}

TEST(RenderwareTxd, ConsoleRastersAreUnsupportedNamingThePlatform) {
  for (const auto& [platform, name] : {std::pair<uint32_t, const char*>{0x00325350, "PS2"}, {5, "Xbox"}, {6, "GameCube"}}) {
    TxdRaster r;
    r.platform = platform;
    r.levels = {{1, 2, 3, 4}};
    const Error e = readError(test::writeTxd({r}));
    EXPECT_EQ(e.code, ErrorCode::Unsupported);
    EXPECT_NE(e.message.find(name), std::string::npos) << e.describe();
    EXPECT_NE(e.path.find("platform"), std::string::npos) << e.describe();
  }
}

// Each forged size must be refused before anything is allocated, naming the field it came from.
TEST(RenderwareTxd, ForgedSizesAreRefusedNamingTheField) {
  TxdRaster wide;
  wide.width = 0xFFFF;
  wide.height = 0xFFFF;
  wide.levels = {{1, 2, 3, 4}};
  Error e = readError(test::writeTxd({wide}));
  EXPECT_EQ(e.code, ErrorCode::TooLarge);
  EXPECT_NE(e.path.find("width x height"), std::string::npos) << e.describe();

  TxdRaster levels = losslessRaster(kLossless[0], kD3d9, 3);
  levels.numLevels = 9;  // an 8x4 raster halves to 1x1 in 4
  e = readError(test::writeTxd({levels}));
  EXPECT_EQ(e.code, ErrorCode::TooLarge);
  EXPECT_NE(e.path.find("numLevels"), std::string::npos) << e.describe();

  TxdRaster missingLevels = losslessRaster(kLossless[0], kD3d9, 3);
  missingLevels.numLevels = 4;
  missingLevels.levels.resize(2);  // says 4 levels, holds 2
  e = readError(test::writeTxd({missingLevels}));
  EXPECT_EQ(e.code, ErrorCode::TooLarge);
  EXPECT_NE(e.path.find("numLevels"), std::string::npos) << e.describe();

  TxdRaster palette;
  palette.rasterFormat = 0x2500;  // PAL8 with no palette and no level stored
  palette.levels.clear();
  palette.numLevels = 1;
  e = readError(test::writeTxd({palette}));
  EXPECT_EQ(e.code, ErrorCode::TooLarge);
  EXPECT_NE(e.path.find("palette"), std::string::npos) << e.describe();

  std::vector<uint8_t> count = test::writeTxd({wide});
  count[12 + 12] = 0xFF;  // numTextures, the Struct's first u16
  count[12 + 13] = 0x7F;
  e = readError(count);
  EXPECT_EQ(e.code, ErrorCode::TooLarge);
  EXPECT_NE(e.path.find("numTextures"), std::string::npos) << e.describe();
}

TEST(RenderwareTxd, MemoryBudgetRefusesTheDecodedPixels) {
  TxdRaster big;
  big.width = 256;
  big.height = 256;
  big.levels = {std::vector<uint8_t>(256 * 256 * 4, 7)};
  const Error e = readError(test::writeTxd({big}), 128 * 1024);  // the decoded level alone is 256 KiB
  EXPECT_EQ(e.code, ErrorCode::TooLarge);
  EXPECT_NE(e.path.find("level[0]"), std::string::npos) << e.describe();
}

TEST(RenderwareTxd, ADamagedTextureIsSkippedWithAWarningNamingIt) {
  TxdRaster bad = losslessRaster(kLossless[7], kD3d8, 5);  // PAL4: 32 palette entries
  bad.levels[0][3] = 40;
  const TxdRaster good = losslessRaster(kLossless[0], kD3d8, 6);
  auto asset = read(test::writeTxd({bad, good}));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->textures.size(), 1u);
  EXPECT_EQ(asset->textures[0].name, good.name);
  ASSERT_EQ(asset->provenance.warnings.size(), 1u);
  EXPECT_EQ(asset->provenance.warnings[0].code, "texture-skipped");
  EXPECT_NE(asset->provenance.warnings[0].message.find("index[3]"), std::string::npos) << asset->provenance.warnings[0].message;
}

TEST(RenderwareTxd, EveryTruncationIsAnErrorOrAShorterRead) {
  const std::vector<uint8_t> whole = test::writeTxd({losslessRaster(kLossless[6], kD3d9, 8), losslessRaster(kLossless[2], kD3d8, 9)});
  for (size_t n = 0; n < whole.size(); ++n) {
    const std::vector<uint8_t> prefix(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n));
    auto asset = read(prefix);
    if (asset.ok()) EXPECT_LT(asset->textures.size(), 2u) << n;
    else EXPECT_FALSE(asset.error().message.empty());
  }
}

TEST(RenderwareTxd, ListNamesEveryTextureWithoutDecoding) {
  ReadContext ctx;
  auto items = renderware::listTxd(test::writeTxd({losslessRaster(kLossless[0], kD3d9, 1), losslessRaster(kLossless[3], kD3d8, 2)}), ctx);
  ASSERT_TRUE(items.ok()) << items.error().describe();
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[0].name, "tex_8888");
  EXPECT_EQ((*items)[1].name, "tex_565");
  EXPECT_EQ((*items)[1].kind, "texture");
}

// The fuzz target's seed (tests/data/fuzz/renderware_txd/seed.txd) is this writer's output: one
// texture in each format and platform's layout that fuzzing should start from.
TEST(RenderwareTxd, FuzzSeedIsTheWritersOutput) {
  std::vector<TxdRaster> rasters;
  uint32_t seed = 40;
  for (const Lossless& f : kLossless) {
    rasters.push_back(losslessRaster(f, seed % 2 ? kD3d8 : kD3d9, seed));
    ++seed;
  }
  TxdRaster dxt;
  dxt.name = "dxt1";
  dxt.rasterFormat = 0x0100;
  dxt.alphaOrD3dFormat = 0x31545844;
  dxt.compressionOrFlags = 8;
  dxt.width = 4;
  dxt.height = 4;
  dxt.levels = {squishEncode(dxtSource(squish::kDxt1), 4, 4, squish::kDxt1)};
  rasters.push_back(dxt);
  const std::vector<uint8_t> written = test::writeTxd(rasters);
  test::expectKeptSeed("renderware_txd/seed.txd", written);
  auto asset = read(written);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  EXPECT_EQ(asset->textures.size(), rasters.size());
}
