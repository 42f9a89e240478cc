#include "core/axes.hpp"

#include <cmath>

#include <glm/gtc/quaternion.hpp>

namespace rigport {

glm::mat3 basisToGltf(const AxisSystem& from) {
  // Columns are the images of the source x, y, z axes (glm is column-major).
  glm::mat3 p(1.0f);
  if (from.up == AxisSystem::Up::Z) {
    // Z up, right-handed (RenderWare, Blender): x -> x, y -> -z, z -> y.
    p = glm::mat3(glm::vec3(1, 0, 0), glm::vec3(0, 0, -1), glm::vec3(0, 1, 0));
    // Z up, left-handed (x forward, y right): x -> x, y -> z, z -> y; the odd permutation flips handedness.
    if (!from.rightHanded) p = glm::mat3(glm::vec3(1, 0, 0), glm::vec3(0, 0, 1), glm::vec3(0, 1, 0));
  } else if (!from.rightHanded) {
    // Y up, left-handed (Direct3D): mirror z.
    p = glm::mat3(glm::vec3(1, 0, 0), glm::vec3(0, 1, 0), glm::vec3(0, 0, -1));
  }
  return p;
}

namespace {

struct Basis {
  glm::mat3 p;
  glm::mat3 pt;
  glm::mat3 absP;  // for scale vectors: a signed permutation moves components, never negates them
  // P·R·Pᵀ = P'·R·P'ᵀ for the proper rotation P' = det(P)·P, i.e. the quaternion conjugation
  // q -> p'·q·p'⁻¹: linear in q, so it keeps each key's sign (a cubic spline depends on the signs,
  // rig.hpp Keys) and maps tangents by the same rule.
  glm::quat pq;
  float s;

  glm::vec3 point(const glm::vec3& v) const { return s * (p * v); }
  glm::vec3 direction(const glm::vec3& v) const { return p * v; }
  glm::vec3 scale(const glm::vec3& v) const { return absP * v; }
  glm::quat rotationTangent(const glm::quat& q) const { return pq * q * glm::conjugate(pq); }
  glm::quat rotation(const glm::quat& q) const { return glm::normalize(rotationTangent(q)); }
  glm::mat4 matrix(const glm::mat4& m) const {
    glm::mat4 c(p * s);
    glm::mat4 ci(pt * (1.0f / s));
    c[3][3] = 1.0f;
    ci[3][3] = 1.0f;
    return c * m * ci;
  }
};

}  // namespace

void convertAxes(Rig& rig, const AxisSystem& to) {
  const AxisSystem& from = rig.provenance.axes;
  if (from == to) return;
  Basis b;
  // from -> glTF -> to; each basis is a signed permutation, so its inverse is its transpose.
  b.p = glm::transpose(basisToGltf(to)) * basisToGltf(from);
  b.pt = glm::transpose(b.p);
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) b.absP[c][r] = std::fabs(b.p[c][r]);
  b.pq = glm::normalize(glm::quat_cast(b.p * glm::determinant(b.p)));
  b.s = from.metresPerUnit / to.metresPerUnit;

  for (Bone& bone : rig.skeleton.bones) {
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
  for (Mesh& mesh : rig.meshes) {
    for (glm::vec3& v : mesh.positions) v = b.point(v);
    for (glm::vec3& n : mesh.normals) n = b.direction(n);
  }
  for (Animation& anim : rig.animations) {
    for (BoneTrack& t : anim.tracks) {
      // Tangents are derivatives of the values: the linear part of each map applies (point() and
      // scale() have no offset; rotations are conjugated, rotationTangent()). A RelativeToBind delta
      // D converts like an absolute value, since C·(B·D)·C⁻¹ = (C·B·C⁻¹)·(C·D·C⁻¹).
      for (glm::vec3& v : t.translation.values) v = b.point(v);
      for (glm::vec3& v : t.translation.inTangents) v = b.point(v);
      for (glm::vec3& v : t.translation.outTangents) v = b.point(v);
      for (glm::quat& q : t.rotation.values) q = b.rotation(q);
      for (glm::quat& q : t.rotation.inTangents) q = b.rotationTangent(q);
      for (glm::quat& q : t.rotation.outTangents) q = b.rotationTangent(q);
      for (glm::vec3& v : t.scale.values) v = b.scale(v);
      for (glm::vec3& v : t.scale.inTangents) v = b.scale(v);
      for (glm::vec3& v : t.scale.outTangents) v = b.scale(v);
    }
  }
  rig.provenance.axes = to;
}

void toGltfAxes(Rig& rig) { convertAxes(rig, AxisSystem{}); }

}  // namespace rigport
