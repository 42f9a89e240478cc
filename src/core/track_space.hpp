// makeAbsolute(): turns RelativeToBind tracks into Absolute ones, the only kind glTF can animate.
#pragma once

#include "core/rig.hpp"

namespace rigport {

// Rewrites every bound RelativeToBind track of `anim` to Absolute with the composition documented
// at TrackSpace (local = B·D): T = T_b + R_b·(S_b ⊙ T_d), R = R_b·R_d, S = S_b ⊙ S_d, where B is the
// track's bone's bind pose in `skeleton`. Each map is affine in the key values, so it commutes with
// STEP and LINEAR interpolation (and R_b·slerp(a, b) = slerp(R_b·a, R_b·b)); CUBICSPLINE tangents
// go through the map's linear part. The converted keys therefore describe the same motion at every
// time, not only at the keys. Rotation signs are kept (a cubic spline depends on them).
// Unbound tracks (bone -1) are left as they are: there is no bind pose to apply.
void makeAbsolute(Animation& anim, const Skeleton& skeleton);
// makeAbsolute() of one track.
void makeAbsolute(BoneTrack& track, const Skeleton& skeleton);
// Whether makeAbsolute() would change `track`.
bool relativeToBind(const BoneTrack& track, const Skeleton& skeleton);

}  // namespace rigport
