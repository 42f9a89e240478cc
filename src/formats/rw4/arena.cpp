// RW4 arena container (rw4_arena.md §2.1–2.6).
#include "formats/rw4/arena.hpp"
#include "formats/rw4/rw4.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace rigport::rw4 {
namespace {

constexpr uint8_t kPointerBits = 32;  // §2.1: every known arena has 32-bit pointers

const PlatformInfo* findPlatform(std::span<const uint8_t> body) {
  for (const PlatformInfo& p : kPlatforms) {
    if (std::memcmp(p.tag.data(), body.data(), 4) == 0) return &p;
  }
  return nullptr;
}

// §2.2: every section starts with its type id; `at` is a file offset.
Result<ByteReader> openSection(const ByteReader& root, uint64_t at, uint32_t type, const char* name) {
  if (at >= root.size()) {
    return root.errorAt(root.size(), ErrorCode::Truncated, fmt::format("section at 0x{:X} lies past the end of the file", at), name);
  }
  RP_ASSIGN(ByteReader s, root.window(static_cast<size_t>(at), root.size() - static_cast<size_t>(at), name));
  RP_ASSIGN(const uint32_t found, s.u32("typeId"));
  if (found != type) {
    return s.errorAt(0, ErrorCode::BadValue, fmt::format("section type 0x{:08X}, expected 0x{:08X}", found, type), "typeId");
  }
  return s;
}

Status readTypes(const ByteReader& root, uint64_t at, Arena& arena) {
  RP_ASSIGN(ByteReader s, openSection(root, at, kSectionTypes, "Types"));
  RP_ASSIGN(const uint32_t count, s.u32("count"));
  RP_CHECK(s.skip(4, "dictOffset"));
  RP_ASSIGN(arena.types, s.array<uint32_t>(count, "typeId"));
  return Ok{};
}

Status readSubreferences(const ByteReader& root, uint64_t at, Arena& arena) {
  RP_ASSIGN(ByteReader s, openSection(root, at, kSectionSubreferences, "Subreferences"));
  RP_ASSIGN(const uint32_t numEntries, s.u32("numEntries"));
  RP_CHECK(s.skip(8, "afterRefix"));
  RP_CHECK(s.skip(4, "dict"));
  RP_ASSIGN(const uint32_t records, s.u32("records"));
  if (numEntries == 0) return Ok{};
  if (records >= root.size()) {
    return s.errorAt(s.position() - 4, ErrorCode::BadValue,
                     fmt::format("subreference records at 0x{:X} lie past the end of the file", records), "records");
  }
  RP_ASSIGN(ByteReader r, root.window(records, root.size() - records, "SubreferenceRecords"));
  RP_ASSIGN(const size_t n, r.count(numEntries, 8, "numEntries"));
  arena.subreferences.resize(n);
  for (size_t i = 0; i < n; ++i) {
    RP_ASSIGN(arena.subreferences[i].object, r.u32(Field("objectId", static_cast<int64_t>(i))));
    RP_ASSIGN(arena.subreferences[i].offset, r.u32(Field("offset", static_cast<int64_t>(i))));
  }
  return Ok{};
}

Status readManifest(const ByteReader& root, Arena& arena) {
  RP_ASSIGN(ByteReader m, openSection(root, arena.sections, kSectionManifest, "SectionManifest"));
  RP_ASSIGN(const uint32_t numEntries, m.u32("numEntries"));
  if (numEntries < kManifestEntries) {
    return m.errorAt(4, ErrorCode::BadValue, fmt::format("{} sections listed, an arena has {}", numEntries, kManifestEntries),
                     "numEntries");
  }
  RP_CHECK(m.skip(4, "dictOffset"));
  uint32_t offsets[kManifestEntries];
  for (uint32_t i = 0; i < kManifestEntries; ++i) { RP_ASSIGN(offsets[i], m.u32(Field("sectionOffset", i))); }
  const uint64_t base = arena.sections;
  RP_CHECK(readTypes(root, base + offsets[0], arena));
  {
    RP_ASSIGN(ByteReader s, openSection(root, base + offsets[1], kSectionExternalArenas, "ExternalArenas"));
    RP_ASSIGN(arena.numExternalArenas, s.u32("count"));
  }
  RP_CHECK(readSubreferences(root, base + offsets[2], arena));
  RP_ASSIGN(ByteReader atoms, openSection(root, base + offsets[3], kSectionAtoms, "Atoms"));
  RP_ASSIGN(arena.numAtoms, atoms.u32("numEntries"));
  return Ok{};
}

// §2.3 rows, §2.4 base-resource addressing: type 0x10030 + k lives in descriptor k + 1, at the sum
// of the sizes of descriptors 0..k plus ptr.
Status readDictionary(const ByteReader& root, uint32_t numEntries, Arena& arena, Provenance& prov) {
  if (arena.dictStart > root.size()) {
    return root.errorAt(0x30, ErrorCode::BadValue, fmt::format("dictionary at 0x{:X} lies past the end of the file", arena.dictStart),
                        "dictStart");
  }
  RP_ASSIGN(ByteReader d, root.window(arena.dictStart, root.size() - arena.dictStart, "Dictionary"));
  RP_ASSIGN(const size_t n, d.count(numEntries, kDictEntrySize, "numEntries"));
  arena.dictionary.resize(n);
  size_t outside = 0, typeMismatch = 0;
  std::string firstOutside;
  for (size_t i = 0; i < n; ++i) {
    auto scope = d.scope(Field("entry", static_cast<int64_t>(i)));
    DictEntry& e = arena.dictionary[i];
    RP_ASSIGN(e.ptr, d.u32("ptr"));
    RP_ASSIGN(e.reloc, d.u32("reloc"));
    RP_ASSIGN(e.size, d.u32("size"));
    RP_ASSIGN(e.align, d.u32("align"));
    RP_ASSIGN(e.typeIndex, d.u32("typeIndex"));
    RP_ASSIGN(e.typeId, d.u32("typeId"));
    if (e.typeIndex >= arena.types.size() || arena.types[e.typeIndex] != e.typeId) ++typeMismatch;
    uint64_t base = 0;
    bool known = true;
    if (isBaseResource(e.typeId)) {
      e.resource = static_cast<int32_t>(e.typeId - kBaseResourceFirst + 1);
      known = static_cast<size_t>(e.resource) < arena.resources.size();
      if (known) base = arena.resources[static_cast<size_t>(e.resource)].fileOffset;
    }
    e.fileOffset = base + e.ptr;
    e.inFile = known && e.fileOffset <= root.size() && e.size <= root.size() - e.fileOffset;
    if (!e.inFile && outside++ == 0) {
      firstOutside = fmt::format("row {} ({}, {} bytes at 0x{:X})", i, typeName(e.typeId), e.size, e.fileOffset);
    }
  }
  if (outside > 0) {
    prov.warn("rw4-object-outside", fmt::format("{} dictionary row(s) lie outside the file or name a resource the {} header "
                                                "lacks, first {}; they are not read",
                                                outside, arena.platform->name, firstOutside));
  }
  if (typeMismatch > 0) {
    prov.warn("rw4-type-index", fmt::format("{} dictionary row(s) whose typeIndex does not name their typeId in the Types "
                                            "section; the row's typeId is used",
                                            typeMismatch));
  }
  return Ok{};
}

}  // namespace

