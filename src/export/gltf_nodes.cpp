// Bone nodes (format note gltf_ecosystem.md §1.4, §5.1): TRS only (joints get animated, and an
// animated node must not use `matrix`), unit rotations, and unique non-empty names — three.js binds
// animation tracks by node name and Blender names unnamed nodes `Node_<i>`.
#include <cmath>

#include <fmt/format.h>

#include "core/hash.hpp"
#include "export/gltf_document.hpp"
#include "export/gltf_scale_compensation.hpp"

namespace rigport::gltf {
namespace {

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Length of the valid UTF-8 sequence at s[i], or 0 if the bytes there are not valid UTF-8.
size_t utf8SequenceLength(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = 0;
  uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; }
  else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; }
  else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Game files store names as fixed-size byte strings, usually ASCII or a Windows code page; JSON
// must be UTF-8, so bytes that are not valid UTF-8 are read as Latin-1.
std::string toUtf8(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (const size_t n = utf8SequenceLength(name, i); n > 0) {
      out.append(name, i, n);
      i += n;
    } else {
      appendUtf8(out, c);
      ++i;
    }
  }
  return out;
}

// A node name: UTF-8, control characters replaced by '_', no surrounding spaces.
std::string sanitise(const std::string& name) {
  std::string out = toUtf8(name);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '_';
  }
  const size_t b = out.find_first_not_of(' ');
  if (b == std::string::npos) return {};
  return out.substr(b, out.find_last_not_of(' ') - b + 1);
}

}  // namespace

Json withModelExtras(const nlohmann::json& model, Json ours) {
  if (!model.is_object()) return ours;
  Json merged(model);
  for (auto& [key, value] : ours.items()) merged[key] = std::move(value);
  return merged;
}

std::string uniqueNodeName(Document& doc, const std::string& wanted, const std::string& fallback) {
  std::string base = sanitise(wanted);
  if (base.empty()) base = fallback;
  std::string name = base;
  for (uint32_t n = 2; doc.usedNames.count(name) != 0; ++n) name = fmt::format("{}_{}", base, n);
  doc.usedNames.insert(name);
  return name;
}

