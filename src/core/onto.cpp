#include "core/onto.hpp"

#include <algorithm>
#include <cmath>

namespace rigport {

float largestCoordinate(const Rig& rig) {
  float largest = 1.0f;
  auto take = [&](const glm::vec3& p) { largest = std::max({largest, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)}); };
  for (const glm::mat4& m : rig.skeleton.worldBindMatrices()) take(glm::vec3(m[3]));
  for (const Mesh& mesh : rig.meshes)
    for (const glm::vec3& p : mesh.positions) take(p);
  return largest;
}

}  // namespace rigport