const PlatformInfo& platformInfo(Platform p) {
  for (const PlatformInfo& info : kPlatforms)
    if (info.platform == p) return info;
  return kPlatforms[0];
}

bool probeArena(std::span<const uint8_t> bytes) {
  if (bytes.size() < 12) return false;
  return std::memcmp(bytes.data(), kMagicPrefix.data(), 4) == 0 && std::memcmp(bytes.data() + 8, kMagicSuffix.data(), 4) == 0;
}

Result<Arena> parseArena(ByteReader& root, Provenance& prov) {
  Arena arena;
  RP_ASSIGN(ByteReader h, root.window(0, root.size(), "ArenaFileHeader"));
  RP_ASSIGN(const auto prefix, h.bytes(4, "magic"));
  RP_ASSIGN(const auto body, h.bytes(4, "platform"));
  RP_ASSIGN(const auto suffix, h.bytes(4, "magicSuffix"));
  if (std::memcmp(prefix.data(), kMagicPrefix.data(), 4) != 0 || std::memcmp(suffix.data(), kMagicSuffix.data(), 4) != 0) {
    return h.errorAt(0, ErrorCode::BadValue, "not an RW4 arena (no \\x89RW4 ... \\r\\n\\x1A\\n magic)", "magic");
  }
  arena.platform = findPlatform(body);
  if (arena.platform == nullptr) {
    std::string tag;
    for (uint8_t c : body) tag += (c >= 0x20 && c < 0x7F) ? static_cast<char>(c) : '.';
    while (!tag.empty() && body[tag.size() - 1] == 0) tag.pop_back();  // the tag's NUL padding
    return h.errorAt(4, ErrorCode::Unsupported, fmt::format("platform '{}' is not one of ps3, xb2, rev, w32", tag), "platform");
  }
  RP_ASSIGN(const uint8_t bigEndian, h.u8("isBigEndian"));
  if ((bigEndian != 0) != arena.platform->bigEndian) {
    return h.errorAt(kHeaderIsBigEndian, ErrorCode::BadValue,
                     fmt::format("isBigEndian {} for a {} arena", bigEndian, arena.platform->name), "isBigEndian");
  }
  RP_ASSIGN(const uint8_t pointerBits, h.u8("pointerSizeInBits"));
  if (pointerBits != kPointerBits) {
    return h.errorAt(kHeaderPointerBits, ErrorCode::Unsupported, fmt::format("{}-bit pointers", pointerBits), "pointerSizeInBits");
  }
  root.setEndian(arena.endian());
  h.setEndian(arena.endian());
  RP_CHECK(h.seek(kHeaderCounts, "buildNo"));
  RP_CHECK(h.skip(4, "buildNo"));
  RP_ASSIGN(arena.id, h.u32("id"));
  RP_ASSIGN(const uint32_t numEntries, h.u32("numEntries"));
  RP_CHECK(h.skip(12, "numUsed"));  // numUsed, alignment, virt
  RP_ASSIGN(arena.dictStart, h.u32("dictStart"));
  RP_ASSIGN(arena.sections, h.u32("sections"));
  RP_CHECK(h.skip(12, "base"));  // base, unfixContext, fixContext
  const uint32_t n = arena.platform->numResources;
  arena.resources.resize(n);
  uint64_t at = 0;
  for (uint32_t i = 0; i < n; ++i) {
    RP_ASSIGN(arena.resources[i].size, h.u32(Field("resourceDescriptor.size", i)));
    RP_ASSIGN(arena.resources[i].align, h.u32(Field("resourceDescriptor.align", i)));
    arena.resources[i].fileOffset = at;
    at += arena.resources[i].size;
  }
  RP_CHECK(h.skip(8 * n + 4 * n + 4, "resourcesUsed"));  // resourcesUsed, resource pointers, arenaGroup
  // §2.1: the descriptors' sizes add up to the file size; a shorter file was cut.
  if (at > root.size()) {
    return h.errorAt(kResourceDescriptors, ErrorCode::Truncated,
                     fmt::format("the resource descriptors total {} bytes, the file holds {}", at, root.size()),
                     "resourceDescriptor");
  }
  if (at < root.size()) prov.warn("rw4-trailing-bytes", fmt::format("{} bytes after the arena's last resource are ignored", root.size() - at));
  if (arena.sections < headerSize(n)) {
    return h.errorAt(0x34, ErrorCode::BadValue, fmt::format("section manifest at 0x{:X}, inside the {}-byte {} header",
                                                            arena.sections, headerSize(n), arena.platform->name),
                     "sections");
  }
  RP_CHECK(readManifest(root, arena));
  if (numEntries > 0 && numEntries > (1u << 20)) {
    return h.errorAt(0x20, ErrorCode::TooLarge, fmt::format("{} dictionary rows", numEntries), "numEntries");
  }
  RP_CHECK(readDictionary(root, numEntries, arena, prov));
  return arena;
}

