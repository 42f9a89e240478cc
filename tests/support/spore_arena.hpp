// Spore arenas in tests: a rig written as Spore writes its models (rigport's PC arena writer with
// Spore's mesh and animation objects), read back, and its container parsed to find objects' fields.
// Shared by the Spore mesh and blend-shape tests.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/asset.hpp"
#include "core/rig.hpp"
#include "formats/rw4/arena.hpp"

namespace rigport::test {

// `rig` as a PC arena with Spore's own objects (a failed write fails the test and gives no bytes).
std::vector<uint8_t> sporeBytes(const Rig& rig);

// The arena read as the file `name` (rigs without a name take its stem).
Asset readArenaBytes(const std::vector<uint8_t>& bytes, const std::string& name);

// The arena's one rig with its clips bound, as `convert` exports it (an empty rig, the test failed,
// when it is not one rig).
Rig readArenaRig(const std::vector<uint8_t>& bytes, const std::string& name);

// A written arena's container: the rows of one type and where an object's field lies in the file.
struct ParsedArena {
  rw4::Arena arena;
  std::vector<uint32_t> rowsOf(uint32_t type) const;
  size_t at(uint32_t row, size_t offset) const { return static_cast<size_t>(arena.dictionary[row].fileOffset) + offset; }
  uint32_t u32At(const std::vector<uint8_t>& bytes, uint32_t row, size_t offset) const;
};
ParsedArena parse(const std::vector<uint8_t>& bytes);

// Every `cutStep`-th prefix of a written arena is refused (its descriptors' sizes say it was cut), and
// with a byte flipped at every third offset it reads or is refused, never more; `onRead` sees each
// flipped arena that reads. Returns how many read.
size_t cutAndFlip(const std::vector<uint8_t>& bytes, size_t cutStep, const std::function<void(const Asset&)>& onRead);

bool hasWarning(const Provenance& p, const std::string& code, const std::string& text = "");
// Every warning, one a line, for a failed expectation's message.
std::string warnings(const Provenance& p);

}  // namespace rigport::test
