// The skin (format note gltf_ecosystem.md §1.1, §5.2-5.3): joints in the skeleton's palette order,
// one float MAT4 inverse bind matrix per joint with a last row of exactly 0,0,0,1 (the validator's
// ACCESSOR_INVALID_IBM check has no tolerance), and `skeleton` set to the joints' common root.
// Every skeleton gets one, whether a mesh uses it or not: importers read an unused skin as "these
// nodes are an armature" (Blender imports bare nodes as empties otherwise; its exporter writes such
// a skin for an armature without meshes since glTF-Blender-IO#1582, and three.js and Godot read it
// the same way), rigport's glTF reader finds a rig only through a skin, and the validator reports an
// unused skin as UNUSED_OBJECT, an information, not a warning.
#include <cmath>

#include <fmt/format.h>

#include "export/gltf_document.hpp"

namespace rigport::gltf {
Status addSkin(Document& doc, const Rig& rig) {
  const auto& bones = rig.skeleton.bones;
  doc.joints = rig.skeleton.jointList();
  if (doc.joints.empty()) {
    bool skinned = false;
    for (const Mesh& m : rig.meshes) skinned = skinned || m.skinned();
    if (skinned) return invalidModel("skeleton", "a mesh is skinned but the skeleton has no bones");
    return Ok{};  // no bones, no armature
  }
  // JOINTS_n is at most UNSIGNED_SHORT (§1.2).
  if (doc.joints.size() > 65536) return invalidModel("skeleton/joints", fmt::format("{} joints; glTF allows at most 65536", doc.joints.size()));
  doc.jointOfBone.assign(bones.size(), -1);
  for (size_t j = 0; j < doc.joints.size(); ++j) {
    int32_t& slot = doc.jointOfBone[doc.joints[j]];
    // skin.joints must be unique (DUPLICATE_ELEMENTS, §1.1).
    if (slot >= 0) return invalidModel(fmt::format("skeleton/joints[{}]", j), fmt::format("bone {} is listed twice", doc.joints[j]));
    slot = static_cast<int32_t>(j);
  }

  // Vertices without influences ride on the shallowest joint.
  std::vector<uint32_t> depth(bones.size(), 0);
  for (size_t i = 0; i < bones.size(); ++i) {
    if (bones[i].parent >= 0) depth[i] = depth[static_cast<size_t>(bones[i].parent)] + 1;
  }
  doc.rootJoint = 0;
  for (size_t j = 1; j < doc.joints.size(); ++j) {
    if (depth[doc.joints[j]] < depth[doc.joints[doc.rootJoint]]) doc.rootJoint = static_cast<uint32_t>(j);
  }

  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  const size_t offset = doc.buffer.allocate(doc.joints.size() * sizeof(glm::mat4));
  for (size_t j = 0; j < doc.joints.size(); ++j) {
    const uint32_t b = doc.joints[j];
    const std::optional<glm::mat4> inverse = bones[b].inverseBind ? bones[b].inverseBind : inverseOfBindPose(world[b]);
    if (!inverse || !allFinite(*inverse)) {
      return invalidModel(fmt::format("skeleton/bones[{}]", b), fmt::format("bone '{}' has a non-finite or singular inverse bind matrix", bones[b].name));
    }
    glm::mat4 ibm = *inverse;
    ibm[0][3] = ibm[1][3] = ibm[2][3] = 0.0f;  // glm is column-major: [column][row]
    ibm[3][3] = 1.0f;
    std::memcpy(doc.buffer.at(offset + j * sizeof(glm::mat4)), &ibm[0][0], sizeof(glm::mat4));
  }
  const uint32_t ibmAccessor = doc.buffer.accessor(offset, doc.joints.size() * sizeof(glm::mat4), doc.joints.size(),
                                                   ComponentType::Float, "MAT4", ViewTarget::None);
  Json skin = Json::object();
  skin["name"] = doc.nodes[doc.skeletonRoot]["name"];
  skin["inverseBindMatrices"] = ibmAccessor;
  Json joints = Json::array();
  for (uint32_t b : doc.joints) joints.push_back(doc.boneNode[b]);
  skin["joints"] = std::move(joints);
  skin["skeleton"] = doc.skeletonRoot;
  // Whether children inherit scale is no glTF property (the compensation nodes pose it); kept for
  // rigport's reader, and for a skeleton no bone of which is scaled yet.
  Json ours = Json::object();
  if (!rig.skeleton.inheritScale) ours["rigportInheritScale"] = false;
  if (Json extras = withModelExtras(rig.skeleton.extras, std::move(ours)); !extras.empty()) skin["extras"] = std::move(extras);
  doc.skins.push_back(std::move(skin));
  doc.skin = 0;
  return Ok{};
}

}  // namespace rigport::gltf
