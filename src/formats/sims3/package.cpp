// DBPF 2.0 index, resources and name map (sims3_clip.md §4), read and written.
#include "formats/sims3/package.hpp"

#include <cstring>

#include <fmt/format.h>

#include "core/byte_writer.hpp"
#include "formats/sims3/dbpf_layout.hpp"
#include "formats/sims3/refpack.hpp"

namespace rigport::sims3 {

using namespace dbpf;

std::string entryId(const PackageEntry& e) { return fmt::format("{:08X}:{:08X}:{:016X}", e.type, e.group, e.instance); }

std::optional<PackageEntry> parseEntryId(const std::string& id) {
  if (id.size() != 8 + 1 + 8 + 1 + 16 || id[8] != ':' || id[17] != ':') return std::nullopt;
  auto hex = [&](size_t at, size_t n) -> std::optional<uint64_t> {
    uint64_t v = 0;
    for (size_t i = at; i < at + n; ++i) {
      const char c = id[i];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return std::nullopt;
      v = v << 4 | static_cast<uint64_t>(d);
    }
    return v;
  };
  const auto type = hex(0, 8), group = hex(9, 8), instance = hex(18, 16);
  if (!type || !group || !instance) return std::nullopt;
  PackageEntry e;
  e.type = static_cast<uint32_t>(*type);
  e.group = static_cast<uint32_t>(*group);
  e.instance = *instance;
  return e;
}

Result<std::vector<PackageEntry>> parsePackageIndex(ByteReader& r) {
  auto scope = r.scope("DBPF");
  RP_ASSIGN(const auto magic, r.bytes(4, "magic"));
  if (std::memcmp(magic.data(), kMagic, 4) != 0) return r.errorAt(0, ErrorCode::BadValue, "not a DBPF package (no \"DBPF\" magic)", "magic");
  RP_ASSIGN(const uint32_t major, r.u32("major"));
  if (major != kMajor) {
    return r.errorAt(kMajorField, ErrorCode::Unsupported, fmt::format("DBPF version {} (rigport reads 2.x, The Sims 3's)", major), "major");
  }
  RP_ASSIGN(ByteReader header, r.window(0, kHeaderSize, "header"));
  RP_CHECK(header.seek(kIndexCountField, "indexCount"));
  RP_ASSIGN(const uint32_t count, header.u32("indexCount"));
  RP_CHECK(header.seek(kIndexOffsetLegacyField, "indexOffsetLegacy"));
  RP_ASSIGN(const uint32_t legacyOffset, header.u32("indexOffsetLegacy"));
  RP_ASSIGN(const uint32_t indexSize, header.u32("indexSize"));
  RP_CHECK(header.seek(kIndexOffsetField, "indexOffset"));
  RP_ASSIGN(uint32_t indexOffset, header.u32("indexOffset"));
  if (indexOffset == 0) indexOffset = legacyOffset;
  if (indexOffset > r.size() || indexSize > r.size() - indexOffset) {
    return r.errorAt(kIndexOffsetField, ErrorCode::BadValue,
                     fmt::format("index at 0x{:X} ({} bytes) is outside the {}-byte file", indexOffset, indexSize, r.size()), "indexOffset");
  }
  RP_ASSIGN(ByteReader index, r.window(indexOffset, indexSize, "index"));
  uint32_t flags = 0;
  if (count != 0) { RP_ASSIGN(flags, index.u32("flags")); }
  uint32_t constants[4] = {0, 0, 0, 0};
  for (unsigned bit = 0; bit < 4; ++bit) {
    if ((flags & (1u << bit)) != 0) { RP_ASSIGN(constants[bit], index.u32(Field("constant", bit))); }
  }
  unsigned perEntryKeys = 0;
  for (unsigned bit = 0; bit < 4; ++bit) perEntryKeys += (flags & (1u << bit)) == 0 ? 1 : 0;
  RP_ASSIGN(const size_t n, index.count(count, perEntryKeys * 4 + kEntryTailSize, "indexCount"));
  std::vector<PackageEntry> entries(n);
  for (size_t i = 0; i < n; ++i) {
    auto entryScope = index.scope(Field("entry", static_cast<int64_t>(i)));
    PackageEntry& e = entries[i];
    e.indexOffset = indexOffset + index.position();
    uint32_t key[4];
    static const char* const kKeyNames[4] = {"type", "group", "instanceHi", "instanceLo"};
    for (unsigned bit = 0; bit < 4; ++bit) {
      if ((flags & (1u << bit)) != 0) {
        key[bit] = constants[bit];
      } else {
        RP_ASSIGN(key[bit], index.u32(kKeyNames[bit]));
      }
    }
    e.type = key[0];
    e.group = key[1];
    e.instance = uint64_t{key[2]} << 32 | key[3];
    RP_ASSIGN(e.offset, index.u32("offset"));
    RP_ASSIGN(const uint32_t fileSize, index.u32("fileSize"));
    e.fileSize = fileSize & ~kFileSizeFlag;
    RP_ASSIGN(e.memSize, index.u32("memSize"));
    RP_ASSIGN(e.compression, index.u16("compressed"));
    RP_ASSIGN(e.committed, index.u16("committed"));
    if (e.offset > r.size() || e.fileSize > r.size() - e.offset) {
      return index.errorAt(index.position() - kEntryTailSize, ErrorCode::BadValue,
                           fmt::format("resource {} at 0x{:X} ({} bytes) is outside the {}-byte file", entryId(e), e.offset, e.fileSize, r.size()),
                           "offset");
    }
  }
  return entries;
}

Result<std::span<const uint8_t>> packageResource(const ByteReader& r, const PackageEntry& e, RefPackBytes& buffer) {
  RP_ASSIGN(ByteReader stored, r.window(e.offset, e.fileSize, "resource"));
  if (e.compression == kCompressedRefPack) {
    RP_CHECK(refpackDecompressInto(stored, buffer));
    if (buffer.size() != e.memSize) {
      return stored.errorAt(0, ErrorCode::BadValue, fmt::format("decompresses to {} bytes; the index says {}", buffer.size(), e.memSize), "memSize");
    }
    return std::span<const uint8_t>(buffer);
  }
  if (e.compression != 0) {
    return stored.errorAt(0, ErrorCode::Unsupported,
                          fmt::format("compression 0x{:04X}{} (rigport reads RefPack, 0xFFFF, and uncompressed resources)", e.compression,
                                      e.compression == kCompressedZlib ? ", The Sims 4's zlib" : ""),
                          "compressed");
  }
  RP_CHECK(stored.charge(e.fileSize, "fileSize"));
  RP_ASSIGN(const auto bytes, stored.bytes(e.fileSize, "resource"));
  buffer.assign(bytes.begin(), bytes.end());
  return std::span<const uint8_t>(buffer);
}

Result<std::vector<uint8_t>> packageResource(const ByteReader& r, const PackageEntry& e) {
  RefPackBytes buffer;
  RP_ASSIGN(const std::span<const uint8_t> bytes, packageResource(r, e, buffer));
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

Result<std::unordered_map<uint64_t, std::string>> parseNameMap(ByteReader r) {
  auto scope = r.scope("NMAP");
  RP_ASSIGN(const uint32_t version, r.u32("version"));
  if (version != kNameMapVersion) return r.errorAt(0, ErrorCode::Unsupported, fmt::format("name map version {} (1 is known)", version), "version");
  RP_ASSIGN(const uint32_t count, r.u32("count"));
  RP_ASSIGN(const size_t n, r.count(count, 12, "count"));
  std::unordered_map<uint64_t, std::string> names;
  names.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    auto entryScope = r.scope(Field("name", static_cast<int64_t>(i)));
    RP_ASSIGN(const uint64_t instance, r.u64("instance"));
    RP_ASSIGN(const uint32_t length, r.u32("length"));
    RP_ASSIGN(const auto text, r.bytes(length, "text"));
    names[instance].assign(text.begin(), text.end());
  }
  return names;
}

PackageResource PackageResource::make(uint32_t type, uint32_t group, uint64_t instance, std::vector<uint8_t> bytes, bool compress) {
  PackageResource p{type, group, instance, {}, static_cast<uint32_t>(bytes.size()), 0};
  if (compress) {
    p.stored = refpackCompress(bytes);
    p.compression = kCompressedRefPack;
  } else {
    p.stored = std::move(bytes);
  }
  return p;
}

std::vector<uint8_t> serializeNameMap(const std::vector<std::pair<uint64_t, std::string>>& names) {
  ByteWriter w;
  w.u32(kNameMapVersion);
  w.u32(static_cast<uint32_t>(names.size()));
  for (const auto& [instance, name] : names) {
    w.u64(instance);
    w.u32(static_cast<uint32_t>(name.size()));
    w.raw({reinterpret_cast<const uint8_t*>(name.data()), name.size()});
  }
  return w.take();
}

std::vector<uint8_t> serializePackage(const std::vector<PackageResource>& resources, std::span<const uint8_t> header) {
  ByteWriter w;
  w.fixedString(std::string_view(kMagic, 4), 4);
  w.u32(kMajor);
  w.zeros(kHeaderSize - 8);
  // Another package's header, word by word (little-endian, §4), where given; its index fields are
  // rewritten below.
  for (size_t at = 0; header.size() == kHeaderSize && at < kHeaderSize; at += 4) {
    w.patchU32(at, static_cast<uint32_t>(header[at]) | static_cast<uint32_t>(header[at + 1]) << 8 |
                       static_cast<uint32_t>(header[at + 2]) << 16 | static_cast<uint32_t>(header[at + 3]) << 24);
  }
  std::vector<uint32_t> offsets;
  for (const PackageResource& p : resources) {
    offsets.push_back(static_cast<uint32_t>(w.size()));
    w.raw(p.stored);
  }
  const size_t indexAt = w.size();
  w.u32(0);  // flags: no constant fields
  for (size_t i = 0; i < resources.size(); ++i) {
    const PackageResource& p = resources[i];
    w.u32(p.type);
    w.u32(p.group);
    w.u32(static_cast<uint32_t>(p.instance >> 32));
    w.u32(static_cast<uint32_t>(p.instance));
    w.u32(offsets[i]);
    w.u32(static_cast<uint32_t>(p.stored.size()) | kFileSizeFlag);
    w.u32(p.memSize);
    w.u16(p.compression);
    w.u16(kCommitted);
  }
  w.patchU32(kIndexCountField, static_cast<uint32_t>(resources.size()));
  w.patchU32(kIndexSizeField, static_cast<uint32_t>(w.size() - indexAt));
  w.patchU32(kIndexVersionField, kIndexVersion);
  w.patchU32(kIndexOffsetField, static_cast<uint32_t>(indexAt));
  w.patchU32(kIndexOffsetLegacyField, 0);  // 0x40 gives the place (a copied header may hold an old one here)
  return w.take();
}

}  // namespace rigport::sims3
