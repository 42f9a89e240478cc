// The PNG writer (src/image/png.cpp): every setting it takes writes a PNG that libpng's own reader
// decodes to exactly the pixels given; encoding several images on threads gives the bytes of
// encoding them in turn; and a .glb's images do not depend on how many threads encoded them.
#include <gtest/gtest.h>
#include <png.h>

#include <cstring>
#include <functional>
#include <set>
#include <random>

#include <nlohmann/json.hpp>

#include "export/gltf.hpp"
#include "image/png.hpp"
#include "support/png_decode.hpp"
#include "support/quad_rig.hpp"

namespace rigport {
namespace {

using image::PngSettings;
using image::PngStrategy;

// Smooth shading, flat 4x4 blocks (a DXT texture's kind of picture), random noise and random
// alpha in one image, so that every filter and deflate mode has something to do.
ImageLevel mixedPicture(uint32_t width, uint32_t height, uint32_t seed, bool opaque = false) {
  std::mt19937 rng(seed);
  ImageLevel level{width, height, std::vector<uint8_t>(size_t{width} * height * 4)};
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      uint8_t* p = level.rgba.data() + 4 * (size_t{y} * width + x);
      const uint32_t region = (x * 3 / std::max(1u, width)) + 3 * (y * 2 / std::max(1u, height));
      const uint32_t block = (x / 4) * 31 + (y / 4) * 17;
      for (int c = 0; c < 4; ++c) {
        p[c] = region % 3 == 0   ? static_cast<uint8_t>(x + y * c)
               : region % 3 == 1 ? static_cast<uint8_t>(block * (c + 3))
                                 : static_cast<uint8_t>(rng());
      }
      if (opaque) p[3] = 255;
    }
  }
  return level;
}

// The quad rig whose material shows texture t0, carrying textures t0 .. t(count-1) of the given
// pictures (more images than materials: every texture of a rig is exported).
Rig quadWithTextures(uint32_t count, const std::function<ImageLevel(uint32_t)>& picture) {
  Material m;
  m.name = "quad";
  m.textures = {"t0"};
  m.baseColorTexture = 0;
  Rig rig = test::quadRig(m, true);
  for (uint32_t i = 0; i < count; ++i) {
    Texture t;
    t.name = "t" + std::to_string(i);
    t.image.levels.push_back(picture(i));
    rig.textures.push_back(std::move(t));
  }
  return rig;
}

std::vector<PngSettings> everySetting() {
  std::vector<PngSettings> all;
  const uint8_t filterSets[] = {image::kAllFilters, image::kFilterNone, image::kFilterSub, image::kFilterUp, image::kFilterAverage,
                                image::kFilterPaeth, image::kFilterSub | image::kFilterUp | image::kFilterPaeth};
  for (int level = 0; level <= 9; ++level)
    for (const PngStrategy strategy : {PngStrategy::Default, PngStrategy::Filtered, PngStrategy::HuffmanOnly, PngStrategy::Rle})
      for (const uint8_t filters : filterSets) {
        all.push_back(PngSettings{level, strategy, filters, level % 2 == 0 ? 8 : 9});
        all.back().rgbWhenOpaque = filters % 3 == 0;
      }
  all.push_back(PngSettings{3, PngStrategy::Default, image::kAllFilters, 1});
  return all;
}

TEST(PngEncode, EverySettingDecodesToThePixelsGiven) {
  const ImageLevel pictures[] = {mixedPicture(1, 1, 1), mixedPicture(13, 7, 2), mixedPicture(67, 45, 3), mixedPicture(1, 1, 1, true),
                                 mixedPicture(67, 45, 3, true)};
  for (const PngSettings& s : everySetting()) {
    for (const ImageLevel& level : pictures) {
      SCOPED_TRACE(testing::Message() << "level " << s.level << " strategy " << int(s.strategy) << " filters 0x" << std::hex << int(s.filters)
                                      << std::dec << " memLevel " << s.memLevel << ", " << level.width << "x" << level.height);
      auto png = image::encodePng(level, s);
      ASSERT_TRUE(png.ok()) << png.error().describe();
      uint32_t width = 0, height = 0;
      EXPECT_EQ(test::decodePng(*png, &width, &height), level.rgba);
      EXPECT_EQ(width, level.width);
      EXPECT_EQ(height, level.height);
    }
  }
}

