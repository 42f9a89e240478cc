#include "core/axes.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include <glm/gtc/quaternion.hpp>

#include "core/quat_lanes.hpp"
#include "core/vertex_lanes.hpp"

namespace rigport {

namespace {

glm::vec3 unit(AxisSystem::Axis a) {
  switch (a) {
    case AxisSystem::Axis::PosX: return {1, 0, 0};
    case AxisSystem::Axis::NegX: return {-1, 0, 0};
    case AxisSystem::Axis::PosY: return {0, 1, 0};
    case AxisSystem::Axis::NegY: return {0, -1, 0};
    case AxisSystem::Axis::PosZ: return {0, 0, 1};
    case AxisSystem::Axis::NegZ: return {0, 0, -1};
  }
  return {0, 0, 1};
}

}  // namespace

glm::mat3 basisToGltf(const AxisSystem& from) {
  // The source vectors that become glTF's +X, +Y (up) and +Z (forward): up and forward are given;
  // the side axis completes a right-handed basis, or a left-handed one (a mirror) for a
  // left-handed source. Each is a signed unit axis, so the inverse is the transpose.
  const glm::vec3 up = from.up == AxisSystem::Up::Z ? glm::vec3(0, 0, 1) : glm::vec3(0, 1, 0);
  const glm::vec3 forward = unit(from.forward);
  const glm::vec3 side = glm::cross(up, forward) * (from.rightHanded ? 1.0f : -1.0f);
  return glm::transpose(glm::mat3(side, up, forward));
}

AxisChange::AxisChange(const AxisSystem& from, const AxisSystem& to) {
  // from -> glTF -> to; each basis is a signed permutation, so its inverse is its transpose.
  p_ = glm::transpose(basisToGltf(to)) * basisToGltf(from);
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) absP_[c][r] = std::fabs(p_[c][r]);
  pq_ = glm::normalize(glm::quat_cast(p_ * glm::determinant(p_)));
  s_ = from.metresPerUnit / to.metresPerUnit;
}

glm::mat4 AxisChange::matrix(const glm::mat4& m) const {
  glm::mat4 c(p_ * s_);
  glm::mat4 ci(glm::transpose(p_) * (1.0f / s_));
  c[3][3] = 1.0f;
  ci[3][3] = 1.0f;
  return c * m * ci;
}

namespace {

glm::vec3 vec3(const nlohmann::json& a) { return {a.at(0).get<float>(), a.at(1).get<float>(), a.at(2).get<float>()}; }

// A reader's "framePose" extras (core/rig.hpp) is a pose like the bone's own, so it moves with it.
void convertFramePose(const AxisChange& b, nlohmann::json& extras) {
  if (!extras.is_object() || !extras.contains("framePose")) return;
  nlohmann::json& pose = extras["framePose"];
  const glm::vec3 t = b.point(vec3(pose.at("translation")));
  const nlohmann::json& r = pose.at("rotation");
  const glm::quat q = b.rotation(glm::quat(r.at(3).get<float>(), r.at(0).get<float>(), r.at(1).get<float>(), r.at(2).get<float>()));
  const glm::vec3 s = b.scale(vec3(pose.at("scale")));
  pose = {{"translation", {t.x, t.y, t.z}}, {"rotation", {q.x, q.y, q.z, q.w}}, {"scale", {s.x, s.y, s.z}}};
}

}  // namespace

void AxisChange::rotations(std::vector<glm::quat>& keys) const {
  size_t k = 0;
#if RIGPORT_SSE2_LANES
  const lanes::Conjugation turn = rotationLanes();
  for (; k + 4 <= keys.size(); k += 4) lanes::store(turn(lanes::load(keys.data() + k)), keys.data() + k);
#endif
  for (; k < keys.size(); ++k) keys[k] = rotation(keys[k]);
}

void AxisChange::convertKeys(Animation& anim) const {
  for (BoneTrack& t : anim.tracks) convertTrack(t);
}

void AxisChange::convertTrack(BoneTrack& t, bool rotationValues) const {
  // The maps held in locals: as far as the compiler knows, a store to a key's floats could change
  // this object's, which it would then load again at every key (a fifth more instructions).
  const AxisChange c = *this;
  // Tangents are derivatives of the values: the linear part of each map applies (point() and
  // scale() have no offset; rotations are conjugated, rotationTangent()). A RelativeToBind delta
  // D converts like an absolute value, since C·(B·D)·C⁻¹ = (C·B·C⁻¹)·(C·D·C⁻¹).
  for (glm::vec3& v : t.translation.values) v = c.point(v);
  for (glm::vec3& v : t.translation.inTangents) v = c.point(v);
  for (glm::vec3& v : t.translation.outTangents) v = c.point(v);
  if (rotationValues) c.rotations(t.rotation.values);
  for (glm::quat& q : t.rotation.inTangents) q = c.rotationTangent(q);
  for (glm::quat& q : t.rotation.outTangents) q = c.rotationTangent(q);
  for (glm::vec3& v : t.scale.values) v = c.scale(v);
  for (glm::vec3& v : t.scale.inTangents) v = c.scale(v);
  for (glm::vec3& v : t.scale.outTangents) v = c.scale(v);
}

