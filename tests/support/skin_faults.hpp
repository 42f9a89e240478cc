// Faults a writer could leave in a skin, made on a copy of a rig, for tests that a comparison or the
// read-back check sees them.
#pragma once

#include <string>

#include <glm/glm.hpp>

#include "core/rig.hpp"

namespace rigport::test {

// `rig` with bone `bone`'s inverse bind matrix (its own, or the inverse of its world bind pose)
// moved by `by`, as a writer that garbles a skin's matrices leaves it: the joints stay where they
// were, the vertices the bone carries move. Fails the test (and returns the copy unchanged) when the
// bone is missing or its bind pose has no inverse.
Rig withInverseBindMoved(const Rig& rig, const std::string& bone, const glm::vec3& by);

}  // namespace rigport::test
