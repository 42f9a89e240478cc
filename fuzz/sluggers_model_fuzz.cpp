// libFuzzer target for the Sluggers model block and archive readers: any bytes → readModel returns a
// Rig or an Error; a Rig that was read must survive export, the JSON report (downstream.hpp),
// writeModel and reading back with the same bones. The same bytes read as an archive must give rigs
// that export, or an error. Seeded with tests/data/fuzz/sluggers_model/ (blocks written by
// rigport: no public samples exist, sluggers.md §10). The block also goes through --base
// (writeModelOnto): onto itself unchanged, and with an edit.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "core/read_context.hpp"
#include "core/validate.hpp"
#include "core/source.hpp"
#include "downstream.hpp"
#include "formats/sluggers/sluggers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    rigport::ReadContext ctx;
    auto asset = rigport::sluggers::readArchive(*rigport::Source::fromBytes(std::vector<uint8_t>(data, data + size), "fuzz"), ctx);
    if (asset)
      for (const rigport::Rig& r : asset->rigs) {
        if (!rigport::validate(r)) std::abort();  // every check, as below
        rigport::fuzz::exerciseDownstream(r);
      }
  }
  auto rig = rigport::sluggers::readModel(std::span(data, size));
  if (!rig) return 0;
  if (!rigport::validate(*rig)) std::abort();  // the reader checks only the structure of its meshes
  {
    // --base (issue 28): the rig written onto the block it was read from changes no byte; an edit
    // (a bone turned, a vertex moved, the first vertex's weights on one bone) is written or refused,
    // never a crash, and the block keeps its size.
    const auto base = rigport::Source::fromBytes(std::vector<uint8_t>(data, data + size), "fuzz");
    rigport::ReadContext ctx;
    auto same = rigport::sluggers::writeModelOnto(*rig, *base, ctx);
    if (!same || !std::equal(same->begin(), same->end(), data, data + size) || same->size() != size) std::abort();
    rigport::Rig edited = *rig;
    if (!edited.skeleton.bones.empty()) edited.skeleton.bones[0].rotation = glm::quat(0.8f, 0.6f, 0.0f, 0.0f);
    for (rigport::Mesh& m : edited.meshes) {
      if (!m.positions.empty()) m.positions[0] += glm::vec3(0.01f);
      if (m.skinned() && m.influenceOffsets[1] > m.influenceOffsets[0]) m.influences[m.influenceOffsets[0]].weight *= 0.5f;
    }
    rigport::ReadContext again;
    auto onto = rigport::sluggers::writeModelOnto(edited, *base, again);
    if (onto && onto->size() != size) std::abort();
  }
  rigport::fuzz::exerciseDownstream(*rig);
  auto bytes = rigport::sluggers::writeModel(*rig);
  // The writer refuses what the format cannot hold (a rigid mesh on no bone, values beyond s16).
  if (!bytes) return 0;
  auto again = rigport::sluggers::readModel(*bytes);
  if (!again) std::abort();  // our own output must read back
  if (again->skeleton.bones.size() != rig->skeleton.bones.size()) std::abort();
  return 0;
}
