// The DDS reader (dds_layout.hpp): one 2D texture with its mip levels, through the image room.
// A header that lies about its own size, or sizes the remaining bytes or the memory budget cannot
// hold, refuses the file naming the field; DX10 headers, cube maps and volumes are `unsupported`.
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "formats/battleforge/battleforge.hpp"
#include "formats/battleforge/dds_layout.hpp"
#include "image/alpha.hpp"
#include "image/decode.hpp"

namespace rigport::battleforge {
namespace {

using image::PixelLayout;

struct DdsShape {
  PixelLayout layout = PixelLayout::B8G8R8A8;
  const char* name = "";
};

Result<DdsPixelFormat> readPixelFormat(ByteReader& r) {
  auto scope = r.scope("ddspf");
  DdsPixelFormat f;
  RP_ASSIGN(f.size, r.u32("dwSize"));
  if (f.size != kDdsPixelFormatSize) {
    return r.errorAt(kAtPixelFormat, ErrorCode::BadValue, fmt::format("DDS_PIXELFORMAT says it is {} bytes; it is {}", f.size, kDdsPixelFormatSize), "dwSize");
  }
  RP_ASSIGN(f.flags, r.u32("dwFlags"));
  RP_ASSIGN(f.fourCc, r.u32("dwFourCC"));
  RP_ASSIGN(f.rgbBitCount, r.u32("dwRGBBitCount"));
  RP_ASSIGN(f.rMask, r.u32("dwRBitMask"));
  RP_ASSIGN(f.gMask, r.u32("dwGBitMask"));
  RP_ASSIGN(f.bMask, r.u32("dwBBitMask"));
  RP_ASSIGN(f.aMask, r.u32("dwABitMask"));
  return f;
}

Result<DdsHeader> readHeader(ByteReader& r) {
  RP_ASSIGN(const uint32_t magic, r.u32("magic"));
  if (magic != kDdsMagic) return r.errorAt(0, ErrorCode::BadValue, fmt::format("magic 0x{:08X} is not \"DDS \"", magic), "magic");
  DdsHeader h;
  RP_ASSIGN(h.size, r.u32("dwSize"));
  if (h.size != kDdsHeaderSize) {
    return r.errorAt(kAtSize, ErrorCode::BadValue, fmt::format("DDS_HEADER says it is {} bytes; it is {}", h.size, kDdsHeaderSize), "dwSize");
  }
  RP_ASSIGN(h.flags, r.u32("dwFlags"));
  RP_ASSIGN(h.height, r.u32("dwHeight"));
  RP_ASSIGN(h.width, r.u32("dwWidth"));
  RP_ASSIGN(h.pitchOrLinearSize, r.u32("dwPitchOrLinearSize"));
  RP_ASSIGN(h.depth, r.u32("dwDepth"));
  RP_ASSIGN(h.mipMapCount, r.u32("dwMipMapCount"));
  RP_CHECK(r.skip(44, "dwReserved1"));
  RP_ASSIGN(h.pixelFormat, readPixelFormat(r));
  RP_ASSIGN(h.caps, r.u32("dwCaps"));
  RP_ASSIGN(h.caps2, r.u32("dwCaps2"));
  RP_CHECK(r.skip(12, "dwCaps3..dwReserved2"));
  return h;
}

Result<DdsShape> compressedShape(const DdsPixelFormat& f, const ByteReader& r) {
  switch (f.fourCc) {
    case kFourCcDxt1: return DdsShape{PixelLayout::Dxt1, "DXT1"};
    case kFourCcDxt3: return DdsShape{PixelLayout::Dxt3, "DXT3"};
    case kFourCcDxt5: return DdsShape{PixelLayout::Dxt5, "DXT5"};
    default:
      return r.errorAt(kAtFourCc, ErrorCode::Unsupported, fmt::format("FourCC '{}' (0x{:08X}) is not read; DXT1, DXT3 and DXT5 are (DX10 "
                                                                       "headers, DXT2/4 and BC4-7 are not)", image::fourCcText(f.fourCc), f.fourCc),
                       "ddspf/dwFourCC");
  }
}

// Uncompressed: the bit count and masks name one of Direct3D's layouts.
Result<DdsShape> uncompressedShape(const DdsPixelFormat& f, const ByteReader& r) {
  const bool alpha = (f.flags & kDdpfAlphaPixels) != 0;
  const uint32_t a = alpha ? f.aMask : 0;
  if ((f.flags & kDdpfLuminance) != 0 && f.rgbBitCount == 8 && f.rMask == 0xFF && a == 0) return DdsShape{PixelLayout::L8, "L8"};
  if ((f.flags & kDdpfRgb) != 0) {
    const auto masks = [&](uint32_t rm, uint32_t gm, uint32_t bm, uint32_t am) { return f.rMask == rm && f.gMask == gm && f.bMask == bm && a == am; };
    if (f.rgbBitCount == 32 && masks(0xFF0000, 0xFF00, 0xFF, 0xFF000000)) return DdsShape{PixelLayout::B8G8R8A8, "A8R8G8B8"};
    if (f.rgbBitCount == 32 && masks(0xFF0000, 0xFF00, 0xFF, 0)) return DdsShape{PixelLayout::B8G8R8X8, "X8R8G8B8"};
    if (f.rgbBitCount == 32 && masks(0xFF, 0xFF00, 0xFF0000, 0xFF000000)) return DdsShape{PixelLayout::R8G8B8A8, "A8B8G8R8"};
    if (f.rgbBitCount == 32 && masks(0xFF, 0xFF00, 0xFF0000, 0)) return DdsShape{PixelLayout::R8G8B8X8, "X8B8G8R8"};
    if (f.rgbBitCount == 24 && masks(0xFF0000, 0xFF00, 0xFF, 0)) return DdsShape{PixelLayout::B8G8R8, "R8G8B8"};
    if (f.rgbBitCount == 16 && masks(0xF800, 0x7E0, 0x1F, 0)) return DdsShape{PixelLayout::R5G6B5, "R5G6B5"};
    if (f.rgbBitCount == 16 && masks(0x7C00, 0x3E0, 0x1F, 0x8000)) return DdsShape{PixelLayout::A1R5G5B5, "A1R5G5B5"};
    if (f.rgbBitCount == 16 && masks(0xF00, 0xF0, 0xF, 0xF000)) return DdsShape{PixelLayout::A4R4G4B4, "A4R4G4B4"};
  }
  return r.errorAt(kAtPixelFormat, ErrorCode::Unsupported,
                   fmt::format("pixel format flags 0x{:X}, {} bits, masks R 0x{:X} G 0x{:X} B 0x{:X} A 0x{:X} is not read (DXT1/3/5, "
                               "A8R8G8B8, X8R8G8B8, A8B8G8R8, X8B8G8R8, R8G8B8, R5G6B5, A1R5G5B5, A4R4G4B4 and L8 are)",
                               f.flags, f.rgbBitCount, f.rMask, f.gMask, f.bMask, a),
                   "ddspf");
}

Result<DdsShape> ddsShape(const DdsHeader& h, const ByteReader& r) {
  if ((h.caps2 & (kDdsCaps2CubeMap | kDdsCaps2Volume)) != 0) {
    return r.errorAt(kAtCaps2, ErrorCode::Unsupported, "cube maps and volume textures are not read (one 2D image is)", "dwCaps2");
  }
  return (h.pixelFormat.flags & kDdpfFourCc) != 0 ? compressedShape(h.pixelFormat, r) : uncompressedShape(h.pixelFormat, r);
}

uint32_t levelSide(uint32_t side, uint32_t level) { return std::max(1u, side >> level); }

// The levels the header gives: dwMipMapCount when DDSD_MIPMAPCOUNT says it is valid (0 means 1).
uint32_t levelCount(const DdsHeader& h) { return (h.flags & kDdsdMipMapCount) != 0 ? std::max(1u, h.mipMapCount) : 1; }

// Every size is checked before anything is decoded or allocated: the sides the image room takes,
// the levels halving allows, and the bytes they take against what the file holds.
Status checkLevels(const DdsHeader& h, const DdsShape& shape, const ByteReader& r) {
  constexpr uint32_t kMaxSide = 1u << 16;  // image::levelBytes' bound
  if (h.width == 0 || h.width > kMaxSide) return r.errorAt(kAtWidth, h.width == 0 ? ErrorCode::BadValue : ErrorCode::TooLarge, fmt::format("a width of {}; 1 to {} are read", h.width, kMaxSide), "dwWidth");
  if (h.height == 0 || h.height > kMaxSide) return r.errorAt(kAtHeight, h.height == 0 ? ErrorCode::BadValue : ErrorCode::TooLarge, fmt::format("a height of {}; 1 to {} are read", h.height, kMaxSide), "dwHeight");
  const uint32_t levels = levelCount(h);
  const uint32_t possible = static_cast<uint32_t>(std::bit_width(std::max(h.width, h.height)));
  if (levels > possible) {
    return r.errorAt(kAtMipMapCount, ErrorCode::TooLarge, fmt::format("{} mip levels; a {}x{} texture has 1 to {}", levels, h.width, h.height, possible), "dwMipMapCount");
  }
  const uint64_t first = image::levelBytes(shape.layout, h.width, h.height);
  if (first > r.remaining()) {
    return r.error(ErrorCode::TooLarge, fmt::format("a {}x{} {} level takes {} bytes; {} remain", h.width, h.height, shape.name, first, r.remaining()),
                   "dwWidth x dwHeight");
  }
  uint64_t all = 0;
  for (uint32_t i = 0; i < levels; ++i) all += image::levelBytes(shape.layout, levelSide(h.width, i), levelSide(h.height, i));
  if (all > r.remaining()) {
    return r.error(ErrorCode::TooLarge, fmt::format("{} levels of a {}x{} {} texture take {} bytes; {} remain", levels, h.width, h.height, shape.name, all, r.remaining()),
                   "dwMipMapCount");
  }
  return Ok{};
}

}  // namespace

bool probeDds(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8) return false;
  ByteReader r(bytes);
  auto magic = r.u32("magic");
  auto size = r.u32("dwSize");
  return magic && size && *magic == kDdsMagic && *size == kDdsHeaderSize;
}

