// Bone nodes (format note gltf_ecosystem.md §1.4, §5.1): TRS only (joints get animated, and an
// animated node must not use `matrix`), unit rotations, and unique non-empty names — three.js binds
// animation tracks by node name and Blender names unnamed nodes `Node_<i>`.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/hash.hpp"
#include "core/node_name.hpp"
#include "core/rig_copy.hpp"
#include "export/gltf_document.hpp"
#include "export/gltf_scale_compensation.hpp"

namespace rigport::gltf {
namespace {

}  // namespace

Json withModelExtras(const nlohmann::json& model, Json ours) {
  if (!model.is_object()) return ours;
  Json merged(model);
  for (auto& [key, value] : ours.items()) merged[key] = std::move(value);
  return merged;
}

namespace {

// `wanted` made a node name (nodeNameOf()), else `fallback`, with "_2", "_3"... until `taken` says no.
template <class Taken>
std::string firstFreeName(const std::string& wanted, const std::string& fallback, Taken taken) {
  std::string base = nodeNameOf(wanted);
  if (base.empty()) base = fallback;
  std::string name = base;
  for (uint32_t n = 2; taken(name); ++n) name = fmt::format("{}_{}", base, n);
  return name;
}

// The skeleton's own names, unique among themselves.
std::string uniqueName(std::unordered_set<std::string>& taken, const std::string& wanted, const std::string& fallback) {
  std::string name = firstFreeName(wanted, fallback, [&](const std::string& n) { return taken.count(n) != 0; });
  taken.insert(name);
  return name;
}

}  // namespace

std::string uniqueNodeName(Document& doc, const std::string& wanted, const std::string& fallback) {
  std::string name = firstFreeName(wanted, fallback, [&](const std::string& n) { return doc.nameTaken(n); });
  doc.usedNames.insert(name);
  return name;
}

void Document::addChild(uint32_t parent, uint32_t child) {
  if (parent < skeleton->names.size()) {
    skeletonChildren.emplace_back(parent, child);
  } else {
    nodes[parent - skeleton->names.size()]["children"].push_back(child);
  }
}

namespace {

Status checkFinite(const Skeleton& skeleton) {
  // Node TRS are JSON numbers, which have no NaN or infinity (repairRig() mends such a bone).
  for (size_t i = 0; i < skeleton.bones.size(); ++i) {
    const glm::vec3& t = skeleton.bones[i].translation;
    const glm::vec3& s = skeleton.bones[i].scale;
    if (!(std::isfinite(t.x) && std::isfinite(t.y) && std::isfinite(t.z) && std::isfinite(s.x) && std::isfinite(s.y) && std::isfinite(s.z))) {
      return invalidModel(fmt::format("skeleton/bones[{}]", i),
                          fmt::format("bone '{}' has a translation or scale that is not finite", skeleton.bones[i].name));
    }
  }
  return Ok{};
}

std::vector<uint32_t> rootBones(const Skeleton& skeleton) {
  std::vector<uint32_t> roots;
  for (size_t i = 0; i < skeleton.bones.size(); ++i) {
    if (skeleton.bones[i].parent < 0) roots.push_back(static_cast<uint32_t>(i));
  }
  return roots;
}

// The name a non-joint root above the skeleton asks for; empty when there is none.
std::string syntheticRootName(const Rig& rig, size_t roots, float lift) {
  if (roots <= 1 && lift == 0.0f) return {};
  if (roots == 1) return "Ground";
  return rig.name.empty() ? std::string("Armature") : rig.name;
}

// The nodes: one per bone, then the compensation nodes, then the synthetic root.
Status makeNodes(SkeletonPart& part, const Rig& rig, const std::vector<uint32_t>& roots) {
  const auto& bones = rig.skeleton.bones;
  part.boneNode.resize(bones.size());
  for (size_t i = 0; i < bones.size(); ++i) part.boneNode[i] = static_cast<uint32_t>(i);
  part.compensationNode.assign(bones.size(), std::nullopt);
  uint32_t next = static_cast<uint32_t>(bones.size());
  for (size_t i = 0; i < bones.size(); ++i) {
    if (part.compensated[i]) part.compensationNode[i] = next++;
  }
  part.children.resize(next);
  for (size_t i = 0; i < bones.size(); ++i) {
    if (bones[i].parent >= 0) part.children[static_cast<size_t>(bones[i].parent)].push_back(part.compensationNode[i].value_or(part.boneNode[i]));
  }
  part.names.reserve(next + 1);
  for (size_t i = 0; i < bones.size(); ++i) part.names.push_back(uniqueName(part.usedNames, bones[i].name, fmt::format("bone_{}", i)));
  for (size_t i = 0; i < bones.size(); ++i) {
    if (!part.compensated[i]) continue;
    part.names.push_back(uniqueName(part.usedNames, bones[i].name + "_parentScale", fmt::format("bone_{}_parentScale", i)));
    part.children[*part.compensationNode[i]].push_back(part.boneNode[i]);
  }
  if (roots.size() == 1) part.skeletonRoot = part.boneNode[roots[0]];
  if (part.rootName.empty()) {
    if (roots.size() == 1) part.sceneNodes.push_back(part.boneNode[roots[0]]);
    return Ok{};
  }
  // A skin's joints need one common root (SKIN_NO_COMMON_ROOT, §1.1); this non-joint node is it,
  // and Blender turns it into the armature object. It also carries the ground lift, above every
  // joint, so that inverse bind matrices and keys stay the rig's; rigport's glTF reader drops it.
  // Above a single root bone it only lifts: the skin's `skeleton` stays that bone, so Blender
  // makes the bone's node the armature (as without a lift) and this node an empty above it.
  const uint32_t node = static_cast<uint32_t>(part.names.size());
  part.names.push_back(uniqueName(part.usedNames, part.rootName, "Armature"));
  part.children.emplace_back();
  for (uint32_t r : roots) part.children[node].push_back(part.boneNode[r]);
  if (part.groundLift != 0.0f) part.groundNode = node;
  if (roots.size() != 1) part.skeletonRoot = node;
  part.sceneNodes.push_back(node);
  return Ok{};
}

void writeVec3(JsonWriter& w, const char* key, const glm::vec3& v) {
  const float values[] = {v.x, v.y, v.z};
  w.key(key).floats(values);
}

void writeChildren(JsonWriter& w, const std::vector<uint32_t>& own, uint32_t node, const std::vector<std::pair<uint32_t, uint32_t>>& late) {
  bool any = !own.empty();
  for (const auto& [parent, child] : late) any = any || parent == node;
  if (!any) return;
  w.key("children").startArray();
  for (uint32_t c : own) w.uint(c);
  for (const auto& [parent, child] : late) {
    if (parent == node) w.uint(child);
  }
  w.endArray();
}

void writeBoneNode(JsonWriter& w, const SkeletonPart& part, const Bone& bone, size_t i, const std::vector<std::pair<uint32_t, uint32_t>>& late) {
  const std::string& name = part.names[i];
  w.startObject();
  w.key("name").string(name);
  writeChildren(w, part.children[i], static_cast<uint32_t>(i), late);
  if (bone.translation != glm::vec3(0.0f) && !part.compensated[i]) writeVec3(w, "translation", bone.translation);
  // Renormalised in double: validate() allows 1e-3 of drift, ROTATION_NON_UNIT allows 0.00769.
  const glm::dvec4 q(bone.rotation.x, bone.rotation.y, bone.rotation.z, bone.rotation.w);
  const glm::vec4 r(q / glm::length(q));
  if (r != glm::vec4(0, 0, 0, 1)) {
    const float values[] = {r.x, r.y, r.z, r.w};
    w.key("rotation").floats(values);
  }
  if (bone.scale != glm::vec3(1.0f)) writeVec3(w, "scale", bone.scale);
  std::string_view ours[4];
  size_t n = 0;
  if (name != bone.name) ours[n++] = "originalName";
  if (bone.id) ours[n++] = "boneId";
  if (bone.nameHash) {
    ours[n++] = "nameHash";
    ours[n++] = "nameHashKind";
  }
  writeExtras(w, "extras", bone.extras, std::span(ours, n), [&](JsonWriter& x, size_t k) {
    const std::string_view key = ours[k];
    if (key == "originalName") x.string(toUtf8(bone.name));
    else if (key == "boneId") x.uint(*bone.id);
    else if (key == "nameHash") x.uint(*bone.nameHash);
    else x.string(hashKindName(bone.nameHashKind));
  });
  w.endObject();
}

}  // namespace

Status addSkeleton(Document& doc, const Rig& rig, const GltfOptions& options, ExportCache* cache) {
  const std::vector<uint32_t> roots = rootBones(rig.skeleton);
  std::vector<bool> compensated = compensatedBones(rig.skeleton, rig.animations);
  std::string rootName = syntheticRootName(rig, roots.size(), options.groundLift);
  const SkeletonPart* cached = cache != nullptr ? cache->part.get() : nullptr;
  SkeletonPart* kept = nullptr;  // the part made here for the cache
  // The lift compared by its bits: -0 and 0 are written differently.
  if (cached != nullptr && std::memcmp(&cached->groundLift, &options.groundLift, sizeof(float)) == 0 && cached->rootName == rootName &&
      cached->compensated == compensated && identical(cached->skeleton, rig.skeleton)) {
    doc.skeleton = cache->part;
  } else {
    RP_CHECK(checkFinite(rig.skeleton));
    auto part = std::make_shared<SkeletonPart>();
    part->compensated = std::move(compensated);
    part->groundLift = options.groundLift;
    part->rootName = std::move(rootName);
    RP_CHECK(makeNodes(*part, rig, roots));
    RP_CHECK(makeSkin(*part, rig));
    if (cache != nullptr) {
      JsonWriter w(part->nodesJson);
      w.startArray();
      writeSkeletonNodes(w, *part, rig, {});
      w.endArray();
      part->skeleton = rig.skeleton;
      cache->part = part;
      kept = part.get();
    }
    doc.skeleton = std::move(part);
  }
  const SkeletonPart& part = *doc.skeleton;
  doc.boneNode = part.boneNode;
  doc.compensationNode = part.compensationNode;
  doc.groundNode = part.groundNode;
  doc.skeletonRoot = part.skeletonRoot;
  doc.sceneNodes = part.sceneNodes;
  doc.joints = part.joints;
  doc.jointOfBone = part.jointOfBone;
  doc.rootJoint = part.rootJoint;
  RP_CHECK(addSkin(doc, rig));
  // The skin's text once its accessor is known, for the exports that reuse the part: written a clip,
  // it was 1.4 M of a 500-clip package's instructions. The skeleton's extras in it are those the
  // part was made for: it is reused only for a skeleton identical() to its own, extras written alike.
  if (kept != nullptr && doc.skin) {
    JsonWriter w(kept->skinJson);
    writeSkin(w, doc, rig);
    kept->skinInverseBinds = *doc.ibmAccessor;
  }
  return Ok{};
}

void writeSkeletonNodes(JsonWriter& w, const SkeletonPart& part, const Rig& rig, const std::vector<std::pair<uint32_t, uint32_t>>& late) {
  const auto& bones = rig.skeleton.bones;
  for (size_t i = 0; i < bones.size(); ++i) writeBoneNode(w, part, bones[i], i, late);
  for (size_t i = 0; i < bones.size(); ++i) {
    if (!part.compensated[i]) continue;
    const uint32_t node = *part.compensationNode[i];
    const Bone& bone = bones[i];
    w.startObject();
    w.key("name").string(part.names[node]);
    writeChildren(w, part.children[node], node, late);
    if (bone.translation != glm::vec3(0.0f)) writeVec3(w, "translation", bone.translation);
    const glm::vec3 s = inverseScale(bones[static_cast<size_t>(bone.parent)].scale);
    if (s != glm::vec3(1.0f)) writeVec3(w, "scale", s);
    w.key("extras").startObject();
    w.key("rigportScaleCompensation").boolean(true);
    w.endObject();
    w.endObject();
  }
  if (part.rootName.empty()) return;
  const uint32_t node = static_cast<uint32_t>(part.names.size() - 1);
  w.startObject();
  w.key("name").string(part.names[node]);
  writeChildren(w, part.children[node], node, late);
  w.key("extras").startObject();
  w.key("rigportSyntheticRoot").boolean(true);
  if (part.groundLift != 0.0f) w.key("rigportGroundLift").number(part.groundLift);
  w.endObject();
  if (part.groundLift != 0.0f) writeVec3(w, "translation", glm::vec3(0.0f, part.groundLift, 0.0f));
  w.endObject();
}

void writeNodes(JsonWriter& w, const Document& doc, const Rig& rig) {
  const SkeletonPart& part = *doc.skeleton;
  w.startArray();
  if (!part.nodesJson.empty() && doc.skeletonChildren.empty()) {
    // The cached text is an array of the nodes: its elements go in without the brackets.
    if (part.nodesJson.size() > 2) w.raw(std::string_view(part.nodesJson).substr(1, part.nodesJson.size() - 2));
  } else {
    writeSkeletonNodes(w, part, rig, doc.skeletonChildren);
  }
  for (const Json& node : doc.nodes) w.value(node);
  w.endArray();
}

}  // namespace rigport::gltf
