#include "support/gltf_pose.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

namespace rigport::test {

tinygltf::Model loadGlbModel(const std::string& path) {
  tinygltf::Model model;
  tinygltf::TinyGLTF loader;
  // Images kept as stored (PNG bytes): rigport builds tinygltf without stb_image.
  loader.SetImageLoader([](tinygltf::Image*, int, std::string*, std::string*, int, int, const unsigned char*, int, void*) { return true; },
                        nullptr);
  std::string err, warn;
  EXPECT_TRUE(loader.LoadBinaryFromFile(&model, &err, &warn, path)) << path << ": " << err;
  return model;
}

glm::mat4 NodeTrs::matrix() const { return glm::scale(glm::translate(glm::mat4(1.0f), t) * glm::mat4_cast(r), s); }

std::vector<std::vector<float>> accessorFloats(const tinygltf::Model& m, int index) {
  const tinygltf::Accessor& a = m.accessors.at(static_cast<size_t>(index));
  const tinygltf::BufferView& view = m.bufferViews.at(static_cast<size_t>(a.bufferView));
  const std::vector<unsigned char>& data = m.buffers.at(static_cast<size_t>(view.buffer)).data;
  const int comps = tinygltf::GetNumComponentsInType(static_cast<uint32_t>(a.type));
  const int size = tinygltf::GetComponentSizeInBytes(static_cast<uint32_t>(a.componentType));
  const size_t stride = view.byteStride != 0 ? view.byteStride : static_cast<size_t>(comps * size);
  std::vector<std::vector<float>> out(a.count, std::vector<float>(static_cast<size_t>(comps)));
  for (size_t i = 0; i < a.count; ++i) {
    const unsigned char* p = data.data() + view.byteOffset + a.byteOffset + i * stride;
    for (int c = 0; c < comps; ++c, p += size) {
      float& v = out[i][static_cast<size_t>(c)];
      switch (a.componentType) {
        case TINYGLTF_COMPONENT_TYPE_FLOAT: std::memcpy(&v, p, 4); break;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: v = static_cast<float>(*p) / (a.normalized ? 255.0f : 1.0f); break;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
          uint16_t s;
          std::memcpy(&s, p, 2);
          v = static_cast<float>(s) / (a.normalized ? 65535.0f : 1.0f);
          break;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {  // indices; exact below 2^24
          uint32_t u;
          std::memcpy(&u, p, 4);
          v = static_cast<float>(u);
          break;
        }
        default: ADD_FAILURE() << "accessor " << index << " has component type " << a.componentType;
      }
    }
  }
  return out;
}

namespace {

NodeTrs writtenTrs(const tinygltf::Node& n) {
  NodeTrs trs;
  if (n.translation.size() == 3) trs.t = glm::vec3(n.translation[0], n.translation[1], n.translation[2]);
  if (n.rotation.size() == 4) {
    trs.r = glm::quat(static_cast<float>(n.rotation[3]), static_cast<float>(n.rotation[0]), static_cast<float>(n.rotation[1]),
                      static_cast<float>(n.rotation[2]));
  }
  if (n.scale.size() == 3) trs.s = glm::vec3(n.scale[0], n.scale[1], n.scale[2]);
  EXPECT_TRUE(n.matrix.empty()) << n.name << ": rigport writes TRS only";
  return trs;
}

// Index of the last key at or before `t` and the fraction towards the next (0 past either end).
std::pair<size_t, float> bracket(const std::vector<std::vector<float>>& times, float t) {
  size_t k = 0;
  while (k + 1 < times.size() && times[k + 1][0] <= t) ++k;
  if (k + 1 >= times.size() || t <= times[k][0]) return {k, 0.0f};
  return {k, (t - times[k][0]) / (times[k + 1][0] - times[k][0])};
}

}  // namespace

GltfPose::GltfPose(const tinygltf::Model& model) : model_(model), parents_(model.nodes.size(), -1) {
  for (size_t n = 0; n < model.nodes.size(); ++n) {
    for (int c : model.nodes[n].children) parents_.at(static_cast<size_t>(c)) = static_cast<int>(n);
  }
  pose();
}

void GltfPose::pose(int animation, float seconds) {
  local_.clear();
  for (const tinygltf::Node& n : model_.nodes) local_.push_back(writtenTrs(n));
  if (animation < 0) return;
  const tinygltf::Animation& anim = model_.animations.at(static_cast<size_t>(animation));
  for (const tinygltf::AnimationChannel& ch : anim.channels) {
    const tinygltf::AnimationSampler& s = anim.samplers.at(static_cast<size_t>(ch.sampler));
    EXPECT_NE(s.interpolation, "CUBICSPLINE") << "not evaluated here";
    const auto times = accessorFloats(model_, s.input);
    const auto values = accessorFloats(model_, s.output);
    const auto [k, f] = bracket(times, seconds);
    const float w = s.interpolation == "STEP" ? 0.0f : f;
    const std::vector<float>& a = values.at(k);
    const std::vector<float>& b = values.at(std::min(k + 1, values.size() - 1));
    NodeTrs& trs = local_.at(static_cast<size_t>(ch.target_node));
    if (ch.target_path == "rotation") {
      trs.r = glm::slerp(glm::quat(a[3], a[0], a[1], a[2]), glm::quat(b[3], b[0], b[1], b[2]), w);
    } else {
      const glm::vec3 v = glm::mix(glm::vec3(a[0], a[1], a[2]), glm::vec3(b[0], b[1], b[2]), w);
      (ch.target_path == "translation" ? trs.t : trs.s) = v;
    }
  }
}

int GltfPose::node(const std::string& name) const {
  for (size_t n = 0; n < model_.nodes.size(); ++n) {
    if (model_.nodes[n].name == name) return static_cast<int>(n);
  }
  return -1;
}

glm::mat4 GltfPose::world(int node) const {
  glm::mat4 w(1.0f);
  for (int n = node; n >= 0; n = parents_.at(static_cast<size_t>(n))) w = local_.at(static_cast<size_t>(n)).matrix() * w;
  return w;
}

std::vector<glm::mat4> GltfPose::inverseBinds(int skin) const {
  const tinygltf::Skin& s = model_.skins.at(static_cast<size_t>(skin));
  std::vector<glm::mat4> out;
  for (const std::vector<float>& m : accessorFloats(model_, s.inverseBindMatrices)) {
    glm::mat4 ibm;
    std::memcpy(&ibm[0][0], m.data(), 64);
    out.push_back(ibm);
  }
  return out;
}

std::vector<glm::vec3> GltfPose::vertices() const {
  std::vector<glm::vec3> out;
  for (size_t n = 0; n < model_.nodes.size(); ++n) {
    const tinygltf::Node& node = model_.nodes[n];
    if (node.mesh < 0) continue;
    std::vector<glm::mat4> skinning;
    if (node.skin >= 0) {
      const std::vector<glm::mat4> ibm = inverseBinds(node.skin);
      const std::vector<int>& joints = model_.skins[static_cast<size_t>(node.skin)].joints;
      for (size_t j = 0; j < joints.size(); ++j) skinning.push_back(world(joints[j]) * ibm.at(j));
    }
    const glm::mat4 nodeWorld = world(static_cast<int>(n));
    for (const tinygltf::Primitive& p : model_.meshes.at(static_cast<size_t>(node.mesh)).primitives) {
      const auto positions = accessorFloats(model_, p.attributes.at("POSITION"));
      std::vector<std::vector<float>> joints, weights;
      if (node.skin >= 0) {
        joints = accessorFloats(model_, p.attributes.at("JOINTS_0"));
        weights = accessorFloats(model_, p.attributes.at("WEIGHTS_0"));
      }
      for (size_t v = 0; v < positions.size(); ++v) {
        const glm::vec4 pos(positions[v][0], positions[v][1], positions[v][2], 1.0f);
        if (node.skin < 0) {
          out.emplace_back(nodeWorld * pos);
          continue;
        }
        glm::mat4 m(0.0f);
        for (int k = 0; k < 4; ++k) m += weights[v][static_cast<size_t>(k)] * skinning.at(static_cast<size_t>(joints[v][static_cast<size_t>(k)]));
        out.emplace_back(m * pos);
      }
    }
  }
  return out;
}

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
