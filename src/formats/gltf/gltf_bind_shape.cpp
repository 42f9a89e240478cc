// The bind-shape transform (Spec §3.7.3.1: glTF has no bind-shape matrix; "pre-multiply it into the
// mesh data or into the inverse bind matrices"). Exporters that have one pick the matrices: joint
// world × IBM is then the same B ≠ I for every joint (gltfpack and glTF-Transform `quantize` fold
// their dequantisation into it, assimp's FBX conversions a ×100 scale, Khronos' SimpleSkin a
// translation). A glTF client draws the same either way, but game formats take an IBM as the
// inverse of its joint's bind pose: B moves into the vertices, so every writer keeps the pose.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "formats/gltf/gltf_reader.hpp"

namespace rigport::gltf_in {
namespace {

// Joints agree on B when B_j·B_0⁻¹ moves no point of the model by more than this share of its size
// (float IBMs of a 16383-unit quantised mesh agree to about 1e-6 of it).
constexpr double kTolerance = 1e-4;

struct Spread {
  double size = 1.0;      // the model's size: the diagonal of its joints' bounds (1 m for a single joint at the origin)
  double radius = 1.0;    // how far from the origin the model reaches, about: its farthest joint plus its size
  double largest = 0.0;   // the largest displacement between the first joint's B and another's
  size_t worst = 0;       // that joint
};

// How far M − I moves a point within `radius` of the origin, at most.
double displacement(const glm::dmat4& m, double radius) {
  double linear = 0.0;
  for (int c = 0; c < 3; ++c) linear = std::max(linear, glm::length(glm::dvec3(m[c]) - glm::dvec3(glm::dmat4(1.0)[c])));
  const double d = linear * radius + glm::length(glm::dvec3(m[3]));
  return std::isfinite(d) ? d : std::numeric_limits<double>::infinity();
}

}  // namespace

std::optional<glm::mat4> takeBindShape(const std::vector<glm::mat4>& jointWorld, std::vector<glm::mat4>& ibm, size_t skin,
                                       const std::vector<std::string>& jointNames, Provenance& warnings) {
  if (jointWorld.empty()) return std::nullopt;
  Spread s;
  glm::dvec3 lo(std::numeric_limits<double>::max()), hi(std::numeric_limits<double>::lowest());
  double reach = 0.0;
  for (const glm::mat4& w : jointWorld) {
    const glm::dvec3 p(w[3]);
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
    reach = std::max(reach, glm::length(p));
  }
  const double diagonal = glm::length(hi - lo);
  s.size = diagonal > 1e-9 ? diagonal : std::max(reach, 1.0);
  s.radius = reach + s.size;
  const double tolerance = kTolerance * s.size;
  const glm::dmat4 shape = glm::dmat4(jointWorld[0]) * glm::dmat4(ibm[0]);
  const glm::dmat4 inverseShape = glm::inverse(shape);
  for (size_t j = 1; j < jointWorld.size(); ++j) {
    const double d = displacement(glm::dmat4(jointWorld[j]) * glm::dmat4(ibm[j]) * inverseShape, s.radius);
    if (d > s.largest) {
      s.largest = d;
      s.worst = j;
    }
  }
  if (s.largest > tolerance) {
    warnings.warn("bind-pose-not-rest-pose",
                  fmt::format("skins[{}]: joint world × inverse bind matrix differs between joints by up to {:.3g} m ('{}' against '{}', "
                              "model size {:.3g} m): the file's bind pose is not its rest pose; the inverse bind matrices are kept as they are",
                              skin, s.largest, jointNames[s.worst], jointNames[0], s.size));
    return std::nullopt;
  }
  if (displacement(shape, s.radius) <= tolerance) return std::nullopt;  // no bind shape: keep the matrices bit for bit
  std::vector<glm::mat4> rest(ibm.size());
  for (size_t j = 0; j < jointWorld.size(); ++j) {
    const std::optional<glm::mat4> inverse = inverseOfBindPose(jointWorld[j]);
    if (!inverse) return std::nullopt;  // a zero scale: B cannot be shared either; nothing better to do
    rest[j] = *inverse;
  }
  ibm = std::move(rest);
  const double scale = std::cbrt(std::fabs(glm::determinant(glm::dmat3(shape))));
  warnings.warn("bind-shape", fmt::format("skins[{}]: every joint's inverse bind matrix holds the same bind-shape transform (scale {:.6g}, "
                                          "translation {:.6g} {:.6g} {:.6g}), as gltfpack, glTF-Transform quantize and FBX converters write; "
                                          "it was moved into the mesh vertices, and each inverse bind matrix is now the inverse of its "
                                          "joint's rest pose",
                                          skin, scale, shape[3].x, shape[3].y, shape[3].z));
  return glm::mat4(shape);
}

}  // namespace rigport::gltf_in
