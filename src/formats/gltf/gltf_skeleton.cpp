// Skeletons (format note gltf_ecosystem.md §1.1, §3.1 "Blender importer"): the bones of a rig are
// the node tree under the topmost ancestor of its skin's joints, the non-joint nodes included (a
// DFF's clump frame, Blender's armature object) and nodes that carry a mesh left out (they are
// meshes riding on a bone), unless joints hang below them: Khronos' SimpleSkin puts its skinned
// mesh node above the skeleton, and the joints inherit that node's transform (Spec §3.7.3.3 ignores
// it for the mesh only), so it is a bone. rigport's exporter marks the root it adds above several root bones
// with extras.rigportSyntheticRoot; that node is not a bone. Joints under different roots get a
// synthetic root bone, with a warning. A node it marks extras.rigportScaleCompensation (between a
// scaled bone and a child, for a skeleton whose children do not inherit scale) is no bone either:
// its translation is the child's, its scale follows from the parent's (skin extras.rigportInheritScale). Inverse bind matrices come from the skin (identity where it
// has none, as the spec says), less a bind-shape transform they all share (gltf_bind_shape.cpp);
// rigport's bone extras (boneId, nameHash, originalName) go back into the bone. Joints that no
// scene shows are read all the same, with a warning.
#include <algorithm>

#include <fmt/format.h>
#include <glm/gtc/type_ptr.hpp>

#include "core/hash.hpp"
#include "core/node_name.hpp"
#include "formats/gltf/gltf_accessor.hpp"
#include "formats/gltf/gltf_reader.hpp"

