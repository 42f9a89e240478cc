// The stages of readGltf (gltf_reader.cpp), one file each: the node tree and which rig each node
// belongs to (gltf_skeleton.cpp), the skinned and attached meshes (gltf_mesh.cpp), the animations
// and rigport's own extras (gltf_animation.cpp).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/asset.hpp"
#include "core/read_context.hpp"
#include "formats/gltf/gltf_load.hpp"

namespace rigport::gltf_in {

// The node tree and its split into rigs: one rig per skeleton, the node tree under the topmost
// ancestor of a skin's joints (skins whose joints share that tree share the rig).
struct Layout {
  std::vector<int> parent;       // per node: its parent node, -1 at a root
  std::vector<int> rigOfNode;    // per node: the rig whose skeleton holds it, -1 outside every skeleton
  std::vector<int> boneOfNode;   // per node: its bone in that rig, -1 if not a bone
  // Per node: for rigport's scale compensation node (export/gltf_scale_compensation.hpp), the bone
  // whose translation it carries; -1 otherwise.
  std::vector<int> translationOfNode;
  std::vector<int> rigOfSkin;    // per skin
  std::vector<std::vector<int>> boneNode;  // per rig, per bone: its node (-1 for a synthetic root)
  // Per skin: the bind-shape transform its inverse bind matrices all held, which its meshes'
  // vertices take instead (gltf_skeleton.cpp); none when there was none to move.
  std::vector<std::optional<glm::mat4>> bindShape;
  // Per node: the rig and the index in its meshes of the mesh the node gave (readMeshes), -1 and -1
  // when none; a weights channel on the node drives that mesh.
  std::vector<std::pair<int, int>> meshOfNode;
};

// Builds the layout and each rig's skeleton (bones, joints, inverse bind matrices, bone extras);
// `rigs` gets one entry per skeleton. A file without skins is an error.
Result<Layout> readSkeletons(const Document& doc, ReadContext& ctx, std::vector<Rig>& rigs);
// Skinned meshes (on their skin's rig) and meshes on nodes under a bone (riding on that bone), with
// their morph targets; fills layout.meshOfNode.
Status readMeshes(const Document& doc, ReadContext& ctx, Layout& layout, std::vector<Rig>& rigs, Provenance& file);
// Node TRS channels of bones, weights channels of mesh nodes, plus events and scalar channels from rigport's extras.
Status readAnimations(const Document& doc, ReadContext& ctx, const Layout& layout, std::vector<Rig>& rigs, Provenance& file);

// The bind-shape transform B a skin's inverse bind matrices all hold (joint world × IBM = B for each
// joint, within 1e-4 of the model's size; gltf_bind_shape.cpp): returned for the skin's vertices,
// with `ibm` rewritten to the inverse of each joint's world rest matrix. Nullopt, `ibm` untouched,
// when B is the identity, or when the joints disagree (then a warning gives by how much).
std::optional<glm::mat4> takeBindShape(const std::vector<glm::mat4>& jointWorld, std::vector<glm::mat4>& ibm, size_t skin,
                                       const std::vector<std::string>& jointNames, Provenance& warnings);

// A node's local matrix (its `matrix`, or T·R·S).
glm::mat4 nodeMatrix(const tinygltf::Node& node);

}  // namespace rigport::gltf_in