Status addSkeletonNodes(Document& doc, const Rig& rig, const GltfOptions& options) {
  const auto& bones = rig.skeleton.bones;
  // Node TRS are JSON numbers, which have no NaN or infinity (repairRig() mends such a bone).
  for (size_t i = 0; i < bones.size(); ++i) {
    const glm::vec3& t = bones[i].translation;
    const glm::vec3& s = bones[i].scale;
    if (!(std::isfinite(t.x) && std::isfinite(t.y) && std::isfinite(t.z) && std::isfinite(s.x) && std::isfinite(s.y) && std::isfinite(s.z))) {
      return invalidModel(fmt::format("skeleton/bones[{}]", i), fmt::format("bone '{}' has a translation or scale that is not finite", bones[i].name));
    }
  }
  doc.boneNode.resize(bones.size());
  std::vector<std::vector<uint32_t>> children(bones.size());
  std::vector<uint32_t> roots;
  for (size_t i = 0; i < bones.size(); ++i) {
    doc.boneNode[i] = static_cast<uint32_t>(doc.nodes.size() + i);
    if (bones[i].parent >= 0) {
      children[static_cast<size_t>(bones[i].parent)].push_back(static_cast<uint32_t>(i));
    } else {
      roots.push_back(static_cast<uint32_t>(i));
    }
  }
  const std::vector<bool> compensated = compensatedBones(rig.skeleton, rig.animations);
  doc.compensationNode.assign(bones.size(), std::nullopt);
  uint32_t next = static_cast<uint32_t>(doc.nodes.size() + bones.size());
  for (size_t i = 0; i < bones.size(); ++i) {
    if (compensated[i]) doc.compensationNode[i] = next++;
  }
  for (size_t i = 0; i < bones.size(); ++i) {
    const Bone& bone = bones[i];
    Json node = Json::object();
    const std::string name = uniqueNodeName(doc, bone.name, fmt::format("bone_{}", i));
    node["name"] = name;
    if (!children[i].empty()) {
      Json c = Json::array();
      for (uint32_t child : children[i]) c.push_back(doc.compensationNode[child].value_or(doc.boneNode[child]));
      node["children"] = std::move(c);
    }
    if (bone.translation != glm::vec3(0.0f) && !compensated[i]) node["translation"] = {bone.translation.x, bone.translation.y, bone.translation.z};
    // Renormalised in double: validate() allows 1e-3 of drift, ROTATION_NON_UNIT allows 0.00769.
    const glm::dvec4 q(bone.rotation.x, bone.rotation.y, bone.rotation.z, bone.rotation.w);
    const glm::vec4 r(q / glm::length(q));
    if (r != glm::vec4(0, 0, 0, 1)) node["rotation"] = {r.x, r.y, r.z, r.w};
    if (bone.scale != glm::vec3(1.0f)) node["scale"] = {bone.scale.x, bone.scale.y, bone.scale.z};
    Json extras = Json::object();
    if (name != bone.name) extras["originalName"] = toUtf8(bone.name);
    if (bone.id) extras["boneId"] = *bone.id;
    if (bone.nameHash) {
      extras["nameHash"] = *bone.nameHash;
      extras["nameHashKind"] = hashKindName(bone.nameHashKind);
    }
    extras = withModelExtras(bone.extras, std::move(extras));
    if (!extras.empty()) node["extras"] = std::move(extras);
    doc.nodes.push_back(std::move(node));
  }
  for (size_t i = 0; i < bones.size(); ++i) {
    if (!compensated[i]) continue;
    const Bone& bone = bones[i];
    Json node = Json::object();
    node["name"] = uniqueNodeName(doc, bone.name + "_parentScale", fmt::format("bone_{}_parentScale", i));
    node["children"] = Json::array({doc.boneNode[i]});
    if (bone.translation != glm::vec3(0.0f)) node["translation"] = {bone.translation.x, bone.translation.y, bone.translation.z};
    const glm::vec3 s = inverseScale(bones[static_cast<size_t>(bone.parent)].scale);
    if (s != glm::vec3(1.0f)) node["scale"] = {s.x, s.y, s.z};
    node["extras"] = {{"rigportScaleCompensation", true}};
    doc.nodes.push_back(std::move(node));
  }
  const float lift = options.groundLift;
  if (roots.size() == 1) doc.skeletonRoot = doc.boneNode[roots[0]];
  if (roots.size() == 1 && lift == 0.0f) {
    doc.sceneNodes.push_back(doc.boneNode[roots[0]]);
  } else if (roots.size() > 1 || lift != 0.0f) {
    // A skin's joints need one common root (SKIN_NO_COMMON_ROOT, §1.1); this non-joint node is it,
    // and Blender turns it into the armature object. It also carries the ground lift, above every
    // joint, so that inverse bind matrices and keys stay the rig's; rigport's glTF reader drops it.
    // Above a single root bone it only lifts: the skin's `skeleton` stays that bone, so Blender
    // makes the bone's node the armature (as without a lift) and this node an empty above it.
    Json node = Json::object();
    const std::string wanted = roots.size() == 1 ? "Ground" : (rig.name.empty() ? std::string("Armature") : rig.name);
    node["name"] = uniqueNodeName(doc, wanted, "Armature");
    Json c = Json::array();
    for (uint32_t r : roots) c.push_back(doc.boneNode[r]);
    if (!c.empty()) node["children"] = std::move(c);
    node["extras"] = {{"rigportSyntheticRoot", true}};
    if (lift != 0.0f) {
      node["translation"] = {0.0f, lift, 0.0f};
      node["extras"]["rigportGroundLift"] = lift;
      doc.groundNode = static_cast<uint32_t>(doc.nodes.size());
    }
    if (roots.size() != 1) doc.skeletonRoot = static_cast<uint32_t>(doc.nodes.size());
    doc.sceneNodes.push_back(static_cast<uint32_t>(doc.nodes.size()));
    doc.nodes.push_back(std::move(node));
  }
  return Ok{};
}

}  // namespace rigport::gltf