Result<ByteReader> objectReader(const Arena& arena, const ByteReader& root, uint32_t index, const char* role) {
  if (index >= arena.dictionary.size()) {
    return root.errorAt(arena.dictStart, ErrorCode::BadValue,
                        fmt::format("{} is dictionary row {}, the dictionary has {}", role, index, arena.dictionary.size()), role);
  }
  const DictEntry& e = arena.dictionary[index];
  const uint64_t rowAt = arena.dictStart + uint64_t{index} * kDictEntrySize;
  if (!e.inFile) {
    return root.errorAt(static_cast<size_t>(std::min<uint64_t>(rowAt, root.size())), ErrorCode::BadValue,
                        fmt::format("{} (dictionary row {}, {} bytes at 0x{:X}) lies outside the file", role, index, e.size, e.fileOffset),
                        Field("Dictionary/entry", index));
  }
  return root.window(static_cast<size_t>(e.fileOffset), e.size, Field(role, index));
}

Result<std::optional<ObjectRef>> resolveRef(const Arena& arena, const ByteReader& from, size_t at, uint32_t value,
                                            const char* field) {
  const uint32_t table = value >> kRefTableShift;
  const uint32_t index = value & kRefIndexMask;
  if (table == kRefNone) return std::optional<ObjectRef>{};
  if (table == kRefObject) {
    if (index >= arena.dictionary.size()) {
      return from.errorAt(at, ErrorCode::BadValue, fmt::format("object {} of {}", index, arena.dictionary.size()), field);
    }
    return std::optional<ObjectRef>{ObjectRef{index, 0}};
  }
  if (table == kRefSubreference) {
    if (index >= arena.subreferences.size()) {
      return from.errorAt(at, ErrorCode::BadValue,
                          fmt::format("subreference {} of {} (0x{:08X})", index, arena.subreferences.size(), value), field);
    }
    const SubreferenceRecord& s = arena.subreferences[index];
    if (s.object >= arena.dictionary.size() || s.offset > arena.dictionary[s.object].size) {
      return from.errorAt(at, ErrorCode::BadValue,
                          fmt::format("subreference {} names object {} offset 0x{:X}, outside the arena's objects", index,
                                      s.object, s.offset),
                          field);
    }
    return std::optional<ObjectRef>{ObjectRef{s.object, s.offset}};
  }
  return from.errorAt(at, ErrorCode::BadValue, fmt::format("reference 0x{:08X} selects table {}", value, table), field);
}

Status expectType(const Arena& arena, const ByteReader& from, size_t at, uint32_t index, uint32_t typeId, const char* field) {
  if (index >= arena.dictionary.size()) {
    return from.errorAt(at, ErrorCode::BadValue, fmt::format("object {} of {}", index, arena.dictionary.size()), field);
  }
  if (arena.dictionary[index].typeId != typeId) {
    return from.errorAt(at, ErrorCode::BadValue,
                        fmt::format("object {} is a {}, expected a {}", index, typeName(arena.dictionary[index].typeId),
                                    typeName(typeId)),
                        field);
  }
  return Ok{};
}

}  // namespace rigport::rw4
