// BattleForge's coordinate system (battleforge_drs.md §4 "Coordinate system"): Y up and
// opposite-handed to glTF (the add-on's game-axes empty has det −1). rigport keeps mesh, bone and
// key data in raw game space and records these axes; core/axes.hpp then applies the one reflection
// the note asks for, negating Z (side +X, up +Y, forward −Z, left-handed), which also conjugates
// rotations by the reflection and reverses triangle winding. Which way units face is not known;
// −Z is what "negate Z" implies. Units: the game's, taken as metres.
#pragma once

#include <optional>

#include "core/axes.hpp"
#include "core/rig.hpp"

namespace rigport::battleforge {

inline const AxisSystem kBattleForgeAxes{AxisSystem::Up::Y, AxisSystem::Axis::NegZ, false, 1.0f};

// `rig` itself when it is already in BattleForge axes, else a converted copy kept in `storage`.
inline const Rig& inBattleForgeAxes(const Rig& rig, std::optional<Rig>& storage) {
  if (rig.provenance.axes == kBattleForgeAxes) return rig;
  storage = rig;
  convertAxes(*storage, kBattleForgeAxes);
  return *storage;
}

}  // namespace rigport::battleforge
