// libFuzzer target for the glTF reader (src/formats/gltf): any bytes, as a .glb or as .gltf text,
// read with a 64 MiB budget and no sibling files → an Asset or an Error. Each rig read must survive
// the exporter and JSON report (downstream.hpp) and the way `convert --to renderware-dff` goes:
// fitted to the DFF's limits, written, and read back with the same bone count.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/fit.hpp"
#include "core/source.hpp"
#include "downstream.hpp"
#include "formats/gltf/gltf.hpp"
#include "formats/renderware/renderware.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto source = rigport::Source::fromBytes(std::vector<uint8_t>(data, data + size), "fuzz.glb");
  rigport::ReadContext ctx(rigport::ReadOptions{.memoryLimit = 64u << 20});
  auto asset = rigport::gltf_in::readGltf(*source, ctx);
  if (!asset) return 0;
  for (rigport::Rig& rig : asset->rigs) {
    rigport::fuzz::exerciseDownstream(rig);
    if (!rigport::fitToLimits(rig, rigport::WriteLimits{4, 256, 0xFFFF}, "renderware-dff")) continue;
    auto bytes = rigport::renderware::writeDff(rig);
    if (!bytes) continue;  // the writer refuses what validate() rejects (non-finite values, ...)
    auto again = rigport::renderware::readDff(*bytes);
    if (!again) std::abort();  // our own output must read back
    if (again->skeleton.bones.size() != rig.skeleton.bones.size()) std::abort();
  }
  return 0;
}
