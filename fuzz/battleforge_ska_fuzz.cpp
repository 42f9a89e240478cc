// libFuzzer target for the BattleForge SKA reader (battleforge_drs.md §9). What it reads is bound,
// exported and dumped (downstream.hpp), then written as a SKA, which must read back.
// Seeds: tests/data/samples/battleforge/*.ska.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "downstream.hpp"
#include "formats/battleforge/battleforge.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto clips = rigport::battleforge::readSka(std::span(data, size));
  if (!clips) return 0;
  rigport::fuzz::exerciseDownstream(*clips);
  auto bytes = rigport::battleforge::writeSka(clips->animations.front(), rigport::Skeleton{});
  if (!bytes) return 0;
  if (!rigport::battleforge::readSka(*bytes)) std::abort();  // our own output must read back
  return 0;
}
