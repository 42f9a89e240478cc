// glTF files as third-party tools write them, made from a rig rigport exports and then edits
// (tests/support/gltf_edit.hpp).
#include "support/gltf_edit.hpp"

#include <gtest/gtest.h>

#include <algorithm>

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

}  // namespace rigport::test
