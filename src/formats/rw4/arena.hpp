// The RW4 arena container (rw4_arena.md §2): header, resource descriptors, section manifest
// (types, external arenas, subreferences, atoms), dictionary, base-resource addressing, and the
// resolution of object references and subreferences. Knows nothing of the objects' contents.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/rw4/arena_layout.hpp"

namespace rigport::rw4 {

struct ResourceDescriptor {
  uint32_t size = 0;
  uint32_t align = 0;
  uint64_t fileOffset = 0;  // §2.4: the resources lie back to back, descriptor 0 first
};

struct Arena {
  const PlatformInfo* platform = nullptr;
  uint32_t id = 0;
  uint32_t dictStart = 0;
  uint32_t sections = 0;
  std::vector<ResourceDescriptor> resources;
  std::vector<uint32_t> types;             // §2.2 Types section
  uint32_t numExternalArenas = 0;          // §2.2, not followed
  std::vector<SubreferenceRecord> subreferences;
  uint32_t numAtoms = 0;
  std::vector<DictEntry> dictionary;

  Endian endian() const { return platform->bigEndian ? Endian::Big : Endian::Little; }
  // §2.6: pointers inside RW animation objects are file-absolute on PC (Spore), object-relative
  // elsewhere (Skate's Pegasus and renderengine objects are object-relative on every platform).
  bool absoluteAnimationPointers() const { return platform->platform == Platform::Pc; }
};

// Parses the container over `root` (the whole file, with the budget set). Dictionary rows whose
// bytes lie outside the file are kept with inFile = false and reported once to `prov`; resolving
// one later is an error naming the row.
Result<Arena> parseArena(ByteReader& root, Provenance& prov);

// A reader over dictionary row `index`'s bytes, path "object[index]" (an error if the row does not
// exist or lies outside the file).
Result<ByteReader> objectReader(const Arena& arena, const ByteReader& root, uint32_t index, const char* role);

// A reference read at `at` inside object `from` (§2.6): a dictionary index, none, or a
// subreference record resolved to {object, offset}. Errors name the field and the value.
struct ObjectRef {
  uint32_t object = 0;
  uint32_t offset = 0;
};
Result<std::optional<ObjectRef>> resolveRef(const Arena& arena, const ByteReader& from, size_t at, uint32_t value,
                                            const char* field);

// Object `index` must exist and have type `typeId`; the error names `field` in `from`.
Status expectType(const Arena& arena, const ByteReader& from, size_t at, uint32_t index, uint32_t typeId,
                  const char* field);

}  // namespace rigport::rw4
