// The DRS container (battleforge_drs.md §2): header, NodeInformation table and node hierarchy.
// Blocks are found by their magic through the NodeInformation table, as the C# reader does; the
// hierarchy only names them (it is redundant), so a damaged hierarchy is a warning, not an error.
#pragma once

#include <cstdint>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/battleforge/drs_layout.hpp"

namespace rigport::battleforge {

// Every NodeInformation record but the root's, in table order, each checked to lie inside the file.
// `provenance` (may be null) gets the hierarchy's warnings.
Result<std::vector<DrsBlock>> readBlocks(ByteReader& root, Provenance* provenance);

// The first block with `magic`, or null.
const DrsBlock* findBlock(const std::vector<DrsBlock>& blocks, int32_t magic);

// A container of `payloads` (name, magic, bytes) in that order: header, payloads, NodeInformation
// table, hierarchy (the add-on's DRS.save layout).
struct BlockPayload {
  const char* name;
  int32_t magic;
  std::vector<uint8_t> bytes;
};
std::vector<uint8_t> writeContainer(const std::vector<BlockPayload>& payloads);

}  // namespace rigport::battleforge
