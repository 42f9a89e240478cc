// A glTF skeleton as a client sees it: node world matrices from the written TRS (or matrix), and how
// far each skin joint's world × inverse bind matrix is from the identity (the rest pose is the bind
// pose when it is 0).
#pragma once

#include <vector>

#include <glm/glm.hpp>
#include <tiny_gltf.h>

namespace rigport::test {

// World matrix of every node (parents' locals times its own).
std::vector<glm::mat4> nodeWorlds(const tinygltf::Model& m);
// Largest |joint world × inverse bind − identity| over the joints of skin `skin`.
float worstRestPoseError(const tinygltf::Model& m, size_t skin = 0);

}  // namespace rigport::test
