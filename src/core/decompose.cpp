#include "core/decompose.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/quaternion.hpp>

namespace rigport {

float decomposeTrs(const glm::mat4& m, Bone& bone) {
  bone.translation = glm::vec3(m[3]);
  const glm::vec3 c0(m[0]), c1(m[1]), c2(m[2]);
  glm::vec3 s(glm::length(c0), glm::length(c1), glm::length(c2));
  float shear = 0.0f;
  if (s.x > 0.0f && s.y > 0.0f && s.z > 0.0f) {
    shear = std::max({std::fabs(glm::dot(c0, c1)) / (s.x * s.y), std::fabs(glm::dot(c0, c2)) / (s.x * s.z),
                      std::fabs(glm::dot(c1, c2)) / (s.y * s.z)});
  }
  glm::vec3 x = s.x > 1e-12f ? c0 / s.x : glm::vec3(1, 0, 0);
  if (!(s.x > 1e-12f)) s.x = 1.0f;
  glm::vec3 y = c1 - glm::dot(c1, x) * x;
  const float ly = glm::length(y);
  if (ly > 1e-12f) {
    y /= ly;
  } else {
    y = std::fabs(x.x) < 0.9f ? glm::normalize(glm::cross(x, glm::vec3(1, 0, 0))) : glm::normalize(glm::cross(x, glm::vec3(0, 1, 0)));
    if (!(s.y > 1e-12f)) s.y = 1.0f;
  }
  const glm::vec3 z = glm::cross(x, y);
  if (!(s.z > 1e-12f)) s.z = 1.0f;
  if (glm::dot(z, c2) < 0.0f) s.z = -s.z;
  const glm::quat q = glm::quat_cast(glm::mat3(x, y, z));
  const float len = glm::length(q);
  bone.rotation = (std::isfinite(len) && len > 0.0f) ? q / len : glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
  bone.scale = s;
  return shear;
}

}  // namespace rigport
