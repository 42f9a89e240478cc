// validate(): the rig model's invariants, checked before every export (STYLE.md "Always validate").
// Each failure names the element (bone, mesh, vertex, track) it is about.
#pragma once

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

// Parents precede children, influences and tracks name existing bones, weights are finite and
// non-negative, indices address existing vertices, key times are finite and matched by values.
Status validate(const Rig& rig);

}  // namespace rigport
