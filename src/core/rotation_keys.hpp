// normalizeKeys()' rule for one rotation key set, on its own so the tests can hold its SIMD lanes
// to the scalar rule.
#pragma once

#include <vector>

#include <glm/gtc/quaternion.hpp>

namespace rigport {

// Each key made unit (glm::normalize), and with `flip` (not CUBICSPLINE) each key after the first
// negated where its dot with the key before, as written, is below 0. Bit for bit the same on every
// build, SIMD lanes or not (NormalizeKeys.RotationLanesMatchTheScalarRule).
void normalizeRotationKeys(std::vector<glm::quat>& values, bool flip);

}  // namespace rigport
