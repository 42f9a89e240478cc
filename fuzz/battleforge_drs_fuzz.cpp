// libFuzzer target for the BattleForge DRS reader (battleforge_drs.md §2–§8). What it reads is
// exported and dumped (downstream.hpp), then written as a DRS, which must read back with the same
// bone count. Seeds: tests/data/samples/battleforge/*.drs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "downstream.hpp"
#include "formats/battleforge/battleforge.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto rig = rigport::battleforge::readDrs(std::span(data, size));
  if (!rig) return 0;
  rigport::fuzz::exerciseDownstream(*rig);
  auto bytes = rigport::battleforge::writeDrs(*rig);
  // The writer refuses only what a DRS cannot hold (16-bit indices, 8-bit local joints, a bind pose
  // that is not finite).
  if (!bytes) return 0;
  auto again = rigport::battleforge::readDrs(*bytes);
  if (!again) std::abort();  // our own output must read back
  if (again->skeleton.bones.size() != rig->skeleton.bones.size()) std::abort();
  return 0;
}
