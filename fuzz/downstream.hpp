// What every fuzz target does with a rig its reader accepted: the same path `rigport convert` and
// `rigport dump --json` take. A rig read from any bytes, once repairRig() has mended what it
// documents, must pass every check of validate() and export: a reader that returns a model the
// exporter would refuse (an index past the vertices, a bone out of range, a parent after its child)
// has missed an error it should have reported with the file offset, or damage it should have
// repaired, and the user would lose the whole model to it. A hostile file that reads must not crash the exporter
// or the JSON report either; clips are first bound to a fixed skeleton (the 6 HAnim nodes of
// tests/data/samples/renderware/synthetic_skin_rw36003.dff), as `convert --anim` does.
#pragma once

#include <cmath>
#include <cstdlib>

#include "core/asset.hpp"
#include "core/bind.hpp"
#include "core/repair.hpp"
#include "core/rig.hpp"
#include "core/validate.hpp"
#include "export/gltf.hpp"
#include "export/json_report.hpp"

namespace rigport::fuzz {

inline Rig sampleSkeleton() {
  Rig rig;
  rig.provenance.axes = AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::PosY, true, 1.0f};
  const struct { const char* name; int32_t parent; uint32_t id; } nodes[] = {
      {"Root", -1, 0}, {"Pelvis", 0, 1}, {"Spine", 1, 2}, {"Head", 2, 5}, {"Thigh", 1, 41}, {"Calf", 4, 42}};
  for (const auto& n : nodes) {
    Bone b;
    b.name = n.name;
    b.parent = n.parent;
    b.id = n.id;
    b.translation = {0.0f, 0.0f, 0.5f};
    rig.skeleton.bones.push_back(b);
  }
  return rig;
}

// What the CLI exports: the rig after repairRig(), which must then pass validate() and have the
// finite bone TRS the exporter also asks for. Returns it.
inline Rig requireValidAfterRepair(const Rig& rig) {
  Rig repaired = rig;
  if (!repairRig(repaired) || !validate(repaired)) std::abort();
  for (const Bone& b : repaired.skeleton.bones) {
    for (int c = 0; c < 3; ++c)
      if (!std::isfinite(b.translation[c]) || !std::isfinite(b.scale[c])) std::abort();
  }
  return repaired;
}

inline void exerciseDownstream(const Rig& rig) {
  (void)exportGlb(rig);  // unrepaired, as a library caller may: refused or exported, never a crash
  // Repaired, it exports: every other refusal of the exporter is damage a reader should have
  // reported or repairRig() mended. glTF's own limits excepted (4 GiB, 65536 joints).
  const Rig repaired = requireValidAfterRepair(rig);
  const auto glb = exportGlb(repaired);
  if (!glb && glb.error().code != ErrorCode::TooLarge && repaired.skeleton.jointList().size() <= 65536) std::abort();
  // The CLI dumps with the replace handler; any other exception here is a bug.
  (void)rigToJson(rig, JsonDetail::Full).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// Clips with no skeleton: bound (by position too, whatever their node count) onto the fixed one.
inline void exerciseDownstream(const ClipSet& clips) {
  Rig bound = sampleSkeleton();
  if (!bindAnimations(bound, clips.animations, BindOptions{.positionAcrossCounts = true})) return;
  exerciseDownstream(bound);
}

}  // namespace rigport::fuzz
