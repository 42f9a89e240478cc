// A DBPF 2.0 package's index and resources, between the bytes and the readers of its resources.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/sims3/refpack.hpp"

namespace rigport::sims3 {

struct PackageEntry {
  uint32_t type = 0;
  uint32_t group = 0;
  uint64_t instance = 0;
  uint32_t offset = 0;
  uint32_t fileSize = 0;  // stored bytes (bit 31 cleared)
  uint32_t memSize = 0;   // bytes once decompressed
  uint16_t compression = 0;
  uint16_t committed = 1;
  size_t indexOffset = 0;  // where the entry's record is in the file (for error frames)
};

// "TTTTTTTT:GGGGGGGG:IIIIIIIIIIIIIIII", the entry's item id.
std::string entryId(const PackageEntry& e);
// The type, group and instance of such an id (the other fields left at their defaults); nullopt
// when `id` is not one.
std::optional<PackageEntry> parseEntryId(const std::string& id);

// The index (§4); entries whose bytes lie outside the file are an error.
Result<std::vector<PackageEntry>> parsePackageIndex(ByteReader& r);
// The resource's bytes, decompressed when RefPack-compressed (the size charged to r's budget), in
// `buffer`, which keeps its allocation for the next resource's.
Result<std::span<const uint8_t>> packageResource(const ByteReader& r, const PackageEntry& e, RefPackBytes& buffer);
// The same in a vector of their own.
Result<std::vector<uint8_t>> packageResource(const ByteReader& r, const PackageEntry& e);
// NMAP: instance -> name.
Result<std::unordered_map<uint64_t, std::string>> parseNameMap(ByteReader r);

// A resource to write: `stored` is written as is (already compressed when compression is RefPack).
struct PackageResource {
  uint32_t type = 0;
  uint32_t group = 0;
  uint64_t instance = 0;
  std::vector<uint8_t> stored;
  uint32_t memSize = 0;
  uint16_t compression = 0;
  // A resource from its plain bytes, RefPack-compressed when `compress`.
  static PackageResource make(uint32_t type, uint32_t group, uint64_t instance, std::vector<uint8_t> bytes, bool compress);
};
std::vector<uint8_t> serializeNameMap(const std::vector<std::pair<uint64_t, std::string>>& names);
// The resources' bytes in order after the 96-byte header, then the index (flags 0, version 3). The
// header is `header` (another package's 96 bytes) where given, its index fields rewritten.
std::vector<uint8_t> serializePackage(const std::vector<PackageResource>& resources, std::span<const uint8_t> header = {});

}  // namespace rigport::sims3
