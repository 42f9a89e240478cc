// sampleKeys(): the value of a key set at any time, with the key set's own interpolation; what
// writers that resample (the RenderWare .anm writer) and round-trip checks need.
#pragma once

#include "core/rig.hpp"

namespace rigport {

// The value of `keys` at time `t` (seconds): `rest` when there are no keys (or times and values
// differ in count); the first/last value before/after the key range; exactly the stored value at a
// key time; between keys, per Keys::interpolation: Step holds the earlier value, Linear lerps (slerps
// along the shorter arc for quaternions), CubicSpline evaluates glTF's Hermite form (rig.hpp, Keys)
// and normalises quaternions as glTF clients do (Spec Appendix C). Times must be increasing.
float sampleKeys(const Keys<float>& keys, float t, float rest);
glm::vec3 sampleKeys(const Keys<glm::vec3>& keys, float t, const glm::vec3& rest);
glm::quat sampleKeys(const Keys<glm::quat>& keys, float t, const glm::quat& rest);
// The weights of `track` at time `t` (targetCount of them), by the same rules; `rest` (the mesh's
// default weights, or empty for zeros) when the track has no keys or its arrays disagree in size.
std::vector<float> sampleMorphWeights(const MorphWeightTrack& track, float t, const std::vector<float>& rest);

}  // namespace rigport
