// What every fuzz target does with a rig its reader accepted: the same path `rigport convert` and
// `rigport dump --json` take. A hostile file that reads must not crash the exporter or the JSON
// report either; clips are first bound to a fixed skeleton (the 6 HAnim nodes of
// tests/data/samples/renderware/synthetic_skin_rw36003.dff), as `convert --anim` does.
#pragma once

#include "core/asset.hpp"
#include "core/bind.hpp"
#include "core/rig.hpp"
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

inline void exerciseDownstream(const Rig& rig) {
  (void)exportGlb(rig);
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
