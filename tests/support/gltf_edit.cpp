// glTF files as third-party tools write them, made from a rig rigport exports and then edits
// (tests/support/gltf_edit.hpp).
#include "support/gltf_edit.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "export/gltf.hpp"
#include "platform/files.hpp"
#include "support/gltf_validator.hpp"

namespace rigport::test {
namespace {

// An accessor's elements in place (the exporter writes every accessor tightly packed in its own view).
template <class T>
T* elements(tinygltf::Model& m, int accessor) {
  const tinygltf::Accessor& a = m.accessors[static_cast<size_t>(accessor)];
  const tinygltf::BufferView& v = m.bufferViews[static_cast<size_t>(a.bufferView)];
  EXPECT_TRUE(v.byteStride == 0 || v.byteStride == sizeof(T)) << "accessor " << accessor;
  return reinterpret_cast<T*>(m.buffers[static_cast<size_t>(v.buffer)].data.data() + v.byteOffset + a.byteOffset);
}

// Every primitive's attribute `name` of the skinned meshes, each accessor once.
std::vector<int> skinnedAttributes(const tinygltf::Model& m, const std::string& name) {
  std::vector<int> out;
  for (const tinygltf::Node& n : m.nodes) {
    if (n.skin < 0 || n.mesh < 0) continue;
    for (const tinygltf::Primitive& p : m.meshes[static_cast<size_t>(n.mesh)].primitives) {
      const auto it = p.attributes.find(name);
      if (it != p.attributes.end() && std::find(out.begin(), out.end(), it->second) == out.end()) out.push_back(it->second);
    }
  }
  return out;
}

// Every primitive's morph target attribute `name` of the skinned meshes, each accessor once.
std::vector<int> skinnedTargetAttributes(const tinygltf::Model& m, const std::string& name) {
  std::vector<int> out;
  for (const tinygltf::Node& n : m.nodes) {
    if (n.skin < 0 || n.mesh < 0) continue;
    for (const tinygltf::Primitive& p : m.meshes[static_cast<size_t>(n.mesh)].primitives) {
      for (const auto& target : p.targets) {
        const auto it = target.find(name);
        if (it != target.end() && std::find(out.begin(), out.end(), it->second) == out.end()) out.push_back(it->second);
      }
    }
  }
  return out;
}

}  // namespace

std::string writeGlb(const Rig& rig, const std::string& path) {
  auto glb = exportGlb(rig);
  EXPECT_TRUE(glb.ok()) << (glb ? "" : glb.error().describe());
  if (glb) EXPECT_TRUE(platform::writeFileAtomic(path, *glb).ok()) << path;
  return path;
}

tinygltf::Model exported(const Rig& rig) {
  auto glb = exportGlb(rig);
  EXPECT_TRUE(glb.ok()) << (glb ? "" : glb.error().describe());
  tinygltf::Model model;
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  EXPECT_TRUE(loader.LoadBinaryFromMemory(&model, &err, &warn, glb->data(), static_cast<unsigned int>(glb->size()))) << err;
  return model;
}

std::string save(tinygltf::Model& model, const std::string& path) {
  tinygltf::TinyGLTF writer;
  EXPECT_TRUE(writer.WriteGltfSceneToFile(&model, path, true, true, false, true)) << path;
  const test::ValidatorRun v = test::validateGltfFile(path);
  EXPECT_TRUE(v.ok) << path << ": " << v.output;
  return path;
}

// What gltfpack, glTF-Transform quantize and assimp's FBX conversions write: the mesh in another
// space (here B⁻¹ of the original: ×0.01 and moved), and B folded into every inverse bind matrix,
// so joint world × IBM = B for each joint and a client draws the mesh where it was.
void foldBindShape(tinygltf::Model& m, const glm::mat4& b) {
  const glm::mat4 inverse = glm::inverse(b);
  for (int a : skinnedAttributes(m, "POSITION")) {
    tinygltf::Accessor& acc = m.accessors[static_cast<size_t>(a)];
    glm::vec3* p = elements<glm::vec3>(m, a);
    glm::vec3 lo(1e30f), hi(-1e30f);
    for (size_t v = 0; v < acc.count; ++v) {
      p[v] = glm::vec3(inverse * glm::vec4(p[v], 1.0f));
      lo = glm::min(lo, p[v]), hi = glm::max(hi, p[v]);
    }
    acc.minValues = {lo.x, lo.y, lo.z};
    acc.maxValues = {hi.x, hi.y, hi.z};
  }
  // Morph target deltas are vectors: B⁻¹'s linear part alone. Normal deltas stay, as the normals
  // do (a client makes normals unit after skinning), for the uniform scales the tests fold.
  for (int a : skinnedTargetAttributes(m, "POSITION")) {
    tinygltf::Accessor& acc = m.accessors[static_cast<size_t>(a)];
    glm::vec3* d = elements<glm::vec3>(m, a);
    glm::vec3 lo(1e30f), hi(-1e30f);
    for (size_t v = 0; v < acc.count; ++v) {
      d[v] = glm::mat3(inverse) * d[v];
      lo = glm::min(lo, d[v]), hi = glm::max(hi, d[v]);
    }
    acc.minValues = {lo.x, lo.y, lo.z};
    acc.maxValues = {hi.x, hi.y, hi.z};
  }
  for (const tinygltf::Skin& skin : m.skins) {
    glm::mat4* ibm = elements<glm::mat4>(m, skin.inverseBindMatrices);
    for (size_t j = 0; j < skin.joints.size(); ++j) ibm[j] = ibm[j] * b;
  }
}

// A skin listing its joints in reverse (valid glTF: joint order is the palette's, free): the
// inverse bind matrices and every JOINTS_0 index follow.
void reverseJoints(tinygltf::Model& m) {
  tinygltf::Skin& skin = m.skins.at(0);
  const size_t n = skin.joints.size();
  std::reverse(skin.joints.begin(), skin.joints.end());
  glm::mat4* ibm = elements<glm::mat4>(m, skin.inverseBindMatrices);
  std::reverse(ibm, ibm + n);
  for (int a : skinnedAttributes(m, "JOINTS_0")) {
    const tinygltf::Accessor& acc = m.accessors[static_cast<size_t>(a)];
    EXPECT_EQ(acc.componentType, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE);
    if (acc.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE) return;
    uint8_t* j = elements<uint8_t>(m, a);
    const float* w = elements<float>(m, skinnedAttributes(m, "WEIGHTS_0").at(0));
    for (size_t i = 0; i < acc.count * 4; ++i) j[i] = w[i] > 0.0f ? static_cast<uint8_t>(n - 1 - j[i]) : 0;
  }
}

void animateArmature(tinygltf::Model& m) {
  tinygltf::Scene& scene = m.scenes.at(static_cast<size_t>(std::max(m.defaultScene, 0)));
  tinygltf::Node armature;
  armature.name = "Armature";
  std::vector<int> roots;  // the skinned mesh node stays a root (the validator's NODE_SKINNED_MESH_NON_ROOT)
  for (int n : scene.nodes) (m.nodes.at(static_cast<size_t>(n)).skin >= 0 ? roots : armature.children).push_back(n);
  const int node = static_cast<int>(m.nodes.size());
  m.nodes.push_back(armature);
  roots.push_back(node);
  scene.nodes = roots;
  tinygltf::Animation& anim = m.animations.at(0);
  for (const char* path : {"translation", "rotation"}) {
    const auto it = std::find_if(anim.channels.begin(), anim.channels.end(), [&](const tinygltf::AnimationChannel& c) { return c.target_path == path; });
    ASSERT_NE(it, anim.channels.end()) << "no " << path << " channel to borrow";
    tinygltf::AnimationChannel channel = *it;
    channel.target_node = node;
    anim.channels.push_back(channel);
  }
}

void matrixJoints(tinygltf::Model& m) {
  std::vector<bool> animated(m.nodes.size(), false);
  for (const tinygltf::Animation& a : m.animations)
    for (const tinygltf::AnimationChannel& c : a.channels) animated.at(static_cast<size_t>(c.target_node)) = true;
  size_t changed = 0;
  for (const int j : m.skins.at(0).joints) {
    tinygltf::Node& n = m.nodes.at(static_cast<size_t>(j));
    if (animated[static_cast<size_t>(j)]) continue;
    glm::mat4 local(1.0f);
    if (n.translation.size() == 3) local = glm::translate(local, glm::vec3(glm::make_vec3(n.translation.data())));
    if (n.rotation.size() == 4) {
      local *= glm::mat4_cast(glm::quat(static_cast<float>(n.rotation[3]), static_cast<float>(n.rotation[0]), static_cast<float>(n.rotation[1]),
                                        static_cast<float>(n.rotation[2])));
    }
    if (n.scale.size() == 3) local = glm::scale(local, glm::vec3(glm::make_vec3(n.scale.data())));
    n.matrix.assign(glm::value_ptr(local), glm::value_ptr(local) + 16);
    n.translation.clear(), n.rotation.clear(), n.scale.clear();
    ++changed;
  }
  EXPECT_GT(changed, 0u) << "every joint is animated: no node to write as a matrix";
}

void dropInverseBinds(tinygltf::Model& m) {
  for (tinygltf::Skin& skin : m.skins) skin.inverseBindMatrices = -1;
}

void meshAboveSkeleton(tinygltf::Model& m) {
  tinygltf::Scene& scene = m.scenes.at(static_cast<size_t>(std::max(m.defaultScene, 0)));
  const auto mesh = std::find_if(scene.nodes.begin(), scene.nodes.end(), [&](int n) { return m.nodes.at(static_cast<size_t>(n)).skin >= 0; });
  ASSERT_NE(mesh, scene.nodes.end()) << "no skinned mesh node at the scene's root";
  const int meshNode = *mesh;
  tinygltf::Node& node = m.nodes.at(static_cast<size_t>(meshNode));
  for (const int n : scene.nodes)
    if (n != meshNode) node.children.push_back(n);
  scene.nodes = {meshNode};
}

}  // namespace rigport::test