std::optional<AxisChange> convertAxesLeavingVerticesAndKeys(Rig& rig, const AxisSystem& to) {
  const AxisSystem& from = rig.provenance.axes;
  if (from == to) return std::nullopt;
  const AxisChange b(from, to);
  for (Bone& bone : rig.skeleton.bones) {
    convertFramePose(b, bone.extras);
    bone.translation = b.point(bone.translation);
    bone.rotation = b.rotation(bone.rotation);
    bone.scale = b.scale(bone.scale);
    if (bone.inverseBind) {
      glm::mat4 m = b.matrix(*bone.inverseBind);
      m[0][3] = m[1][3] = m[2][3] = 0.0f;  // the glTF validator demands an exact last row
      m[3][3] = 1.0f;
      bone.inverseBind = m;
    }
  }
  // Morph deltas are vectors (rig.hpp, MorphTarget): turned and scaled like a position, which
  // point() does without an offset; normal deltas turn like normals. No exporter pass maps them.
  const VertexMap deltas = b.vertices();
  for (Mesh& mesh : rig.meshes) {
    for (MorphTarget& target : mesh.morphTargets) {
      for (glm::vec3& d : target.positionDeltas) d = deltas.point(d);
      for (glm::vec3& d : target.normalDeltas) d = deltas.direction(d);
    }
  }
  // A mirror (a left-handed source, e.g. BattleForge) turns every triangle inside out: reversing
  // each triangle's winding keeps its front face facing out.
  if (b.mirrors()) {
    for (Mesh& mesh : rig.meshes) {
      for (size_t i = 0; i + 2 < mesh.indices.size(); i += 3) std::swap(mesh.indices[i + 1], mesh.indices[i + 2]);
    }
  }
  rig.provenance.axes = to;
  return b;
}

std::optional<VertexMap> convertAxesLeavingVertices(Rig& rig, const AxisSystem& to) {
  const std::optional<AxisChange> change = convertAxesLeavingVerticesAndKeys(rig, to);
  if (!change) return std::nullopt;
  for (Animation& anim : rig.animations) change->convertKeys(anim);
  return change->vertices();
}

namespace {

template <bool kPoint>
void mapVertices(const VertexMap& map, const glm::vec3* in, glm::vec3* out, size_t n) {
  size_t v = 0;
#if RIGPORT_SSE2_LANES
  if (n >= 4) {
    const lanes::MapLanes lanes(map);
    const float* from = &in[0].x;
    float* to = &out[0].x;
    for (; v + 4 <= n; v += 4) {
      __m128 x, y, z, q[3];
      lanes::splitXyz(_mm_loadu_ps(from + 3 * v), _mm_loadu_ps(from + 3 * v + 4), _mm_loadu_ps(from + 3 * v + 8), x, y, z);
      if constexpr (kPoint) lanes.point(x, y, z);
      else lanes.direction(x, y, z);
      lanes::joinXyz(x, y, z, q);
      for (int k = 0; k < 3; ++k) _mm_storeu_ps(to + 3 * v + 4 * k, q[k]);
    }
  }
#endif
  for (; v < n; ++v) out[v] = kPoint ? map.point(in[v]) : map.direction(in[v]);
}

}  // namespace

void mapPoints(const VertexMap& map, const glm::vec3* in, glm::vec3* out, size_t n) { mapVertices<true>(map, in, out, n); }
void mapDirections(const VertexMap& map, const glm::vec3* in, glm::vec3* out, size_t n) { mapVertices<false>(map, in, out, n); }

void convertAxes(Rig& rig, const AxisSystem& to) {
  const std::optional<VertexMap> map = convertAxesLeavingVertices(rig, to);
  if (!map) return;
  for (Mesh& mesh : rig.meshes) {
    mapPoints(*map, mesh.positions.data(), mesh.positions.data(), mesh.positions.size());
    mapDirections(*map, mesh.normals.data(), mesh.normals.data(), mesh.normals.size());
  }
}

void toGltfAxes(Rig& rig) { convertAxes(rig, AxisSystem{}); }

}  // namespace rigport
