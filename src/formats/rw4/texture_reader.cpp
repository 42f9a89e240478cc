// Texture and Raster objects → Texture (texture_layout.hpp for the fields and their sources).
#include <algorithm>
#include <array>
#include <bit>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "formats/rw4/material.hpp"
#include "formats/rw4/texture.hpp"
#include "formats/rw4/texture_layout.hpp"
#include "image/alpha.hpp"
#include "image/decode.hpp"
#include "image/swizzle.hpp"

namespace rigport::rw4 {
namespace {

using image::PixelLayout;

// What a Texture or a Raster says of its pixels, in the one shape the decoding below takes.
struct StoredTexture {
  PixelLayout layout = PixelLayout::Dxt1;
  std::string formatName;  // the object's own word for it: "DXT5", "A8R8G8B8 swizzled", ...
  bool swizzled = false;   // texels in Morton order (image/swizzle.hpp)
  uint32_t rowBytes = 0;   // a linear texture's stored pitch; 0 when its rows lie back to back
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t levels = 0;
  uint32_t buffer = 0;  // dictionary row of the BaseResource
  std::array<size_t, 4> at{};  // where width, height, levels and buffer lie in the object (for errors)
};

Result<StoredTexture> gcmFormat(uint8_t format, const ByteReader& obj) {
  StoredTexture s;
  const bool linear = (format & kGcmLinear) != 0;
  switch (static_cast<uint8_t>(format & ~(kGcmLinear | kGcmUnnormalised))) {
    case kGcmDxt1: s.layout = PixelLayout::Dxt1; s.formatName = "DXT1"; break;
    case kGcmDxt23: s.layout = PixelLayout::Dxt3; s.formatName = "DXT3"; break;
    case kGcmDxt45: s.layout = PixelLayout::Dxt5; s.formatName = "DXT5"; break;
    case kGcmA8R8G8B8: s.layout = PixelLayout::A8R8G8B8; s.formatName = "A8R8G8B8"; break;
    case kGcmD8R8G8B8: s.layout = PixelLayout::X8R8G8B8; s.formatName = "D8R8G8B8"; break;
    default:
      return obj.errorAt(ps3texture::kFormat, ErrorCode::Unsupported,
                         fmt::format("texture format 0x{:02X} is not read (DXT1 0x86, DXT3 0x87, DXT5 0x88, A8R8G8B8 0x85 and "
                                     "D8R8G8B8 0x9E, linear (+0x20) or swizzled, are)",
                                     format),
                         "format");
  }
  if (!image::isBlockCompressed(s.layout)) {
    s.swizzled = !linear;
    s.formatName += linear ? " linear" : " swizzled";
  }
  return s;
}

Result<StoredTexture> readPs3Texture(ByteReader obj) {
  RP_ASSIGN(const uint8_t format, obj.u8("format"));
  RP_ASSIGN(const uint8_t mipmap, obj.u8("mipmap"));
  RP_ASSIGN(const uint8_t dimension, obj.u8("dimension"));
  RP_ASSIGN(const uint8_t cubemap, obj.u8("cubemap"));
  if (dimension != ps3texture::kDimension2D) {
    return obj.errorAt(ps3texture::kDimension, ErrorCode::Unsupported, fmt::format("a texture of dimension {}; 2D textures are read", dimension),
                       "dimension");
  }
  if (cubemap != 0) return obj.errorAt(ps3texture::kCubemap, ErrorCode::Unsupported, "cube maps are not read (glTF has none)", "cubemap");
  RP_ASSIGN(StoredTexture s, gcmFormat(format, obj));
  RP_CHECK(obj.seek(ps3texture::kWidth, "width"));
  RP_ASSIGN(const uint16_t width, obj.u16("width"));
  RP_ASSIGN(const uint16_t height, obj.u16("height"));
  RP_CHECK(obj.seek(ps3texture::kPitch, "pitch"));
  RP_ASSIGN(const uint32_t pitch, obj.u32("pitch"));
  RP_CHECK(obj.seek(ps3texture::kBuffer, "buffer"));
  RP_ASSIGN(s.buffer, obj.u32("buffer"));
  s.width = width;
  s.height = height;
  s.levels = mipmap;
  s.at = {ps3texture::kWidth, ps3texture::kHeight, ps3texture::kMipmap, ps3texture::kBuffer};
  // A linear texture's rows lie `pitch` bytes apart on every level (the RSX's rule, which the public
  // GTF decoders follow); 0 means back to back.
  if (!image::isBlockCompressed(s.layout) && !s.swizzled && pitch != 0) {
    if (pitch < uint64_t{width} * 4) {
      return obj.errorAt(ps3texture::kPitch, ErrorCode::BadValue, fmt::format("pitch {} is shorter than a row of {} texels", pitch, width),
                         "pitch");
    }
    s.rowBytes = pitch;
  }
  return s;
}

Result<StoredTexture> readRaster(ByteReader obj) {
  RP_ASSIGN(const uint32_t format, obj.u32("textureFormat"));
  StoredTexture s;
  switch (format) {
    case kD3dDxt1: s.layout = PixelLayout::Dxt1; s.formatName = "DXT1"; break;
    case kD3dDxt3: s.layout = PixelLayout::Dxt3; s.formatName = "DXT3"; break;
    case kD3dDxt5: s.layout = PixelLayout::Dxt5; s.formatName = "DXT5"; break;
    case kD3dA8R8G8B8: s.layout = PixelLayout::B8G8R8A8; s.formatName = "A8R8G8B8"; break;
    case kD3dX8R8G8B8: s.layout = PixelLayout::B8G8R8X8; s.formatName = "X8R8G8B8"; break;
    default:
      return obj.errorAt(raster::kTextureFormat, ErrorCode::Unsupported,
                         fmt::format("D3DFORMAT 0x{:08X} is not read (DXT1, DXT3, DXT5, A8R8G8B8 and X8R8G8B8 are)", format),
                         "textureFormat");
  }
  RP_CHECK(obj.seek(raster::kWidth, "width"));
  RP_ASSIGN(const uint16_t width, obj.u16("width"));
  RP_ASSIGN(const uint16_t height, obj.u16("height"));
  RP_CHECK(obj.seek(raster::kMipmapLevels, "mipmapLevels"));
  RP_ASSIGN(const uint8_t levels, obj.u8("mipmapLevels"));
  RP_CHECK(obj.seek(raster::kTextureData, "textureData"));
  RP_ASSIGN(s.buffer, obj.u32("textureData"));
  s.width = width;
  s.height = height;
  s.levels = levels;
  s.at = {raster::kWidth, raster::kHeight, raster::kMipmapLevels, raster::kTextureData};
  return s;
}

uint32_t levelSide(uint32_t side, uint32_t level) { return std::max(1u, side >> level); }

uint64_t storedLevelBytes(const StoredTexture& s, uint32_t level) {
  const uint32_t w = levelSide(s.width, level), h = levelSide(s.height, level);
  return s.rowBytes != 0 ? uint64_t{s.rowBytes} * h : image::levelBytes(s.layout, w, h);
}

// Every size is checked before anything is decoded: the sides, the levels halving allows, and the
// bytes the chain takes against the BaseResource that holds it.
Status checkShape(const StoredTexture& s, const ByteReader& obj, const ByteReader& pixels, const char* levelsField) {
  if (s.width == 0) return obj.errorAt(s.at[0], ErrorCode::BadValue, "a texture of width 0", "width");
  if (s.height == 0) return obj.errorAt(s.at[1], ErrorCode::BadValue, "a texture of height 0", "height");
  if (s.swizzled && !image::isPowerOfTwo(s.width)) {
    return obj.errorAt(s.at[0], ErrorCode::Unsupported, fmt::format("a swizzled texture {} wide; the RSX swizzles powers of two", s.width), "width");
  }
  if (s.swizzled && !image::isPowerOfTwo(s.height)) {
    return obj.errorAt(s.at[1], ErrorCode::Unsupported, fmt::format("a swizzled texture {} high; the RSX swizzles powers of two", s.height), "height");
  }
  const auto possible = static_cast<uint32_t>(std::bit_width(std::max(s.width, s.height)));
  if (s.levels == 0 || s.levels > possible) {
    return obj.errorAt(s.at[2], s.levels == 0 ? ErrorCode::BadValue : ErrorCode::TooLarge,
                       fmt::format("{} mip levels; a {}x{} texture has 1 to {}", s.levels, s.width, s.height, possible), levelsField);
  }
  if (const uint64_t first = storedLevelBytes(s, 0); first > pixels.size()) {
    return obj.errorAt(s.at[0], ErrorCode::TooLarge,
                       fmt::format("a {}x{} {} level takes {} bytes; its BaseResource (row {}) holds {}", s.width, s.height, s.formatName,
                                   first, s.buffer, pixels.size()),
                       "width x height");
  }
  uint64_t all = 0;
  for (uint32_t i = 0; i < s.levels; ++i) all += storedLevelBytes(s, i);
  if (all > pixels.size()) {
    return obj.errorAt(s.at[2], ErrorCode::TooLarge,
                       fmt::format("{} levels of a {}x{} {} texture take {} bytes; its BaseResource (row {}) holds {}", s.levels, s.width,
                                   s.height, s.formatName, all, s.buffer, pixels.size()),
                       levelsField);
  }
  return Ok{};
}

// One level into RGBA: a swizzled one put in row order first, a pitched one's rows gathered, each
// copy charged to the budget before it is made.
Result<ImageLevel> decodeStoredLevel(ByteReader& pixels, const StoredTexture& s, uint32_t level) {
  const uint32_t w = levelSide(s.width, level), h = levelSide(s.height, level);
  const Field f("level", level);
  if (!s.swizzled && s.rowBytes == 0) return image::decodeLevel(pixels, s.layout, w, h, {}, f);
  RP_ASSIGN(const std::span<const uint8_t> stored, pixels.bytes(static_cast<size_t>(storedLevelBytes(s, level)), f));
  RP_CHECK(pixels.charge(uint64_t{w} * h * 4, f));
  std::vector<uint8_t> rows;
  if (s.swizzled) {
    rows = image::unswizzleMorton(stored, w, h, 4);
  } else {
    rows.resize(size_t{w} * h * 4);
    for (uint32_t y = 0; y < h; ++y) std::copy_n(stored.data() + size_t{y} * s.rowBytes, size_t{w} * 4, rows.data() + size_t{y} * w * 4);
  }
  ByteReader inRows(rows, Endian::Little, pixels.fileOffsetOfStart(), pixels.path());
  inRows.setBudget(pixels.budget());
  return image::decodeLevel(inRows, s.layout, w, h, {}, f);
}

Result<Texture> readTextureObject(const Arena& arena, const ByteReader& root, uint32_t row) {
  const bool ps3 = arena.dictionary[row].typeId == kTexture;
  RP_ASSIGN(ByteReader obj, objectReader(arena, root, row, ps3 ? "Texture" : "Raster"));
  // The layouts are known on one platform each: the Xbox 360's Texture is a D3D fetch constant
  // (0x34 bytes), and no Raster of a console is known.
  if (arena.platform->platform != (ps3 ? Platform::Ps3 : Platform::Pc)) {
    return obj.errorAt(0, ErrorCode::Unsupported, fmt::format("a {} of a {} arena is not read (PS3 Textures and PC Rasters are)",
                                                              ps3 ? "Texture" : "Raster", arena.platform->name),
                       "platform");
  }
  const size_t need = ps3 ? ps3texture::kSize : raster::kSize;
  if (obj.size() < need) {
    return obj.errorAt(obj.size(), ErrorCode::Truncated, fmt::format("{} bytes, the object has {}", need, obj.size()), "size");
  }
  RP_ASSIGN(const StoredTexture s, ps3 ? readPs3Texture(obj) : readRaster(obj));
  const char* bufferField = ps3 ? "buffer" : "textureData";
  if (s.buffer >= arena.dictionary.size() || !isBaseResource(arena.dictionary[s.buffer].typeId)) {
    return obj.errorAt(s.at[3], ErrorCode::BadValue, fmt::format("row {} is not a BaseResource of the {}-row dictionary", s.buffer,
                                                                 arena.dictionary.size()),
                       bufferField);
  }
  RP_ASSIGN(ByteReader pixels, objectReader(arena, root, s.buffer, "BaseResource"));
  RP_CHECK(checkShape(s, obj, pixels, ps3 ? "mipmap" : "mipmapLevels"));
  Texture t;
  t.pixelFormat = s.formatName;
  for (uint32_t i = 0; i < s.levels; ++i) { RP_ASSIGN(t.image.levels.emplace_back(), decodeStoredLevel(pixels, s, i)); }
  t.image.alpha = image::judgeAlpha(t.image.levels.front());
  if (s.levels > 1) t.sampler.mip = MipFilter::Linear;
  return t;
}

// What a TableOfContents entry says of the row it names (§4.3): its name, and its GUID as
// "0x<guid>", by which a Skate material channel names the texture (docs/rw4_materials.md §3).
struct TocEntry {
  std::string name;
  std::string guid;
};

// §4.3: the rows one TableOfContents names, with the name it gives (or the GUID when the name is
// empty).
Status readTocNames(const Arena& arena, const ByteReader& root, uint32_t row, std::map<uint32_t, TocEntry>& names) {
  RP_ASSIGN(ByteReader t, objectReader(arena, root, row, "TableOfContents"));
  RP_ASSIGN(const uint32_t count, t.u32("count"));
  RP_ASSIGN(const uint32_t array, t.u32("m_pArray"));
  if (array > t.size()) return t.errorAt(4, ErrorCode::BadValue, fmt::format("entries at 0x{:X}, past the object's end", array), "m_pArray");
  RP_ASSIGN(ByteReader entries, t.window(array, t.size() - array, "entries"));
  RP_ASSIGN(const size_t n, entries.count(count, toc::kEntrySize, "count"));
  for (size_t e = 0; e < n; ++e) {
    auto scope = entries.scope(Field("entry", static_cast<int64_t>(e)));
    RP_ASSIGN(const uint32_t nameAt, entries.u32("name"));
    RP_CHECK(entries.skip(4, "pad"));
    RP_ASSIGN(const uint64_t guid, entries.u64("guid"));
    RP_CHECK(entries.skip(4, "typeHash"));
    RP_ASSIGN(const uint32_t object, entries.u32("objectRef"));
    std::string name;
    if (nameAt != 0 && nameAt < t.size()) {
      RP_ASSIGN(ByteReader text, t.window(nameAt, t.size() - nameAt, "name"));
      RP_ASSIGN(name, text.cString("name"));
    }
    std::string id = textureGuidName(guid);
    names[object] = TocEntry{name.empty() ? id : std::move(name), std::move(id)};
  }
  return Ok{};
}

// The names every TableOfContents gives; a damaged table costs its names, said once.
std::map<uint32_t, TocEntry> tocNames(const Arena& arena, const ByteReader& root, Provenance& prov) {
  std::map<uint32_t, TocEntry> names;
  for (uint32_t row = 0; row < arena.dictionary.size(); ++row) {
    if (arena.dictionary[row].typeId != kTableOfContents) continue;
    if (const Status s = readTocNames(arena, root, row, names); !s) {
      prov.warn("rw4-toc", fmt::format("TableOfContents (row {}) gives no names: {}", row, s.error().describe()));
    }
  }
  return names;
}

}  // namespace

Result<std::vector<Texture>> readArenaTextures(const Arena& arena, const ByteReader& root, Provenance& prov) {
  std::vector<Texture> textures;
  const auto isTexture = [](const DictEntry& e) { return e.typeId == kTexture || e.typeId == kRaster; };
  if (std::none_of(arena.dictionary.begin(), arena.dictionary.end(), isTexture)) return textures;
  const std::map<uint32_t, TocEntry> names = tocNames(arena, root, prov);
  for (uint32_t row = 0; row < arena.dictionary.size(); ++row) {
    const uint32_t type = arena.dictionary[row].typeId;
    if (!isTexture(arena.dictionary[row])) continue;
    auto t = readTextureObject(arena, root, row);
    if (!t) {
      if (t.error().code == ErrorCode::TooLarge) return t.error();
      prov.warn("rw4-texture-skipped", fmt::format("{} (row {}) is skipped: {}", typeName(type), row, t.error().describe()));
      continue;
    }
    const auto entry = names.find(row);
    t->name = entry != names.end() ? entry->second.name : fmt::format("texture_{}", row);
    // A name of the table's own ("sky_night.Texture") would hide the GUID the materials bind by.
    if (entry != names.end() && std::filesystem::path(t->name).stem().string() != entry->second.guid) t->id = entry->second.guid;
    textures.push_back(std::move(*t));
  }
  return textures;
}

}  // namespace rigport::rw4
