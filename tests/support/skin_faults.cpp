#include "support/skin_faults.hpp"

#include <gtest/gtest.h>

#include <glm/gtc/matrix_transform.hpp>

namespace rigport::test {

Rig withInverseBindMoved(const Rig& rig, const std::string& bone, const glm::vec3& by) {
  Rig out = rig;
  const int32_t b = rig.skeleton.find(bone);
  if (b < 0) {
    ADD_FAILURE() << "no bone " << bone;
    return out;
  }
  Bone& moved = out.skeleton.bones[static_cast<size_t>(b)];
  const std::optional<glm::mat4> ibm =
      moved.inverseBind ? moved.inverseBind : inverseOfBindPose(rig.skeleton.worldBindMatrices()[static_cast<size_t>(b)]);
  if (!ibm) {
    ADD_FAILURE() << "bone " << bone << " has no inverse bind matrix";
    return out;
  }
  moved.inverseBind = glm::translate(glm::mat4(1.0f), by) * *ibm;
  return out;
}

}  // namespace rigport::test
