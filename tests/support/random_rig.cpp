#include "support/random_rig.hpp"

#include <string>

namespace rigport::test {

Skeleton randomSkeleton(std::mt19937& random, int count) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  Skeleton skeleton;
  for (int b = 0; b < count; ++b) {
    Bone bone;
    bone.name = "b" + std::to_string(b);
    bone.parent = b == 0 ? -1 : static_cast<int32_t>(random() % static_cast<uint32_t>(b));
    bone.translation = glm::vec3(unit(random), unit(random), unit(random)) * 2.0f;
    bone.rotation = glm::normalize(glm::quat(unit(random), unit(random), unit(random), unit(random)));
    bone.scale = glm::vec3(1.2f + unit(random) * 0.5f);
    skeleton.bones.push_back(bone);
  }
  return skeleton;
}

}  // namespace rigport::test
