// resampleAnimations(): keys every channel of every bound track at the same times, as gltfpack and
// Blender's exporter do, for tools that drop tracks whose translation, rotation and scale key
// counts differ (assimp's COLLADA export). Times run from 0 to the clip's end (its duration or its
// last key, whichever is later) in steps of 1/fps, plus the end itself; values are interpolated
// the way glTF's LINEAR sampler does (lerp for translation and scale, shortest-path slerp for
// rotation), held before the first key and after the last, and a channel without keys holds the
// bone's rest value. Unbound tracks and scalar channels are left as they are.
#pragma once

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

// At most this many keys per channel: a typo like --resample 30000 on a long clip is a usage error,
// not gigabytes of keys.
inline constexpr size_t kMaxResampledKeys = 1u << 20;

[[nodiscard]] Status resampleAnimations(Rig& rig, float fps);

}  // namespace rigport
