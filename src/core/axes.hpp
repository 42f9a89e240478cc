// toGltfAxes(): maps a rig from its source's axes, handedness and units to glTF's
// (Y up, right-handed, metres). Every transform M becomes C·M·C⁻¹ and every vertex C·v, where C is
// a signed axis permutation times the unit scale; so a bone hierarchy, its inverse bind matrices,
// its animation keys and its meshes stay consistent with one another.
#pragma once

#include <glm/glm.hpp>

#include "core/rig.hpp"

namespace rigport {

// The signed permutation (no scale) that takes `from` to glTF axes.
glm::mat3 basisToGltf(const AxisSystem& from);

// Converts in place and sets rig.provenance.axes to glTF's. A no-op for a rig already in glTF axes.
void toGltfAxes(Rig& rig);

}  // namespace rigport
