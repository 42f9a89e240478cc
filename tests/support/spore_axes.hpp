// What the Spore tests (rw4_spore_test, rw4_spore_mesh_test) build creatures from: Spore's axes, an
// independent statement of how they turn into glTF's, and a bone in one line.
#pragma once

#include <cstdint>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "core/rig.hpp"

namespace rigport::test {

inline const AxisSystem kSporeAxes{AxisSystem::Up::Z, AxisSystem::Axis::NegY, true, 1.0f};

// Spore's Z up, −Y forward into glTF's Y up, +Z forward: (x, y, z) -> (x, z, −y). Written out here,
// not taken from core/axes, so that the tests check the exporter against an independent rule.
inline glm::vec3 sporeToGltf(const glm::vec3& p) { return {p.x, p.z, -p.y}; }

inline Bone bone(const char* name, int32_t parent, glm::vec3 t, glm::quat r = glm::quat(1, 0, 0, 0)) {
  Bone b;
  b.name = name;
  b.parent = parent;
  b.translation = t;
  b.rotation = r;
  return b;
}

}  // namespace rigport::test
