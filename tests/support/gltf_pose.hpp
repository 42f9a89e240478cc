// A glTF as a client poses it (glTF 2.0 §3.7, §3.11): node worlds from the written TRS, the skin's
// inverse bind matrices, skinned vertices as jointWorld × inverse bind × position weighted, and
// an animation's channels sampled at a time (STEP and LINEAR, rotations slerped). For tests that
// check what a viewer shows, not what rigport meant to write.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <tiny_gltf.h>

namespace rigport::test {

// World matrix of every node (parents' locals times its own).
std::vector<glm::mat4> nodeWorlds(const tinygltf::Model& m);
// Largest |joint world × inverse bind − identity| over the joints of skin `skin`.
float worstRestPoseError(const tinygltf::Model& m, size_t skin = 0);

// A .glb as tinygltf reads it, images kept as their stored bytes.
tinygltf::Model loadGlbModel(const std::string& path);

// A node's local TRS, as written or as an animation sets it.
struct NodeTrs {
  glm::vec3 t{0.0f};
  glm::quat r{1.0f, 0.0f, 0.0f, 0.0f};
  glm::vec3 s{1.0f};
  glm::mat4 matrix() const;
};

class GltfPose {
 public:
  explicit GltfPose(const tinygltf::Model& model);
  // The written TRS of every node, then `animation`'s channels at `seconds` (-1: none).
  void pose(int animation = -1, float seconds = 0.0f);
  int node(const std::string& name) const;  // -1 when none is so named
  glm::mat4 world(int node) const;
  glm::vec3 position(int node) const { return glm::vec3(world(node)[3]); }
  std::vector<glm::mat4> inverseBinds(int skin = 0) const;
  // Every vertex of every primitive of the skinned mesh nodes (the unskinned ones by node world).
  std::vector<glm::vec3> vertices() const;
  int parent(int node) const { return parents_.at(static_cast<size_t>(node)); }

 private:
  const tinygltf::Model& model_;
  std::vector<int> parents_;
  std::vector<NodeTrs> local_;
};

// The elements of an accessor as floats (normalised integers scaled to [0, 1], indices as counts).
std::vector<std::vector<float>> accessorFloats(const tinygltf::Model& model, int accessor);

}  // namespace rigport::test
