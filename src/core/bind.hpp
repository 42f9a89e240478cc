// bindAnimations(): attaches animations read from one file (an .anm, .ifp, .ska) to the skeleton
// of another. Each track's BoneRef is resolved in this order: id, name hash, exact name,
// name compared without case and surrounding spaces, then position. Tracks that match no bone
// are dropped with a warning naming them; nothing is dropped silently.
#pragma once

#include <vector>

#include "core/rig.hpp"

namespace rigport {

void bindAnimations(Rig& target, std::vector<Animation> animations);

// Sorts keys by time, merges equal times (keeping the last key, with its tangents), normalises
// quaternions and, except in CUBICSPLINE key sets, makes consecutive ones lie in one hemisphere:
// what glTF's samplers need.
void normalizeKeys(Animation& anim);

}  // namespace rigport
