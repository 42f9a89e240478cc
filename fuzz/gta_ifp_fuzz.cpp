// libFuzzer target for the GTA IFP reader (ANPK / ANLF / ANP3 / ANP2, renderware.md §4).
// Seeds: shared/samples/renderware/*.ifp.
#include <cstddef>
#include <cstdint>
#include <span>

#include "formats/renderware/anim_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)rigport::renderware::readIfp(std::span<const uint8_t>(data, size));
  return 0;
}
