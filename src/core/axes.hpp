// convertAxes() / toGltfAxes(): map a rig from its source's axes, handedness and units to glTF's
// (Y up, right-handed, metres). Every transform M becomes C·M·C⁻¹ and every vertex C·v, where C is
// a signed axis permutation times the unit scale; so a bone hierarchy, its inverse bind matrices,
// its animation keys and its meshes stay consistent with one another. When C is a mirror (one
// side left-handed), each triangle's winding is reversed too, so front faces stay in front.
#pragma once

#include <glm/glm.hpp>

#include "core/rig.hpp"

namespace rigport {

// The signed permutation (no scale) that takes `from` to glTF axes: its up to +Y, its forward to +Z
// (glTF's front, where viewers put the camera).
glm::mat3 basisToGltf(const AxisSystem& from);

// Converts in place from rig.provenance.axes to `to`, and records `to` there. A no-op when they
// are equal. Writers call it on a copy to put a rig into their format's axes.
void convertAxes(Rig& rig, const AxisSystem& to);

// convertAxes(rig, glTF's Y-up, right-handed metres).
void toGltfAxes(Rig& rig);

}  // namespace rigport
