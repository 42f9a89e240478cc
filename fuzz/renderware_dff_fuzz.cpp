// libFuzzer target for the DFF reader: any bytes → readDff returns a Rig or an Error; a Rig that
// was read must pass every check of validate() (the reader itself checks only the structure of its
// meshes, core/validate.hpp), and survive export, the JSON report (downstream.hpp), writeDff and
// reading back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "core/validate.hpp"
#include "downstream.hpp"
#include "formats/renderware/dff_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto rig = rigport::renderware::readDff(std::span(data, size));
  if (!rig) return 0;
  if (!rigport::validate(*rig)) std::abort();  // every mesh element valid as built
  rigport::fuzz::exerciseDownstream(*rig);
  auto bytes = rigport::renderware::writeDff(*rig);
  // The writer refuses only what RW cannot hold (> 65535 vertices, > 256 joints).
  if (!bytes) return 0;
  auto again = rigport::renderware::readDff(*bytes);
  if (!again) std::abort();  // our own output must read back
  if (again->skeleton.bones.size() != rig->skeleton.bones.size()) std::abort();
  return 0;
}