namespace rigport::gltf_in {
namespace {

// A flag rigport wrote as `true` in a node's extras; Blender keeps custom properties but writes a
// boolean back as 1, so any non-zero number counts too.
bool isMarked(const nlohmann::json& extras, const char* key) {
  if (!extras.is_object()) return false;
  const auto it = extras.find(key);
  if (it == extras.end()) return false;
  if (it->is_boolean()) return it->get<bool>();
  return it->is_number() && it->get<double>() != 0.0;
}

Result<std::vector<int>> nodeParents(const Document& doc) {
  const auto& nodes = doc.model.nodes;
  std::vector<int> parent(nodes.size(), -1);
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (size_t c = 0; c < nodes[n].children.size(); ++c) {
      const int child = nodes[n].children[c];
      const std::string at = fmt::format("nodes[{}].children[{}]", n, c);
      if (child < 0 || static_cast<size_t>(child) >= nodes.size()) {
        return fieldError(doc, at, ErrorCode::BadValue, fmt::format("names node {}, but the file has {}", child, nodes.size()));
      }
      if (parent[static_cast<size_t>(child)] >= 0 || static_cast<size_t>(child) == n) {
        return fieldError(doc, at, ErrorCode::BadValue, fmt::format("node {} has two parents", child));
      }
      parent[static_cast<size_t>(child)] = static_cast<int>(n);
    }
  }
  // A loop has no root above it: walking up from any node must end within nodes.size() steps.
  for (size_t n = 0; n < nodes.size(); ++n) {
    size_t steps = 0;
    for (int p = parent[n]; p >= 0; p = parent[static_cast<size_t>(p)]) {
      if (++steps > nodes.size()) return fieldError(doc, fmt::format("nodes[{}]", n), ErrorCode::BadValue, "the node hierarchy has a loop");
    }
  }
  return parent;
}

// Per node: whether a scene shows it (every node when the file has no scene: it is a library).
std::vector<bool> inScene(const tinygltf::Model& m, const std::vector<int>& parent) {
  std::vector<bool> shown(m.nodes.size(), m.scenes.empty());
  std::vector<bool> root(m.nodes.size(), false);
  for (const tinygltf::Scene& scene : m.scenes) {
    for (int n : scene.nodes) {
      if (n >= 0 && static_cast<size_t>(n) < m.nodes.size()) root[static_cast<size_t>(n)] = true;
    }
  }
  for (size_t n = 0; n < m.nodes.size() && !m.scenes.empty(); ++n) {
    int top = static_cast<int>(n);
    while (!root[static_cast<size_t>(top)] && parent[static_cast<size_t>(top)] >= 0) top = parent[static_cast<size_t>(top)];
    shown[n] = root[static_cast<size_t>(top)];
  }
  return shown;
}

int topOf(const std::vector<int>& parent, int node) {
  while (parent[static_cast<size_t>(node)] >= 0) node = parent[static_cast<size_t>(node)];
  return node;
}

std::optional<HashKind> hashKindNamed(const std::string& name) {
  for (HashKind k : {HashKind::None, HashKind::Fnv1_32Lower, HashKind::Fnv1_64Lower, HashKind::Fnv1_64LowerLow32}) {
    if (name == hashKindName(k)) return k;
  }
  return std::nullopt;
}

// rigport's own keys of a bone node's extras back into the bone; the other keys stay in extras.
void takeBoneExtras(nlohmann::json extras, Bone& bone) {
  if (!extras.is_object()) return;
  // The game's name where the node still bears the one exported for it; a node renamed since (in
  // Blender, which keeps the extras as the bone's custom properties) keeps its new name.
  if (auto it = extras.find("originalName"); it != extras.end() && it->is_string()) {
    if (exportedNameOf(bone.name, it->get<std::string>())) bone.name = it->get<std::string>();
    extras.erase(it);
  }
  if (auto it = extras.find("boneId"); it != extras.end() && it->is_number_unsigned() && it->get<uint64_t>() <= 0xFFFFFFFFu) {
    bone.id = static_cast<uint32_t>(it->get<uint64_t>());
    extras.erase(it);
  }
  if (auto it = extras.find("nameHash"); it != extras.end() && it->is_number_unsigned()) {
    bone.nameHash = it->get<uint64_t>();
    extras.erase(it);
    if (auto k = extras.find("nameHashKind"); k != extras.end() && k->is_string()) {
      if (auto kind = hashKindNamed(k->get<std::string>())) {
        bone.nameHashKind = *kind;
        extras.erase(k);
      }
    }
  }
  extras.erase("rigportSyntheticRoot");
  extras.erase("rigportScaleCompensation");
  if (!extras.empty()) bone.extras = std::move(extras);
}

// TRS of a node; a `matrix` is decomposed (columns' lengths are the scale, a mirror goes to x).
void nodeTrs(const tinygltf::Node& node, Bone& bone) {
  if (node.matrix.size() == 16) {
    glm::dmat4 m;
    for (int i = 0; i < 16; ++i) glm::value_ptr(m)[i] = node.matrix[static_cast<size_t>(i)];
    bone.translation = glm::vec3(m[3]);
    glm::dvec3 s(glm::length(glm::dvec3(m[0])), glm::length(glm::dvec3(m[1])), glm::length(glm::dvec3(m[2])));
    if (glm::determinant(glm::dmat3(m)) < 0) s.x = -s.x;
    glm::dmat3 r(glm::dvec3(m[0]) / s.x, glm::dvec3(m[1]) / s.y, glm::dvec3(m[2]) / s.z);
    bone.scale = glm::vec3(s);
    bone.rotation = glm::normalize(glm::quat(glm::quat_cast(r)));
    return;
  }
  if (node.translation.size() == 3) bone.translation = glm::vec3(node.translation[0], node.translation[1], node.translation[2]);
  if (node.rotation.size() == 4) {
    const glm::dquat q(node.rotation[3], node.rotation[0], node.rotation[1], node.rotation[2]);
    bone.rotation = glm::quat(glm::length(q) > 0 ? glm::normalize(q) : glm::dquat(1, 0, 0, 0));
  }
  if (node.scale.size() == 3) bone.scale = glm::vec3(node.scale[0], node.scale[1], node.scale[2]);
}

// Up to four names, quoted, then how many more.
std::string nameList(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < std::min<size_t>(names.size(), 4); ++i) out += fmt::format("{}'{}'", i ? ", " : "", printable(names[i]));
  if (names.size() > 4) out += fmt::format(" and {} more", names.size() - 4);
  return out;
}

