// libFuzzer target for the DFF reader: any bytes → readDff returns a Rig or an Error; a Rig that
// was read must pass every check of validate() (the reader itself checks only the structure of its
// meshes, core/validate.hpp), and survive export, the JSON report (downstream.hpp), writeDff and
// reading back. A read mesh by mesh (what `info` does, ReadOptions::meshBuilt) must end as the
// ordinary read does, handing over each of its meshes with the same counts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "core/validate.hpp"
#include "downstream.hpp"
#include "formats/renderware/renderware.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto rig = rigport::renderware::readDff(std::span(data, size));
  std::vector<size_t> handed;  // vertices + indices of each mesh handed over
  rigport::ReadOptions byMesh;
  byMesh.meshBuilt = [&](rigport::Rig& r, size_t, size_t m) -> rigport::Status {
    handed.push_back(r.meshes[m].positions.size() + r.meshes[m].indices.size());
    r.meshes[m] = rigport::Mesh{};
    return rigport::Ok{};
  };
  rigport::ReadContext byMeshContext(byMesh);
  if (rigport::renderware::readDff(std::span(data, size), byMeshContext).ok() != rig.ok()) std::abort();
  if (!rig) return 0;
  if (handed.size() != rig->meshes.size()) std::abort();
  for (size_t m = 0; m < handed.size(); ++m) {
    if (handed[m] != rig->meshes[m].positions.size() + rig->meshes[m].indices.size()) std::abort();
  }
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
