// normalizeKeys()' rule for one rotation key set, on its own so the tests can hold its SIMD lanes
// to the scalar rule.
#pragma once

#include <vector>

#include <glm/gtc/quaternion.hpp>

namespace rigport {

class AxisChange;  // core/axes.hpp

// Each key made unit (glm::normalize), and with `flip` (not CUBICSPLINE) each key after the first
// negated where its dot with the key before, as written, is below 0. Bit for bit the same on every
// build, SIMD lanes or not (NormalizeKeys.RotationLanesMatchTheScalarRule). With `turn`, each key
// is first turn->rotation() of itself, in the same pass.
void normalizeRotationKeys(std::vector<glm::quat>& values, bool flip, const AxisChange* turn = nullptr);

}  // namespace rigport