// The IHDR's colour type (byte 25 of the file): 2 RGB, 6 RGBA.
TEST(PngEncode, AnOpaqueLevelIsRgbOnlyWhenAskedAndOnlyWhenEveryAlphaIs255) {
  const PngSettings rgb;  // the default asks
  PngSettings rgba;
  rgba.rgbWhenOpaque = false;
  ImageLevel opaque = mixedPicture(20, 10, 7, true);
  EXPECT_EQ(image::encodePng(opaque, rgb)->at(25), 2);
  EXPECT_EQ(image::encodePng(opaque, rgba)->at(25), 6);
  opaque.rgba[opaque.rgba.size() - 1] = 254;  // the last pixel's alpha
  auto almost = image::encodePng(opaque, rgb);
  EXPECT_EQ(almost->at(25), 6);
  EXPECT_EQ(test::decodePng(*almost), opaque.rgba);
}

TEST(PngEncode, TheDefaultDecodesALargePictureToItsPixels) {
  const ImageLevel level = mixedPicture(515, 260, 4);
  auto png = image::encodePng(level);
  ASSERT_TRUE(png.ok()) << png.error().describe();
  EXPECT_EQ(test::decodePng(*png), level.rgba);
}

// Level 6, Z_FILTERED, all filters is what libpng's simplified writer does (what rigport wrote
// before it had settings): the same bytes, so the settings reach libpng as they say.
TEST(PngEncode, LibpngsOwnDefaultsWriteWhatItsSimplifiedWriterWrites) {
  const ImageLevel level = mixedPicture(67, 45, 5);
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = level.width;
  image.height = level.height;
  image.format = PNG_FORMAT_RGBA;
  std::vector<uint8_t> simplified(PNG_IMAGE_PNG_SIZE_MAX(image));
  png_alloc_size_t size = simplified.size();
  ASSERT_NE(png_image_write_to_memory(&image, simplified.data(), &size, 0, level.rgba.data(), 0, nullptr), 0) << image.message;
  simplified.resize(size);
  auto png = image::encodePng(level, PngSettings{6, PngStrategy::Filtered, image::kAllFilters, 8, false});
  ASSERT_TRUE(png.ok()) << png.error().describe();
  EXPECT_EQ(*png, simplified);
  auto other = image::encodePng(level, PngSettings{1, PngStrategy::Default, image::kAllFilters, 8, false});
  ASSERT_TRUE(other.ok());
  EXPECT_NE(*other, simplified) << "another level writes other bytes";
}

TEST(PngEncode, SettingsOutOfRangeAndEmptyImagesAreRefused) {
  const ImageLevel level = mixedPicture(4, 4, 6);
  for (const PngSettings& s : {PngSettings{10}, PngSettings{-1}, PngSettings{6, PngStrategy::Default, 0}, PngSettings{6, PngStrategy::Default, 0x07},
                               PngSettings{6, PngStrategy::Default, image::kAllFilters, 0}, PngSettings{6, PngStrategy::Default, image::kAllFilters, 10}}) {
    auto png = image::encodePng(level, s);
    ASSERT_FALSE(png.ok());
    EXPECT_NE(png.error().message.find("PNG settings out of range"), std::string::npos) << png.error().describe();
  }
  auto empty = image::encodePng(ImageLevel{0, 4, {}});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("0x4"), std::string::npos) << empty.error().describe();
}

TEST(PngEncode, ThreadsGiveTheBytesOfEncodingInTurn) {
  std::vector<ImageLevel> levels;
  for (uint32_t i = 0; i < 7; ++i) levels.push_back(mixedPicture(16 + 40 * i, 9 + 23 * (6 - i), 10 + i));
  levels.push_back(ImageLevel{3, 3, {}});  // refused, at its own index
  std::vector<const ImageLevel*> pointers;
  for (const ImageLevel& l : levels) pointers.push_back(&l);
  for (const PngSettings& s : {PngSettings{}, PngSettings{9, PngStrategy::Filtered, image::kAllFilters}}) {
    std::vector<std::vector<uint8_t>> inTurn;
    for (size_t i = 0; i + 1 < levels.size(); ++i) inTurn.push_back(*image::encodePng(levels[i], s));
    for (const unsigned threads : {0u, 1u, 2u, 3u, 16u}) {
      SCOPED_TRACE(testing::Message() << threads << " threads, level " << s.level);
      const auto pngs = image::encodePngs(pointers, s, threads);
      ASSERT_EQ(pngs.size(), levels.size());
      for (size_t i = 0; i + 1 < levels.size(); ++i) {
        ASSERT_TRUE(pngs[i].ok()) << pngs[i].error().describe();
        EXPECT_EQ(*pngs[i], inTurn[i]) << "image " << i;
      }
      ASSERT_FALSE(pngs.back().ok());
      EXPECT_NE(pngs.back().error().message.find("3x3 image with 0 bytes"), std::string::npos) << pngs.back().error().describe();
    }
  }
  EXPECT_TRUE(image::encodePngs({}, PngSettings{}, 4).empty());
}

