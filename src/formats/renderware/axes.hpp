// RenderWare's coordinate system (renderware.md §1.9): Z up, right-handed; GTA units are metres.
// GTA characters face +Y (peds walk along +Y in their own frame), which glTF's +Z front becomes.
// Readers record it as the rig's axes; writers put a rig from elsewhere into it first.
#pragma once

#include <optional>

#include "core/axes.hpp"
#include "core/rig.hpp"

namespace rigport::renderware {

inline const AxisSystem kRenderWareAxes{AxisSystem::Up::Z, AxisSystem::Axis::PosY, true, 1.0f};

// `rig` itself when it is already in RenderWare axes, else a converted copy kept in `storage`.
inline const Rig& inRenderWareAxes(const Rig& rig, std::optional<Rig>& storage) {
  if (rig.provenance.axes == kRenderWareAxes) return rig;
  storage = rig;
  convertAxes(*storage, kRenderWareAxes);
  return *storage;
}

}  // namespace rigport::renderware
