// What the writers that write an edit into a copy of its original (`convert --to F --base ORIGINAL`)
// share: the size a length's rounding is taken in proportion to.
#pragma once

#include "core/rig.hpp"

namespace rigport {

// The largest coordinate of a bone origin or vertex (at least 1). Rigid meshes lie in their bones'
// spaces, so this, not a bounding box, sizes the model: lengths round in proportion to it.
float largestCoordinate(const Rig& rig);

}  // namespace rigport
