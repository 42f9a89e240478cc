#include "support/gltf_pose.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

namespace rigport::test {
namespace {

glm::mat4 nodeLocal(const tinygltf::Node& n) {
  if (n.matrix.size() == 16) {
    glm::mat4 m;
    for (int i = 0; i < 16; ++i) glm::value_ptr(m)[i] = static_cast<float>(n.matrix[static_cast<size_t>(i)]);
    return m;
  }
  glm::mat4 m(1.0f);
  if (n.translation.size() == 3) m = glm::translate(m, glm::vec3(n.translation[0], n.translation[1], n.translation[2]));
  if (n.rotation.size() == 4) {
    m *= glm::mat4_cast(glm::quat(static_cast<float>(n.rotation[3]), static_cast<float>(n.rotation[0]),
                                  static_cast<float>(n.rotation[1]), static_cast<float>(n.rotation[2])));
  }
  if (n.scale.size() == 3) m = glm::scale(m, glm::vec3(n.scale[0], n.scale[1], n.scale[2]));
  return m;
}

}  // namespace

std::vector<glm::mat4> nodeWorlds(const tinygltf::Model& m) {
  std::vector<int> parent(m.nodes.size(), -1);
  for (size_t n = 0; n < m.nodes.size(); ++n)
    for (int c : m.nodes[n].children) parent[static_cast<size_t>(c)] = static_cast<int>(n);
  std::vector<glm::mat4> world(m.nodes.size());
  for (size_t n = 0; n < m.nodes.size(); ++n) {
    glm::mat4 w(1.0f);
    for (int k = static_cast<int>(n); k >= 0; k = parent[static_cast<size_t>(k)]) w = nodeLocal(m.nodes[static_cast<size_t>(k)]) * w;
    world[n] = w;
  }
  return world;
}

float worstRestPoseError(const tinygltf::Model& m, size_t skin) {
  const std::vector<glm::mat4> world = nodeWorlds(m);
  const tinygltf::Skin& s = m.skins.at(skin);
  const tinygltf::Accessor& a = m.accessors.at(static_cast<size_t>(s.inverseBindMatrices));
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<size_t>(a.bufferView));
  const uint8_t* data = m.buffers.at(static_cast<size_t>(v.buffer)).data.data() + v.byteOffset + a.byteOffset;
  float worst = 0.0f;
  for (size_t j = 0; j < s.joints.size(); ++j) {
    glm::mat4 ibm;
    std::memcpy(&ibm[0][0], data + 64 * j, 64);
    const glm::mat4 id = world.at(static_cast<size_t>(s.joints[j])) * ibm;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) worst = std::max(worst, std::fabs(id[c][r] - (c == r ? 1.0f : 0.0f)));
  }
  return worst;
}

}  // namespace rigport::test
