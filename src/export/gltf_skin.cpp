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

Status makeSkin(SkeletonPart& part, const Rig& rig) {
  const auto& bones = rig.skeleton.bones;
  part.joints = rig.skeleton.jointList();
  if (part.joints.empty()) return Ok{};  // no bones, no armature
  // JOINTS_n is at most UNSIGNED_SHORT (§1.2).
  if (part.joints.size() > 65536) return invalidModel("skeleton/joints", fmt::format("{} joints; glTF allows at most 65536", part.joints.size()));
  part.jointOfBone.assign(bones.size(), -1);
  for (size_t j = 0; j < part.joints.size(); ++j) {
    int32_t& slot = part.jointOfBone[part.joints[j]];
    // skin.joints must be unique (DUPLICATE_ELEMENTS, §1.1).
    if (slot >= 0) return invalidModel(fmt::format("skeleton/joints[{}]", j), fmt::format("bone {} is listed twice", part.joints[j]));
    slot = static_cast<int32_t>(j);
  }

  // Vertices without influences ride on the shallowest joint.
  std::vector<uint32_t> depth(bones.size(), 0);
  for (size_t i = 0; i < bones.size(); ++i) {
    if (bones[i].parent >= 0) depth[i] = depth[static_cast<size_t>(bones[i].parent)] + 1;
  }
  part.rootJoint = 0;
  for (size_t j = 1; j < part.joints.size(); ++j) {
    if (depth[part.joints[j]] < depth[part.joints[part.rootJoint]]) part.rootJoint = static_cast<uint32_t>(j);
  }

  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  part.inverseBinds.resize(part.joints.size());
  for (size_t j = 0; j < part.joints.size(); ++j) {
    const uint32_t b = part.joints[j];
    const std::optional<glm::mat4> inverse = bones[b].inverseBind ? bones[b].inverseBind : inverseOfBindPose(world[b]);
    if (!inverse || !allFinite(*inverse)) {
      return invalidModel(fmt::format("skeleton/bones[{}]", b), fmt::format("bone '{}' has a non-finite or singular inverse bind matrix", bones[b].name));
    }
    glm::mat4 ibm = *inverse;
    ibm[0][3] = ibm[1][3] = ibm[2][3] = 0.0f;  // glm is column-major: [column][row]
    ibm[3][3] = 1.0f;
    part.inverseBinds[j] = ibm;
  }
  return Ok{};
}

Status addSkin(Document& doc, const Rig& rig) {
  if (doc.joints.empty()) {
    for (const Mesh& m : rig.meshes) {
      if (m.skinned()) return invalidModel("skeleton", "a mesh is skinned but the skeleton has no bones");
    }
    return Ok{};
  }
  const auto& ibms = doc.skeleton->inverseBinds;
  static_assert(sizeof(glm::mat4) == 64, "glm matrices must be tightly packed floats");
  doc.ibmAccessor = doc.buffer.copyAccessor(ibms.data(), ibms.size() * sizeof(glm::mat4), ibms.size(), ComponentType::Float, "MAT4",
                                            ViewTarget::None);
  doc.skin = 0;
  return Ok{};
}

void writeSkin(JsonWriter& w, const Document& doc, const Rig& rig) {
  const SkeletonPart& part = *doc.skeleton;
  if (!part.skinJson.empty() && part.skinInverseBinds == *doc.ibmAccessor) {
    w.raw(part.skinJson);
    return;
  }
  w.startObject();
  w.key("name").string(doc.skeleton->names[doc.skeletonRoot]);
  w.key("inverseBindMatrices").uint(*doc.ibmAccessor);
  w.key("joints").startArray();
  for (uint32_t b : doc.joints) w.uint(doc.boneNode[b]);
  w.endArray();
  w.key("skeleton").uint(doc.skeletonRoot);
  // Whether children inherit scale is no glTF property (the compensation nodes pose it); kept for
  // rigport's reader, and for a skeleton no bone of which is scaled yet.
  const std::string_view ours[] = {"rigportInheritScale"};
  writeExtras(w, "extras", rig.skeleton.extras, std::span(ours, rig.skeleton.inheritScale ? 0 : 1),
              [](JsonWriter& x, size_t) { x.boolean(false); });
  w.endObject();
}

}  // namespace rigport::gltf
