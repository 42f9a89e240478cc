// bindAnimations(): attaches animations read from one file (an .anm, .ifp, .ska) to the skeleton
// of another. Each track's BoneRef is resolved in this order: id, name hash, exact name,
// name compared without case and surrounding spaces, the aliases the same two ways, then position. Tracks that match no bone
// are dropped with a warning naming them; nothing is dropped silently.
#pragma once

#include <vector>

#include "core/rig.hpp"

namespace rigport {

void bindAnimations(Rig& target, std::vector<Animation> animations);

// Sorts keys by time, merges equal times (keeping the last), makes consecutive quaternions lie
// in one hemisphere and normalises them: what glTF's LINEAR samplers need.
void normalizeKeys(Animation& anim);

}  // namespace rigport