TEST(PngEncode, AGlbIsTheSameWhateverTheThreadsItsImagesWereEncodedOn) {
  const Rig rig = quadWithTextures(5, [](uint32_t i) { return mixedPicture(64 + 32 * i, 96 - 16 * i, 20 + i); });
  GltfOptions one;
  auto sequential = exportGlb(rig, one);
  ASSERT_TRUE(sequential.ok()) << sequential.error().describe();
  for (const unsigned threads : {2u, 3u, 8u}) {
    GltfOptions many;
    many.imageThreads = threads;
    auto concurrent = exportGlb(rig, many);
    ASSERT_TRUE(concurrent.ok()) << concurrent.error().describe();
    EXPECT_EQ(*concurrent, *sequential) << threads << " threads";
  }
}

// A .glb's JSON chunk and binary chunk (glTF 2.0 §4.4: 12-byte header, then length + type + data).
std::pair<nlohmann::json, std::vector<uint8_t>> glbChunks(const std::vector<uint8_t>& glb) {
  auto u32 = [&](size_t at) {
    uint32_t v = 0;
    std::memcpy(&v, glb.data() + at, 4);
    return v;
  };
  const uint32_t jsonLength = u32(12);
  nlohmann::json json = nlohmann::json::parse(glb.begin() + 20, glb.begin() + 20 + jsonLength);
  const size_t bin = 20 + jsonLength;
  return {json, std::vector<uint8_t>(glb.begin() + static_cast<std::ptrdiff_t>(bin + 8), glb.begin() + static_cast<std::ptrdiff_t>(bin + 8 + u32(bin)))};
}

// The PNG settings change the images' bytes only: the JSON is the same but for the offsets and
// lengths that follow from the PNGs' sizes, and every other bufferView holds the same bytes.
TEST(PngEncode, SettingsChangeAGlbsImagesAndNothingElse) {
  const Rig rig = quadWithTextures(3, [](uint32_t i) { return mixedPicture(64 + 32 * i, 48, 30 + i, i != 1); });
  GltfOptions libpngs;
  libpngs.png = PngSettings{6, PngStrategy::Filtered, image::kAllFilters, 8, false};
  auto before = exportGlb(rig, libpngs);
  auto after = exportGlb(rig, GltfOptions{});
  ASSERT_TRUE(before.ok() && after.ok());
  ASSERT_NE(*before, *after) << "the settings differ, so must the PNGs";
  auto [jsonBefore, binBefore] = glbChunks(*before);
  auto [jsonAfter, binAfter] = glbChunks(*after);
  std::set<size_t> images;
  for (const auto& image : jsonAfter["images"]) images.insert(image["bufferView"].get<size_t>());
  ASSERT_EQ(images.size(), 3u);
  const auto& viewsBefore = jsonBefore["bufferViews"];
  const auto& viewsAfter = jsonAfter["bufferViews"];
  ASSERT_EQ(viewsBefore.size(), viewsAfter.size());
  for (size_t v = 0; v < viewsAfter.size(); ++v) {
    if (images.count(v) != 0) continue;
    auto bytes = [](const nlohmann::json& view, const std::vector<uint8_t>& bin) {
      const size_t offset = view.value("byteOffset", size_t{0});
      return std::vector<uint8_t>(bin.begin() + static_cast<std::ptrdiff_t>(offset),
                                  bin.begin() + static_cast<std::ptrdiff_t>(offset + view["byteLength"].get<size_t>()));
    };
    EXPECT_EQ(bytes(viewsBefore[v], binBefore), bytes(viewsAfter[v], binAfter)) << "bufferView " << v;
  }
  for (nlohmann::json* json : {&jsonBefore, &jsonAfter}) {
    (*json)["buffers"][0].erase("byteLength");
    for (auto& view : (*json)["bufferViews"]) {
      view.erase("byteOffset");
      view.erase("byteLength");
    }
  }
  EXPECT_EQ(jsonBefore, jsonAfter);
}

}  // namespace
}  // namespace rigport
