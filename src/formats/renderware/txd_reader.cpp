// The texture dictionary reader (txd_layout.hpp): PC D3D8 and D3D9 texture natives to RGBA8 images
// with their mip levels, through the image room. A texture native that is damaged is skipped with a
// `texture-skipped` warning naming it (--strict refuses it); a raster of another platform, and any
// size the remaining bytes or the memory budget cannot hold, refuses the file.
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "formats/renderware/chunk.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/renderware/txd_layout.hpp"
#include "image/alpha.hpp"
#include "image/decode.hpp"

namespace rigport::renderware {
namespace {

using image::PixelLayout;

// Chunk header + Struct header + the 88-byte header: the least a texture native takes.
constexpr size_t kMinTextureNativeBytes = 2 * kChunkHeaderSize + kTextureNativeHeaderBytes;
// Where TextureNativeHeader's fields sit in the Struct, for errors about values read before.
constexpr size_t kAtRasterFormat = 72, kAtD3dFormat = 76, kAtWidth = 80, kAtHeight = 82, kAtNumLevels = 85, kAtFlags = 87;

struct RasterShape {
  PixelLayout layout = PixelLayout::B8G8R8A8;
  const char* formatName = "";
  uint32_t paletteEntries = 0;
  bool paletteOpaque = false;  // a palette over an 888 raster: its fourth bytes are not alpha
};

Result<TextureNativeHeader> readHeader(ByteReader& st) {
  TextureNativeHeader h;
  RP_ASSIGN(h.platform, st.u32("platform"));
  if (h.platform != kTexturePlatformD3d8 && h.platform != kTexturePlatformD3d9) {
    return st.errorAt(st.position() - 4, ErrorCode::Unsupported,
                      fmt::format("{} rasters are not read (only PC D3D8 and D3D9 ones); no {} sample exists to check a "
                                  "decoder against", texturePlatformName(h.platform), texturePlatformName(h.platform)),
                      "platform");
  }
  RP_ASSIGN(h.filterAddressing, st.u32("filterAddressing"));
  RP_ASSIGN(h.name, st.fixedString(32, "name"));
  RP_ASSIGN(h.mask, st.fixedString(32, "mask"));
  RP_ASSIGN(h.rasterFormat, st.u32("rasterFormat"));
  RP_ASSIGN(h.alphaOrD3dFormat, st.u32(h.platform == kTexturePlatformD3d8 ? "hasAlpha" : "d3dFormat"));
  RP_ASSIGN(h.width, st.u16("width"));
  RP_ASSIGN(h.height, st.u16("height"));
  RP_ASSIGN(h.depth, st.u8("depth"));
  RP_ASSIGN(h.numLevels, st.u8("numLevels"));
  RP_ASSIGN(h.rasterType, st.u8("rasterType"));
  RP_ASSIGN(h.compressionOrFlags, st.u8(h.platform == kTexturePlatformD3d8 ? "compression" : "flags"));
  return h;
}

// DXT: D3D8 stores the DXT number, D3D9 the FourCC behind its compressed flag (librw). DXT2 and
// DXT4 (premultiplied alpha) are not read.
Result<RasterShape> compressedShape(const TextureNativeHeader& h, const ByteReader& st) {
  uint32_t dxt = h.compressionOrFlags;
  if (h.platform == kTexturePlatformD3d9) {
    const uint32_t f = h.alphaOrD3dFormat;
    dxt = f == kD3dDxt1 ? 1 : f == kD3dDxt3 ? 3 : f == kD3dDxt5 ? 5 : 0;
    if (dxt == 0) {
      return st.errorAt(kAtD3dFormat, ErrorCode::Unsupported, fmt::format("compressed D3DFORMAT '{}' (0x{:08X}) is not read; DXT1, DXT3 and "
                                                                "DXT5 are", image::fourCcText(f), f), "d3dFormat");
    }
  }
  switch (dxt) {
    case 1: return RasterShape{PixelLayout::Dxt1, "DXT1"};
    case 3: return RasterShape{PixelLayout::Dxt3, "DXT3"};
    case 5: return RasterShape{PixelLayout::Dxt5, "DXT5"};
    default:
      return st.errorAt(kAtFlags, ErrorCode::Unsupported, fmt::format("DXT{} is not read; DXT1, DXT3 and DXT5 are", dxt), "compression");
  }
}

// Uncompressed: the raster format's pixel bits, or, for a D3D9 raster that leaves them 0 (librw's
// custom format), its D3DFORMAT.
Result<RasterShape> uncompressedShape(const TextureNativeHeader& h, const ByteReader& st) {
  uint32_t pixel = h.rasterFormat & kRasterPixelMask;
  if (pixel == 0 && h.platform == kTexturePlatformD3d9) {
    switch (h.alphaOrD3dFormat) {
      case kD3dA8R8G8B8: pixel = kRaster8888; break;
      case kD3dX8R8G8B8: pixel = kRaster888; break;
      case kD3dR5G6B5: pixel = kRaster565; break;
      case kD3dA1R5G5B5: pixel = kRaster1555; break;
      case kD3dA4R4G4B4: pixel = kRaster4444; break;
      case kD3dL8: pixel = kRasterLum8; break;
      default: break;
    }
  }
  if ((h.rasterFormat & (kRasterPal8 | kRasterPal4)) != 0) {
    const bool pal8 = (h.rasterFormat & kRasterPal8) != 0;
    return RasterShape{PixelLayout::P8, pal8 ? "PAL8" : "PAL4", pal8 ? kPal8Entries : kPal4Entries, pixel == kRaster888};
  }
  switch (pixel) {
    case kRaster8888: return RasterShape{PixelLayout::B8G8R8A8, "8888"};
    case kRaster888: return RasterShape{PixelLayout::B8G8R8X8, "888"};
    case kRaster1555: return RasterShape{PixelLayout::A1R5G5B5, "1555"};
    case kRaster565: return RasterShape{PixelLayout::R5G6B5, "565"};
    case kRaster4444: return RasterShape{PixelLayout::A4R4G4B4, "4444"};
    case kRasterLum8: return RasterShape{PixelLayout::L8, "LUM8"};
    default:
      return st.errorAt(kAtRasterFormat, ErrorCode::Unsupported, fmt::format("raster format 0x{:04X} is not read (8888, 888, 1555, 565, 4444, "
                                                                "LUM8, PAL8, PAL4 and DXT1/3/5 are)", h.rasterFormat),
                        "rasterFormat");
  }
}

Result<RasterShape> rasterShape(const TextureNativeHeader& h, const ByteReader& st) {
  if (h.platform == kTexturePlatformD3d9 && (h.compressionOrFlags & kD3d9CubeMap) != 0) {
    return st.errorAt(kAtFlags, ErrorCode::Unsupported, "cube map rasters are not read", "flags");
  }
  const bool compressed = h.platform == kTexturePlatformD3d8 ? h.compressionOrFlags != 0 : (h.compressionOrFlags & kD3d9Compressed) != 0;
  return compressed ? compressedShape(h, st) : uncompressedShape(h, st);
}

uint32_t levelSide(uint32_t side, uint32_t level) { return std::max(1u, side >> level); }

// Every size is checked before anything is read or allocated: the levels the raster's size allows,
// and the bytes they take against what remains of the chunk.
Status checkLevels(const TextureNativeHeader& h, const RasterShape& shape, const ByteReader& st) {
  if (h.width == 0) return st.errorAt(kAtWidth, ErrorCode::BadValue, "a raster of width 0", "width");
  if (h.height == 0) return st.errorAt(kAtHeight, ErrorCode::BadValue, "a raster of height 0", "height");
  const uint32_t possible = static_cast<uint32_t>(std::bit_width(std::max<uint32_t>(h.width, h.height)));
  // More levels than halving can make is a forged count, refused like a size (TooLarge).
  if (h.numLevels == 0 || h.numLevels > possible) {
    return st.errorAt(kAtNumLevels, h.numLevels == 0 ? ErrorCode::BadValue : ErrorCode::TooLarge, fmt::format("{} mip levels; a {}x{} raster has 1 to {}", h.numLevels, h.width, h.height, possible),
                      "numLevels");
  }
  const uint64_t paletteBytes = uint64_t{shape.paletteEntries} * 4;
  if (paletteBytes > st.remaining()) {
    return st.error(ErrorCode::TooLarge, fmt::format("a {} palette of {} entries takes {} bytes; {} remain", shape.formatName,
                                                     shape.paletteEntries, paletteBytes, st.remaining()), "palette");
  }
  const uint64_t first = image::levelBytes(shape.layout, h.width, h.height);
  if (first > st.remaining()) {
    return st.error(ErrorCode::TooLarge, fmt::format("a {}x{} {} level takes {} bytes; {} remain", h.width, h.height, shape.formatName,
                                                     first, st.remaining()), "width x height");
  }
  uint64_t all = paletteBytes;
  for (uint32_t i = 0; i < h.numLevels; ++i) all += 4 + image::levelBytes(shape.layout, levelSide(h.width, i), levelSide(h.height, i));
  if (all > st.remaining()) {
    return st.error(ErrorCode::TooLarge, fmt::format("{} levels of a {}x{} {} raster take {} bytes; {} remain", h.numLevels, h.width,
                                                     h.height, shape.formatName, all, st.remaining()), "numLevels");
  }
  return Ok{};
}

Result<std::vector<uint8_t>> readPalette(ByteReader& st, const RasterShape& shape) {
  RP_ASSIGN(const std::span<const uint8_t> stored, st.bytes(size_t{shape.paletteEntries} * 4, "palette"));
  std::vector<uint8_t> palette(stored.begin(), stored.end());
  if (shape.paletteOpaque) {
    for (size_t i = 3; i < palette.size(); i += 4) palette[i] = 255;
  }
  return palette;
}

TextureFilter magnifyOf(uint32_t filter) {
  return filter == kFilterNearest || filter == kFilterMipNearest || filter == kFilterMipLinear ? TextureFilter::Nearest
                                                                                                : TextureFilter::Linear;
}

MipFilter mipOf(uint32_t filter) {
  if (filter == kFilterMipNearest || filter == kFilterLinearMipNearest) return MipFilter::Nearest;
  if (filter == kFilterMipLinear || filter == kFilterLinearMipLinear) return MipFilter::Linear;
  return MipFilter::None;
}

TextureWrap wrapOf(uint32_t addressing) {
  if (addressing == kAddressMirror) return TextureWrap::Mirror;
  if (addressing == kAddressClamp || addressing == kAddressBorder) return TextureWrap::Clamp;  // glTF has no border colour
  return TextureWrap::Repeat;
}

Sampler samplerOf(uint32_t filterAddressing) {
  const uint32_t filter = filterAddressing & 0xFF;
  Sampler s;
  s.magnify = magnifyOf(filter);
  s.minify = s.magnify;
  s.mip = mipOf(filter);
  s.wrapU = wrapOf((filterAddressing >> 8) & 0xF);
  s.wrapV = wrapOf((filterAddressing >> 12) & 0xF);
  return s;
}

Result<Texture> readTextureNative(ByteReader& native) {
  RP_ASSIGN(ByteReader st, readChunk(native, kStruct, "Struct"));
  RP_ASSIGN(const TextureNativeHeader h, readHeader(st));
  RP_ASSIGN(const RasterShape shape, rasterShape(h, st));
  RP_CHECK(checkLevels(h, shape, st));
  RP_ASSIGN(const std::vector<uint8_t> palette, readPalette(st, shape));
  Texture t;
  t.name = h.name;
  t.mask = h.mask;
  t.pixelFormat = shape.formatName;
  t.sampler = samplerOf(h.filterAddressing);
  for (uint32_t i = 0; i < h.numLevels; ++i) {
    RP_ASSIGN(const uint32_t size, st.u32(Field("levelSize", i)));
    RP_ASSIGN(ByteReader level, st.sub(size, Field("level", i)));
    const uint32_t w = levelSide(h.width, i), hgt = levelSide(h.height, i);
    RP_ASSIGN(t.image.levels.emplace_back(), image::decodeLevel(level, shape.layout, w, hgt, palette, "pixels"));
  }
  t.image.alpha = image::judgeAlpha(t.image.levels.front());
  return t;
}

Result<ByteReader> readDictionary(ByteReader& root, uint32_t* count) {
  RP_ASSIGN(ByteReader dict, readChunk(root, kTextureDictionary, "TextureDictionary"));
  {
    RP_ASSIGN(ByteReader st, readChunk(dict, kStruct, "Struct"));
    RP_ASSIGN(const uint16_t numTextures, st.u16("numTextures"));
    RP_ASSIGN(*count, dict.count(numTextures, kMinTextureNativeBytes, "Struct/numTextures"));
  }
  return dict;
}

// Damage inside one texture native costs that texture; what refuses the file goes on up.
bool refusesFile(const Error& e) { return e.code == ErrorCode::Unsupported || e.code == ErrorCode::TooLarge; }

}  // namespace

std::string texturePlatformName(uint32_t platform) {
  switch (platform) {
    case kTexturePlatformXbox: return "Xbox";
    case kTexturePlatformGameCube: return "GameCube";
    case kTexturePlatformD3d8: return "D3D8";
    case kTexturePlatformD3d9: return "D3D9";
    case kTexturePlatformPs2: return "PS2";
    case kTexturePlatformPsp: return "PSP";
    default: return fmt::format("platform 0x{:X}", platform);
  }
}

bool probeTxd(std::span<const uint8_t> bytes) {
  if (bytes.size() < kChunkHeaderSize) return false;
  ByteReader r(bytes);
  auto h = readChunkHeader(r, "TextureDictionary");
  return h && h->type == kTextureDictionary && h->version >= 0x30000 && h->version < 0x40000;
}

Result<Asset> readTxd(std::span<const uint8_t> bytes, ReadContext& ctx) {
  ByteReader root = ctx.reader(bytes);
  uint32_t count = 0;
  RP_ASSIGN(ByteReader dict, readDictionary(root, &count));
  Asset asset;
  asset.provenance.format = "renderware-txd";
  for (uint32_t i = 0; i < count; ++i) {
    RP_ASSIGN(ByteReader native, readChunk(dict, kTextureNative, Field("TextureNative", i)));
    auto texture = readTextureNative(native);
    if (texture) {
      asset.textures.push_back(std::move(*texture));
    } else if (refusesFile(texture.error())) {
      return texture.error();
    } else {
      asset.provenance.warn("texture-skipped", fmt::format("texture native {} is damaged and skipped: {}", i, texture.error().describe()));
    }
  }
  return asset;
}

Result<std::vector<ItemInfo>> listTxd(std::span<const uint8_t> bytes, ReadContext& ctx) {
  ByteReader root = ctx.reader(bytes);
  uint32_t count = 0;
  RP_ASSIGN(ByteReader dict, readDictionary(root, &count));
  std::vector<ItemInfo> items;
  for (uint32_t i = 0; i < count; ++i) {
    RP_ASSIGN(ByteReader native, readChunk(dict, kTextureNative, Field("TextureNative", i)));
    ItemInfo item{std::to_string(i), "texture", "", native.size()};
    // The name where the platform's layout is known; a console raster's is listed unnamed.
    if (auto st = readChunk(native, kStruct, "Struct"); st) {
      if (auto h = readHeader(*st); h) item.name = h->name;
    }
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace rigport::renderware
