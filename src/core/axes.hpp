// convertAxes() / toGltfAxes(): map a rig from its source's axes, handedness and units to glTF's
// (Y up, right-handed, metres). Every transform M becomes C·M·C⁻¹ and every vertex C·v, where C is
// a signed axis permutation times the unit scale; so a bone hierarchy, its inverse bind matrices,
// its animation keys and its meshes stay consistent with one another. When C is a mirror (one
// side left-handed), each triangle's winding is reversed too, so front faces stay in front.
#pragma once

#include <optional>

#include <glm/glm.hpp>

#include "core/quat_lanes.hpp"
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

// What convertAxes() does to one vertex: a position becomes s·(P·v), a normal P·v, each computed
// as glm computes them, so that a caller mapping vertices itself gets convertAxes()'s bits.
struct VertexMap {
  glm::mat3 p;  // a signed axis permutation
  float s;      // metres per unit, source over target
  glm::vec3 point(const glm::vec3& v) const { return s * (p * v); }
  glm::vec3 direction(const glm::vec3& v) const { return p * v; }
};

// map.point() and map.direction() of `n` vertices from `in` into `out` (`in` itself, or an array of n
// that does not overlap it), bit for bit, four at a time in SSE2 lanes where the build has them.
void mapPoints(const VertexMap& map, const glm::vec3* in, glm::vec3* out, size_t n);
void mapDirections(const VertexMap& map, const glm::vec3* in, glm::vec3* out, size_t n);

// convertAxes(), except that the meshes' positions and normals (not their morph deltas) are left in the source's axes for
// the caller to map with the VertexMap returned, in a pass over them it makes anyway (the glTF
// exporter's bounds and unit-normal passes): until then the rig is half converted. nullopt, and
// nothing done, when the axes are equal.
std::optional<VertexMap> convertAxesLeavingVertices(Rig& rig, const AxisSystem& to);

// The change convertAxes() makes, from one axis system to another: every transform M becomes
// C·M·C⁻¹ and every vertex C·v (C = s·P).
class AxisChange {
 public:
  AxisChange(const AxisSystem& from, const AxisSystem& to);
  VertexMap vertices() const { return {p_, s_}; }
  bool mirrors() const { return glm::determinant(p_) < 0.0f; }
  glm::vec3 point(const glm::vec3& v) const { return vertices().point(v); }
  glm::vec3 scale(const glm::vec3& v) const { return absP_ * v; }
  glm::quat rotationTangent(const glm::quat& q) const { return pq_ * q * glm::conjugate(pq_); }
  glm::quat rotation(const glm::quat& q) const { return glm::normalize(rotationTangent(q)); }
#if RIGPORT_SSE2_LANES
  // rotation() of four keys in SSE2 lanes, bit for bit (Axes.RotationLanesMatchTheScalarRule).
  lanes::Conjugation rotationLanes() const { return lanes::Conjugation(pq_); }
#endif
  glm::mat4 matrix(const glm::mat4& m) const;
  // What convertAxes() does to every key (values and tangents) of one clip.
  void convertKeys(Animation& anim) const;
  // The same for one track; `rotationValues` false leaves its rotation values for a pass over them
  // that comes anyway (normalizeTrack(track, this)).
  void convertTrack(BoneTrack& track, bool rotationValues = true) const;

 private:
  // rotation() of every key, four at a time in lanes (rotationLanes()) where the build has them.
  void rotations(std::vector<glm::quat>& keys) const;

  glm::mat3 p_;     // a signed axis permutation
  glm::mat3 absP_;  // for scale vectors: a signed permutation moves components, never negates them
  // P·R·Pᵀ = P'·R·P'ᵀ for the proper rotation P' = det(P)·P, i.e. the quaternion conjugation
  // q -> p'·q·p'⁻¹: linear in q, so it keeps each key's sign (a cubic spline depends on the signs,
  // rig.hpp Keys) and maps tangents by the same rule.
  glm::quat pq_;
  float s_;  // metres per unit, source over target
};

// convertAxesLeavingVertices(), except that the animations' keys are left in the source's axes
// too, for the caller to convert clip by clip (AxisChange::convertKeys, or convertTrack track by
// track) when it gets to each: the glTF exporter, whose passes over a clip then find its keys in
// cache, where a pass over every clip first was a sweep of its own over the whole model (a
// 1,000-clip IFP's 34 MB).
std::optional<AxisChange> convertAxesLeavingVerticesAndKeys(Rig& rig, const AxisSystem& to);

}  // namespace rigport
