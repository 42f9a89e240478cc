// libFuzzer target for the Sluggers model block and archive readers: any bytes → readModel returns a
// Rig or an Error; a Rig that was read must survive export, the JSON report (downstream.hpp),
// writeModel and reading back with the same bones. The same bytes read as an archive must give rigs
// that export, or an error. Seeded with tests/data/fuzz/sluggers_model/ (blocks written by
// rigport: no public samples exist, sluggers.md §10).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "core/read_context.hpp"
#include "core/source.hpp"
#include "downstream.hpp"
#include "formats/sluggers/sluggers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    rigport::ReadContext ctx;
    auto asset = rigport::sluggers::readArchive(*rigport::Source::fromBytes(std::vector<uint8_t>(data, data + size), "fuzz"), ctx);
    if (asset)
      for (const rigport::Rig& r : asset->rigs) rigport::fuzz::exerciseDownstream(r);
  }
  auto rig = rigport::sluggers::readModel(std::span(data, size));
  if (!rig) return 0;
  rigport::fuzz::exerciseDownstream(*rig);
  auto bytes = rigport::sluggers::writeModel(*rig);
  // The writer refuses what the format cannot hold (a rigid mesh on no bone, values beyond s16).
  if (!bytes) return 0;
  auto again = rigport::sluggers::readModel(*bytes);
  if (!again) std::abort();  // our own output must read back
  if (again->skeleton.bones.size() != rig->skeleton.bones.size()) std::abort();
  return 0;
}
