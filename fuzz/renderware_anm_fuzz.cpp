// libFuzzer target for the .anm reader (renderware.md §1.10); anything it reads is written back,
// so the type-1 writer sees the same hostile rigs, then bound, exported and dumped (downstream.hpp). Seeds: tests/data/samples/renderware/*.anm.
#include <cstddef>
#include <cstdint>
#include <span>

#include "downstream.hpp"
#include "formats/renderware/renderware.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto clips = rigport::renderware::readAnm(std::span<const uint8_t>(data, size));
  if (!clips) return 0;
  (void)rigport::renderware::writeAnm(*clips);
  rigport::fuzz::exerciseDownstream(*clips);
  return 0;
}
