#include <fmt/format.h>

#include "core/rig.hpp"
#include "formats/sluggers/model_layout.hpp"
#include "formats/sluggers/section.hpp"
#include "formats/sluggers/tex.hpp"
#include "image/alpha.hpp"
#include "image/gx_decode.hpp"

namespace rigport::sluggers {
namespace {

using image::GxFormat;
using image::GxPalette;

constexpr const char* kTex = "TEX";

struct Descriptor {
  uint32_t image = 0, palette = 0;
  uint16_t height = 0, width = 0;
  uint8_t format = 0;
  uint16_t paletteEntries = 0;
  uint8_t paletteFormat = 0;
};

Result<Descriptor> readDescriptor(ByteReader& r, size_t at) {
  Descriptor d;
  RP_CHECK(r.seek(at + kTexImage, "image"));
  RP_ASSIGN(d.image, r.u32("image"));
  RP_ASSIGN(d.palette, r.u32("palette"));
  RP_ASSIGN(d.height, r.u16("height"));
  RP_ASSIGN(d.width, r.u16("width"));
  RP_CHECK(r.seek(at + kTexFormat, "format"));
  RP_ASSIGN(d.format, r.u8("format"));
  RP_ASSIGN(d.paletteEntries, r.u16("paletteEntries"));
  RP_ASSIGN(d.paletteFormat, r.u8("paletteFormat"));
  return d;
}

// Damage in a descriptor's own values costs that texture; a pointer or size beyond the section, or
// beyond the budget, refuses the block.
bool refusesBlock(const Error& e) { return e.code == ErrorCode::TooLarge || e.code == ErrorCode::Truncated; }

// A payload that leaves the section is a forged size or pointer: it refuses the block (TooLarge).
Result<size_t> forged(Result<size_t> at) {
  if (at) return at;
  Error e = at.error();
  e.code = ErrorCode::TooLarge;
  return e;
}

Result<Texture> readTexture(ByteReader& r, size_t at, size_t index) {
  RP_ASSIGN(const Descriptor d, readDescriptor(r, at));
  if (!image::isGxFormat(d.format)) {
    return r.errorAt(at + kTexFormat, ErrorCode::Unsupported, fmt::format("GX texture format 0x{:X} is not one of GX's", d.format), "format");
  }
  const auto format = static_cast<GxFormat>(d.format);
  if (d.width == 0 || d.height == 0) return r.errorAt(at + kTexHeight, ErrorCode::BadValue, fmt::format("a {}x{} texture", d.width, d.height), "height");
  std::span<const uint8_t> palette;
  if (image::isGxPalettised(format)) {
    if (d.paletteFormat > static_cast<uint8_t>(GxPalette::RGB5A3)) {
      return r.errorAt(at + kTexPaletteFormat, ErrorCode::Unsupported, fmt::format("palette format {} is none of IA8, RGB565, RGB5A3", d.paletteFormat),
                       "paletteFormat");
    }
    if (d.palette == 0) return r.errorAt(at + kTexPalette, ErrorCode::BadValue, fmt::format("a {} texture without a palette", image::gxFormatName(format)), "palette");
    RP_CHECK(r.seek(at + kTexPalette + 4, "palette"));
    RP_ASSIGN(const size_t paletteAt, forged(follow(r, d.palette, 0, uint64_t{d.paletteEntries} * 2, "palette", kTex)));
    RP_ASSIGN(ByteReader p, r.window(paletteAt, size_t{d.paletteEntries} * 2, "palette"));
    RP_ASSIGN(palette, p.bytes(size_t{d.paletteEntries} * 2, "paletteEntries"));
  }
  const uint64_t bytes = image::gxLevelBytes(format, d.width, d.height);
  RP_CHECK(r.seek(at + kTexImage + 4, "image"));
  RP_ASSIGN(const size_t imageAt, forged(follow(r, d.image, 0, bytes, "image", kTex)));
  RP_ASSIGN(ByteReader pixels, r.window(imageAt, static_cast<size_t>(bytes), "image"));
  Texture t;
  t.name = fmt::format("texture{}", index);
  t.pixelFormat = image::gxFormatName(format);
  RP_ASSIGN(t.image.levels.emplace_back(),
            image::decodeGxLevel(pixels, format, d.width, d.height, palette, static_cast<GxPalette>(d.paletteFormat), "pixels"));
  t.image.alpha = image::judgeAlpha(t.image.levels.front());
  return t;
}

TextureWrap wrapOf(uint32_t gx) { return gx == 0 ? TextureWrap::Clamp : gx == 2 ? TextureWrap::Mirror : TextureWrap::Repeat; }

}  // namespace

Result<std::vector<Texture>> readTex(ByteReader& r, Provenance& provenance) {
  RP_CHECK(r.seek(0, "textureCount"));
  RP_ASSIGN(const uint16_t textureCount, r.u16("textureCount"));
  RP_CHECK(r.skip(2, "clutCount"));
  RP_ASSIGN(const size_t count, r.count(textureCount, kTexDescriptorSize, "textureCount"));
  std::vector<Texture> textures;
  for (size_t i = 0; i < count; ++i) {
    auto scope = r.scope(Field("descriptor", static_cast<int64_t>(i)));
    auto texture = readTexture(r, kTexHeaderSize + i * kTexDescriptorSize, i);
    if (!texture && refusesBlock(texture.error())) return texture.error();
    if (!texture) {
      provenance.warn("sluggers-texture", fmt::format("texture {} is not read: {}", i, texture.error().describe()));
      Texture missing;  // keeps the indices the binds use; binds to it stay untextured
      missing.name = fmt::format("texture{}", i);
      textures.push_back(std::move(missing));
      continue;
    }
    textures.push_back(std::move(*texture));
  }
  return textures;
}

Sampler bindSampler(uint32_t setting) {
  Sampler s;
  s.wrapU = wrapOf((setting >> 16) & 0xF);
  s.wrapV = wrapOf((setting >> 20) & 0xF);
  const uint32_t minFilter = (setting >> 24) & 0xF, magFilter = (setting >> 28) & 0xF;
  s.magnify = magFilter == 0 ? TextureFilter::Nearest : TextureFilter::Linear;
  // GX_NEAR 0, GX_LINEAR 1, GX_NEAR_MIP_NEAR 2, GX_LIN_MIP_NEAR 3, GX_NEAR_MIP_LIN 4, GX_LIN_MIP_LIN 5.
  s.minify = minFilter == 0 || minFilter == 2 || minFilter == 4 ? TextureFilter::Nearest : TextureFilter::Linear;
  s.mip = minFilter == 2 || minFilter == 3 ? MipFilter::Nearest : minFilter >= 4 && minFilter <= 5 ? MipFilter::Linear : MipFilter::None;
  return s;
}

}  // namespace rigport::sluggers
