// libFuzzer target for the GTA IFP reader (ANPK / ANLF / ANP3 / ANP2, renderware.md §4).
// What it reads is bound, exported and dumped (downstream.hpp). Seeds: tests/data/samples/renderware/*.ifp.
#include <cstddef>
#include <cstdint>
#include <span>

#include "downstream.hpp"
#include "formats/renderware/renderware.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto clips = rigport::renderware::readIfp(std::span<const uint8_t>(data, size));
  if (clips) rigport::fuzz::exerciseDownstream(*clips);
  return 0;
}