// rigport's scale compensation node: marked, no mesh, one child (gltf_nodes.cpp). rigport writes it
// as no joint; Blender imports it as a bone and exports every bone as a joint, its mark kept as a
// custom property, so a joint counts too (measured with Blender 3.4 on a Spore arena's .glb).
bool isCompensation(const tinygltf::Node& n) {
  return n.mesh < 0 && n.children.size() == 1 && isMarked(extrasOf(n.extras_json_string), "rigportScaleCompensation");
}

std::string uniqueBoneName(const Skeleton& sk, std::string base) {
  std::string name = base;
  for (int n = 2; sk.find(name) >= 0; ++n) name = fmt::format("{}_{}", base, n);
  return name;
}

}  // namespace

glm::mat4 nodeMatrix(const tinygltf::Node& node) {
  Bone b;
  nodeTrs(node, b);
  return b.localMatrix();
}

Result<Layout> readSkeletons(const Document& doc, ReadContext& ctx, std::vector<Rig>& rigs) {
  const auto& m = doc.model;
  if (m.skins.empty()) {
    Error e = makeError(ErrorCode::Unsupported, "no skin: this glTF holds no rig (rigport converts skinned characters; export with the armature)");
    e.file = doc.file;
    e.path = "skins";
    return e;
  }
  Layout layout;
  RP_ASSIGN(layout.parent, nodeParents(doc));
  layout.rigOfNode.assign(m.nodes.size(), -1);
  layout.boneOfNode.assign(m.nodes.size(), -1);
  layout.translationOfNode.assign(m.nodes.size(), -1);
  layout.rigOfSkin.assign(m.skins.size(), -1);
  layout.bindShape.assign(m.skins.size(), std::nullopt);

  // Which skins share a tree: a skin's tops are the topmost ancestors of its joints.
  std::vector<std::vector<int>> rigTops;
  std::vector<bool> isJoint(m.nodes.size(), false);
  std::vector<bool> holdsJoint(m.nodes.size(), false);  // a joint lies below the node
  for (size_t s = 0; s < m.skins.size(); ++s) {
    const auto& joints = m.skins[s].joints;
    if (joints.empty()) return fieldError(doc, fmt::format("skins[{}].joints", s), ErrorCode::BadValue, "is empty; a skin needs at least one joint");
    std::vector<int> tops;
    for (size_t j = 0; j < joints.size(); ++j) {
      if (joints[j] < 0 || static_cast<size_t>(joints[j]) >= m.nodes.size()) {
        return fieldError(doc, fmt::format("skins[{}].joints[{}]", s, j), ErrorCode::BadValue,
                          fmt::format("names node {}, but the file has {}", joints[j], m.nodes.size()));
      }
      isJoint[static_cast<size_t>(joints[j])] = true;
      for (int p = layout.parent[static_cast<size_t>(joints[j])]; p >= 0 && !holdsJoint[static_cast<size_t>(p)]; p = layout.parent[static_cast<size_t>(p)]) {
        holdsJoint[static_cast<size_t>(p)] = true;
      }
      const int top = topOf(layout.parent, joints[j]);
      if (std::find(tops.begin(), tops.end(), top) == tops.end()) tops.push_back(top);
    }
    int rig = -1;
    for (size_t r = 0; r < rigTops.size() && rig < 0; ++r) {
      for (int t : tops) {
        if (std::find(rigTops[r].begin(), rigTops[r].end(), t) != rigTops[r].end()) rig = static_cast<int>(r);
      }
    }
    if (rig < 0) {
      rig = static_cast<int>(rigTops.size());
      rigTops.emplace_back();
    }
    for (int t : tops) {
      if (std::find(rigTops[static_cast<size_t>(rig)].begin(), rigTops[static_cast<size_t>(rig)].end(), t) == rigTops[static_cast<size_t>(rig)].end()) {
        rigTops[static_cast<size_t>(rig)].push_back(t);
      }
    }
    layout.rigOfSkin[s] = rig;
  }

  rigs.resize(rigTops.size());
  layout.boneNode.resize(rigTops.size());
  for (size_t r = 0; r < rigTops.size(); ++r) {
    Rig& rig = rigs[r];
    std::vector<int>& boneNode = layout.boneNode[r];
    std::vector<int> roots = rigTops[r];
    // rigport's own root above several root bones is not a bone (gltf_nodes.cpp).
    if (roots.size() == 1) {
      const tinygltf::Node& top = m.nodes[static_cast<size_t>(roots[0])];
      const nlohmann::json extras = extrasOf(top.extras_json_string);
      if (!isJoint[static_cast<size_t>(roots[0])] && isMarked(extras, "rigportSyntheticRoot")) {
        roots = top.children;
        // Above one root bone the node only lifts the model onto the ground and is named for that.
        const bool liftOnly = extras.contains("rigportGroundLift") && top.children.size() == 1;
        if (rig.name.empty() && !liftOnly) rig.name = top.name;
      }
    }
    int synthetic = -1;
    if (rigTops[r].size() > 1) {
      Bone root;
      root.name = "root";
      rig.skeleton.bones.push_back(root);
      boneNode.push_back(-1);
      synthetic = 0;
      const size_t skin = static_cast<size_t>(std::find(layout.rigOfSkin.begin(), layout.rigOfSkin.end(), static_cast<int>(r)) - layout.rigOfSkin.begin());
      rig.provenance.warn("no-common-root", fmt::format("skins[{}]: its joints lie under {} separate root nodes; a synthetic root bone holds them",
                                                        skin, rigTops[r].size()));
    }
    // The bone nodes and their parent nodes, depth-first.
    std::vector<std::pair<int, int>> found;  // node, parent node (-1: the synthetic root or none)
    std::vector<std::string> notBones, leaves;  // lamps and cameras left out; non-joint nodes with no joint below, kept
    std::vector<std::pair<int, int>> stack;
    std::vector<int> compensationAbove(m.nodes.size(), -1);
    for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.emplace_back(*it, -1);
    while (!stack.empty()) {
      const auto [node, parentNode] = stack.back();
      stack.pop_back();
      if (node < 0 || static_cast<size_t>(node) >= m.nodes.size()) continue;  // checked by nodeParents
      const tinygltf::Node& n = m.nodes[static_cast<size_t>(node)];
      layout.rigOfNode[static_cast<size_t>(node)] = static_cast<int>(r);
      const bool boneOnlyByPlace = !isJoint[static_cast<size_t>(node)] && !holdsJoint[static_cast<size_t>(node)];
      if (n.mesh >= 0 && boneOnlyByPlace) continue;  // a mesh, not a bone
      if (boneOnlyByPlace && (n.camera >= 0 || n.extensions.count("KHR_lights_punctual") != 0)) {
        notBones.push_back(n.name.empty() ? fmt::format("node_{}", node) : n.name);  // a lamp or camera parented into the armature
        continue;
      }
      if (boneOnlyByPlace) leaves.push_back(n.name.empty() ? fmt::format("node_{}", node) : n.name);
      if (isCompensation(n)) {
        // Only a skeleton whose children do not inherit scale has one: the rule, where the skin's
        // extras.rigportInheritScale is lost (Blender keeps no skin extras).
        rig.skeleton.inheritScale = false;
        compensationAbove[static_cast<size_t>(n.children[0])] = node;
        stack.emplace_back(n.children[0], parentNode);
        continue;
      }
      found.emplace_back(node, parentNode);
      for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) stack.emplace_back(*it, node);
    }
    // Bones in node order when parents precede children in it (rigport writes bones so, and a
    // round trip keeps the game's frame order); otherwise depth-first order, which always does.
    std::vector<std::pair<int, int>> byNode = found;
    std::sort(byNode.begin(), byNode.end());
    bool nodeOrder = true;
    for (const auto& [node, parentNode] : byNode) nodeOrder = nodeOrder && parentNode < node;
    if (nodeOrder) found = std::move(byNode);
    if (!ctx.budget().charge(found.size() * sizeof(Bone))) {
      return fieldError(doc, "nodes", ErrorCode::TooLarge, ctx.budget().refusal(found.size() * sizeof(Bone)));
    }
    for (const auto& [node, parentNode] : found) {
      const tinygltf::Node& n = m.nodes[static_cast<size_t>(node)];
      Bone bone;
      bone.name = n.name;
      bone.parent = parentNode < 0 ? synthetic : layout.boneOfNode[static_cast<size_t>(parentNode)];
      nodeTrs(n, bone);
      if (const int k = compensationAbove[static_cast<size_t>(node)]; k >= 0) {
        Bone carrier;
        nodeTrs(m.nodes[static_cast<size_t>(k)], carrier);
        bone.translation = carrier.translation;
        layout.translationOfNode[static_cast<size_t>(k)] = static_cast<int>(rig.skeleton.bones.size());
      }
      takeBoneExtras(extrasOf(n.extras_json_string), bone);
      if (bone.name.empty()) bone.name = fmt::format("node_{}", node);
      layout.boneOfNode[static_cast<size_t>(node)] = static_cast<int>(rig.skeleton.bones.size());
      rig.skeleton.bones.push_back(std::move(bone));
      boneNode.push_back(node);
    }
    if (synthetic >= 0) rig.skeleton.bones[0].name = uniqueBoneName(rig.skeleton, "root");
    if (!notBones.empty()) {
      rig.provenance.warn("nodes-not-bones", fmt::format("{} lamp or camera node{} under the skeleton ({}) left out: {} no bone", notBones.size(),
                                                         notBones.size() == 1 ? "" : "s", nameList(notBones), notBones.size() == 1 ? "it is" : "they are"));
    }
    if (!leaves.empty()) {
      rig.provenance.warn("bones-not-joints", fmt::format("{} node{} under the skeleton ({}) {} no joint of a skin and {} no joint below: kept as "
                                                          "bones that move no vertex (a game's frame or socket; a leaf tip such as '_end' can be "
                                                          "deleted in the editor)",
                                                          leaves.size(), leaves.size() == 1 ? "" : "s", nameList(leaves),
                                                          leaves.size() == 1 ? "is" : "are", leaves.size() == 1 ? "has" : "have"));
    }
  }

  // Joints and inverse bind matrices, skin by skin; the first skin of a rig gives its palette order.
  const std::vector<bool> shown = inScene(m, layout.parent);
  for (size_t s = 0; s < m.skins.size(); ++s) {
    const tinygltf::Skin& skin = m.skins[s];
    Rig& rig = rigs[static_cast<size_t>(layout.rigOfSkin[s])];
    const bool first = rig.skeleton.joints.empty();
    if (first) {
      rig.skeleton.extras = extrasOf(skin.extras_json_string);
      if (rig.skeleton.extras.is_object()) {
        if (auto it = rig.skeleton.extras.find("rigportInheritScale"); it != rig.skeleton.extras.end()) {
          rig.skeleton.inheritScale = !(it->is_boolean() || it->is_number()) || isMarked(rig.skeleton.extras, "rigportInheritScale");
          rig.skeleton.extras.erase(it);
        }
        if (rig.skeleton.extras.empty()) rig.skeleton.extras = nullptr;
      }
    }
    std::vector<float> ibm;
    if (skin.inverseBindMatrices >= 0) {
      int components = 0;
      const std::string field = fmt::format("skins[{}].inverseBindMatrices", s);
      RP_ASSIGN(ibm, readFloats(doc, ctx, skin.inverseBindMatrices, {{TINYGLTF_TYPE_MAT4}, {TINYGLTF_COMPONENT_TYPE_FLOAT}}, field, components));
      if (ibm.size() / 16 < skin.joints.size()) {
        return fieldError(doc, field, ErrorCode::BadValue, fmt::format("holds {} matrices for {} joints", ibm.size() / 16, skin.joints.size()));
      }
    }
    // A compensation node made a joint (Blender) is folded into its child: no joint of the rig.
    std::vector<size_t> kept;
    for (size_t j = 0; j < skin.joints.size(); ++j) {
      const size_t node = static_cast<size_t>(skin.joints[j]);
      if (layout.boneOfNode[node] >= 0 || layout.translationOfNode[node] < 0) kept.push_back(j);
    }
    std::vector<glm::mat4> matrices(kept.size(), glm::mat4(1.0f));
    std::vector<glm::mat4> jointWorld(kept.size());
    std::vector<std::string> names(kept.size());
    std::vector<std::string> hidden;
    const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
    for (size_t k = 0; k < kept.size(); ++k) {
      const size_t j = kept[k];
      const int bone = layout.boneOfNode[static_cast<size_t>(skin.joints[j])];
      if (bone < 0) {
        return fieldError(doc, fmt::format("skins[{}].joints[{}]", s, j), ErrorCode::BadValue, "a joint carries a mesh and no skeleton could take it");
      }
      if (!ibm.empty()) std::copy_n(ibm.data() + j * 16, 16, glm::value_ptr(matrices[k]));
      jointWorld[k] = world[static_cast<size_t>(bone)];
      names[k] = rig.skeleton.bones[static_cast<size_t>(bone)].name;
      if (!shown[static_cast<size_t>(skin.joints[j])]) hidden.push_back(names[k]);
    }
    if (!hidden.empty()) {
      std::string listed;
      for (size_t h = 0; h < hidden.size() && h < 5; ++h) listed += (h > 0 ? ", '" : "'") + hidden[h] + "'";
      rig.provenance.warn("joints-outside-scene", fmt::format("skins[{}]: {} of its {} joints ({}{}) are in no scene, so a viewer showing the "
                                                              "file's scenes leaves them out (glTF-Validator NODE_SKIN_NO_SCENE); read as joints all the same",
                                                              s, hidden.size(), skin.joints.size(), listed, hidden.size() > 5 ? ", ..." : ""));
    }
    layout.bindShape[s] = takeBindShape(jointWorld, matrices, s, names, rig.provenance);
    for (size_t k = 0; k < kept.size(); ++k) {
      const int bone = layout.boneOfNode[static_cast<size_t>(skin.joints[kept[k]])];
      Bone& b = rig.skeleton.bones[static_cast<size_t>(bone)];
      const glm::mat4& matrix = matrices[k];
      if (!b.inverseBind) {
        b.inverseBind = matrix;
      } else if (*b.inverseBind != matrix) {
        rig.provenance.warn("inverse-bind-differs", fmt::format("bone '{}' has different inverse bind matrices in two skins; the first is kept", b.name));
      }
      if (std::find(rig.skeleton.joints.begin(), rig.skeleton.joints.end(), static_cast<uint32_t>(bone)) == rig.skeleton.joints.end()) {
        rig.skeleton.joints.push_back(static_cast<uint32_t>(bone));
      }
    }
  }
  for (Rig& rig : rigs) {
    // Every bone, in bone order, is what an empty joint list means (rig.hpp).
    bool all = rig.skeleton.joints.size() == rig.skeleton.bones.size();
    for (size_t j = 0; all && j < rig.skeleton.joints.size(); ++j) all = rig.skeleton.joints[j] == j;
    if (all) rig.skeleton.joints.clear();
  }
  return layout;
}

}  // namespace rigport::gltf_in
