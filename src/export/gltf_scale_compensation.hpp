// Segment scale compensation in glTF (Skeleton::inheritScale false: Spore). glTF passes a node's
// whole matrix to its children; the game keeps the parent's scale off them:
// W_c = W_p · T_c · S_p⁻¹ · R_c · S_c. Between a scaled bone p and each child c the exporter puts a
// non-joint node K (extras.rigportScaleCompensation) carrying c's translation and the scale S_p⁻¹;
// c's node keeps R_c and S_c. Then a client's W_K · R_c · S_c = W_p · T_c · S_p⁻¹ · R_c · S_c: the
// game's world, exactly at rest. Where S_p is keyed, K's scale channel is 1/S_p(t): exact for STEP
// keys; 1/x is not linear, so between LINEAR keys it is baked at extra keys, each interval cut until
// the reciprocal's linear interpolation is within kInverseScaleTolerance of 1/S_p(t), relative
// (CUBICSPLINE parents are cut by the same count, at least kCubicSubdivisions, not bounded).
// rigport's glTF reader folds K back into c.
#pragma once

#include <optional>
#include <vector>

#include "core/rig.hpp"

namespace rigport::gltf {

inline constexpr double kInverseScaleTolerance = 1e-6;
inline constexpr size_t kCubicSubdivisions = 8;
inline constexpr size_t kMaxSubdivisions = 1024;  // per key interval; a scale through 0 has no finite inverse

// Per bone: whether it gets a compensation node, i.e. the skeleton does not inherit scale and its
// parent's scale is not 1 at rest or is keyed in one of `animations`.
std::vector<bool> compensatedBones(const Skeleton& skeleton, const std::vector<Animation>& animations);

// The scale keys of K under a parent keyed with `parentScale` (absolute keys): 1/S_p(t).
Keys<glm::vec3> inverseScaleKeys(const Keys<glm::vec3>& parentScale);

}  // namespace rigport::gltf