Result<Asset> readDds(std::span<const uint8_t> bytes, ReadContext& ctx) {
  ByteReader r = ctx.reader(bytes);
  RP_ASSIGN(const DdsHeader h, readHeader(r));
  RP_ASSIGN(const DdsShape shape, ddsShape(h, r));
  RP_CHECK(checkLevels(h, shape, r));
  Texture t;
  t.pixelFormat = shape.name;
  t.sampler.mip = levelCount(h) > 1 ? MipFilter::Linear : MipFilter::None;
  for (uint32_t i = 0; i < levelCount(h); ++i) {
    RP_ASSIGN(t.image.levels.emplace_back(), image::decodeLevel(r, shape.layout, levelSide(h.width, i), levelSide(h.height, i), {},
                                                               Field("level", i)));
  }
  t.image.alpha = image::judgeAlpha(t.image.levels.front());
  Asset asset;
  asset.provenance.format = "dds";
  asset.textures.push_back(std::move(t));
  return asset;
}

Result<std::vector<ItemInfo>> listDds(std::span<const uint8_t> bytes, ReadContext& ctx) {
  ByteReader r = ctx.reader(bytes);
  RP_CHECK(readHeader(r));
  return std::vector<ItemInfo>{ItemInfo{"0", "texture", "", bytes.size()}};
}

}  // namespace rigport::battleforge
