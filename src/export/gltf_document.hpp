// The glTF document under construction and the export stages that fill it, one file each:
// gltf_nodes.cpp (bone nodes and names), gltf_skin.cpp (joints and inverse bind matrices),
// gltf_mesh.cpp + gltf_influences.cpp (primitives, JOINTS_n/WEIGHTS_n), gltf_material.cpp,
// gltf_texture.cpp (embedded PNG images), gltf_animation.cpp.
// gltf_export.cpp prepares the rig and assembles the JSON, the GLB or the .gltf + .bin.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/axes.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "export/gltf.hpp"
#include "export/gltf_buffer.hpp"
#include "export/gltf_json.hpp"

namespace rigport::gltf {

// The skeleton's nodes and skin: what depends only on the skeleton, the ground lift, which bones
// need scale compensation and the rig's name (a synthetic root takes it). Made by addSkeleton, and
// shared by the exports of one skeleton through an ExportCache (a package's clips on one rig).
struct SkeletonPart {
  std::vector<uint32_t> boneNode;  // node index of bone i
  std::vector<std::optional<uint32_t>> compensationNode;
  std::optional<uint32_t> groundNode;
  uint32_t skeletonRoot = 0;
  std::vector<uint32_t> sceneNodes;      // the scene roots among the skeleton's nodes
  std::vector<std::string> names;        // per skeleton node, in node order
  std::vector<std::vector<uint32_t>> children;  // per skeleton node
  std::vector<bool> compensated;         // per bone (compensatedBones())
  std::unordered_set<std::string> usedNames;
  std::vector<uint32_t> joints;          // empty: no skin
  std::vector<int32_t> jointOfBone;
  uint32_t rootJoint = 0;
  std::vector<glm::mat4> inverseBinds;   // per joint, last row 0,0,0,1
  // The nodes as JSON text (comma-separated objects), when no other node hangs under one of them.
  std::string nodesJson;
  // The skin object as JSON text, naming the inverse bind matrices' accessor `skinInverseBinds`
  // (the skeleton's extras and inheritScale, which the skin writes too, are compared exactly).
  std::string skinJson;
  uint32_t skinInverseBinds = 0;
  // What a cache compares before reusing the part: the skeleton, the lift, the root's wanted name.
  Skeleton skeleton;                     // only in a cached part
  float groundLift = 0.0f;
  std::string rootName;
};

// An animation's sampler and channel, as glTF has them (gltf_animation.cpp). `interpolation` and
// `path` are string literals: records pointing at the same literals have the same text.
struct AnimationSampler {
  uint32_t input, output;
  const char* interpolation;
  bool operator==(const AnimationSampler&) const = default;
};
struct AnimationChannel {
  uint32_t sampler, node;
  const char* path;
  bool operator==(const AnimationChannel&) const = default;
};

// The "channels" and "samplers" arrays of the last animation written, each as JSON text with the
// records it was written from: the clips of a package (one a file, through an ExportCache) or of
// an IFP (one file) on one skeleton mostly animate the same bones, so their channels, and in a
// package their samplers too, are the same records, written once instead of once a clip (a
// 500-clip package: 80 records a clip, 6.6 M instructions).
struct AnimationRecordsText {
  std::vector<AnimationChannel> channels;
  std::string channelsJson;
  std::vector<AnimationSampler> samplers;
  std::string samplersJson;
};

struct Document {
  std::shared_ptr<const SkeletonPart> skeleton;  // set by addSkeleton
  // The nodes after the skeleton's (meshes), node index skeleton->names.size() + i.
  Json nodes = Json::array();
  // Children given to skeleton nodes after the skeleton was made (meshes riding on a bone or on the
  // ground node): {parent node, child node}.
  std::vector<std::pair<uint32_t, uint32_t>> skeletonChildren;
  Json meshes = Json::array();           // one per mesh: few, so a tree (gltf_mesh.cpp)
  std::optional<uint32_t> ibmAccessor;   // the skin's inverse bind matrices, when there is a skin
  std::string animations;                // a JSON array of the animations (gltf_animation.cpp)
  Json materials = Json::array();        // Rig::materials in order, then the default one if used
  std::optional<uint32_t> defaultMaterial;
  Json textures = Json::array();         // Rig::textures in order (one per distinct image)
  Json images = Json::array();           // texture i's level 0 as a PNG, image i
  Json samplers = Json::array();         // the distinct samplers of the textures
  Json extras = Json::object();          // root extras: data no glTF object can hold (rare)
  std::vector<uint32_t> sceneNodes;      // the scene's root nodes
  std::unordered_set<std::string> usedNames;  // node names taken after the skeleton's (all unique)
  BufferBuilder buffer;

  // Copied from the skeleton part by addSkeleton: node index of bone i is boneNode[i]; the node
  // lifting the model onto the ground (GltfOptions::groundLift), which also holds the meshes riding
  // on no bone.
  std::vector<uint32_t> boneNode;
  // Per rig mesh: its node (addMeshes), where a weights channel goes; none for a mesh without vertices.
  std::vector<std::optional<uint32_t>> meshNode;
  // Per bone: the node carrying its translation and its parent's inverse scale, where the skeleton
  // does not inherit scale (gltf_scale_compensation.hpp).
  std::vector<std::optional<uint32_t>> compensationNode;
  std::optional<uint32_t> groundNode;
  // The joints' common root: the root bone's node, or the non-joint node above several root bones.
  uint32_t skeletonRoot = 0;
  // Set when the skeleton has a joint.
  std::optional<uint32_t> skin;
  std::vector<uint32_t> joints;          // skin joint position -> bone index
  std::vector<int32_t> jointOfBone;      // bone index -> skin joint position, or -1
  uint32_t rootJoint = 0;                // the joint given to vertices without influences

  uint32_t nodeCount() const { return static_cast<uint32_t>(skeleton->names.size() + nodes.size()); }
  bool nameTaken(const std::string& name) const { return skeleton->usedNames.count(name) != 0 || usedNames.count(name) != 0; }
  // Hangs node `child` under node `parent`.
  void addChild(uint32_t parent, uint32_t child);
};


// A unique, non-empty node name derived from `wanted` (see gltf_nodes.cpp); adds it to usedNames.
std::string uniqueNodeName(Document& doc, const std::string& wanted, const std::string& fallback);

// The model's extras (null or an object, core/rig.hpp) with `ours` merged over them: rigport's
// own keys win on a clash, so a reader cannot hide what the exporter reports. For the few small
// trees (meshes, materials, root extras); writeExtras (gltf_json.hpp) streams the rest.
Json withModelExtras(const nlohmann::json& model, Json ours);

// One TRS node per bone, parent links, a compensation node above each child of a scaled bone where
// the skeleton does not inherit scale, and a non-joint common root when there are several roots or
// options.groundLift asks for one; refuses a bone whose translation or scale is not finite.
// Then the skin of every skeleton with a joint, used by a mesh or not: joints and float MAT4
// inverse bind matrices. `cache`'s part when it was made from the same skeleton, else a new one
// (kept in `cache` when given).
Status addSkeleton(Document& doc, const Rig& rig, const GltfOptions& options, ExportCache* cache);
// The part of the skin the skeleton part holds (gltf_skin.cpp); refuses joints glTF cannot hold.
Status makeSkin(SkeletonPart& part, const Rig& rig);
// The skin's accessor and indices in `doc`; refuses a skinned mesh without joints.
Status addSkin(Document& doc, const Rig& rig);
// Writes the skeleton's nodes (with the children addChild gave them) and the other nodes: the
// members of the root's "nodes" array.
void writeNodes(JsonWriter& w, const Document& doc, const Rig& rig);
// The skeleton's nodes alone, as addSkeleton caches them.
void writeSkeletonNodes(JsonWriter& w, const SkeletonPart& part, const Rig& rig, const std::vector<std::pair<uint32_t, uint32_t>>& late);
// The skin object (the skeleton part's text, when it has the skin's).
void writeSkin(JsonWriter& w, const Document& doc, const Rig& rig);
// One glTF material per rig material (gltf_material.cpp).
void addMaterials(Document& doc, const Rig& rig);
// One glTF texture, image (level 0 as a PNG in a bufferView) and sampler per rig texture
// (gltf_texture.cpp), encoded as options.png and options.imageThreads say. Images are bufferViews
// no accessor reads: call after every accessor is made.
Status addTextures(Document& doc, const Rig& rig, const GltfOptions& options);
// The material of a mesh without parts, added on first use.
uint32_t defaultMaterial(Document& doc);
// The meshes of a rig that is the exporter's own (moved in, or its axis-converted copy): unit
// normals, u16 indices and byte joints with their weights are written over their arrays, which the
// buffer borrows instead of fresh pages.
struct OwnMeshes {
  std::vector<Mesh>* meshes;  // rig.meshes itself
  // Where the passes read the positions, normals, influences and influence offsets they write over
  // `meshes`', and the UVs and indices: `meshes` itself for a rig moved in; for the copy of a rig
  // the caller keeps, the caller's meshes, whose four arrays the copy only sized (gltf_export.cpp,
  // copyToConvert()), so that each is read and written once rather than copied first. Those four
  // arrays of `meshes` hold nothing to read until the passes have written them; the copy holds no
  // UVs (the buffer borrows the caller's) and its indices only as room for their u16 form, unless
  // `turnedTriangles`; every other member is the copy's. Not `meshes` only with `pending` set.
  const std::vector<Mesh>* from;
  // Set when the positions and normals are still in the source's axes
  // (convertAxesLeavingVertices()): the bounds and unit-normal passes map them on the way.
  std::optional<VertexMap> pending;
  // The triangles are read from `meshes`, not `from`: a mirroring axis change turned them there,
  // in the copy, which then holds them (copyToConvert()).
  bool turnedTriangles = false;
};
// TANGENT for a mesh some part of which draws a material with a normalTexture (and that has a
// normal and a UV per vertex), none otherwise (gltf_tangents.cpp). Call after the position and
// normal passes, which leave an own mesh's vertices in glTF's axes.
// `uvs` and `indices` are the mesh's (read from where OwnMeshes says).
std::optional<uint32_t> writeTangents(Document& doc, const Rig& rig, const Mesh& mesh, const std::vector<glm::vec2>& uvs,
                                      const std::vector<uint32_t>& indices);
// Every mesh: a node, a mesh with one triangle primitive per part (sharing the vertex accessors).
// `own`: the rig's meshes when they are the exporter's, else null.
Status addMeshes(Document& doc, const Rig& rig, const OwnMeshes* own, const GltfOptions& options);
// One glTF animation per animation of `animations` (the rig's, owned by the exporter: each is made
// absolute and its keys normalised in place); what glTF cannot express goes to extras. Key arrays
// already in glTF's layout (times; STEP and LINEAR values) are borrowed by the buffer, not copied,
// so `animations` must stay unchanged and alive until the finished buffer has been written.
// Each clip is checked (validateAnimation(); the caller validates the rest of the rig, with
// AnimationChecks::None) and, when `pendingKeys` is set, converted to glTF's axes
// (convertAxesLeavingVerticesAndKeys() left its keys) just before the rest of its passes, so that
// all of them find its keys in cache.
// `records`: the text of the last animation's channels and samplers, reused where they are the
// same and kept for the next export (ExportCache::records), or null.
Status addAnimations(Document& doc, const Rig& rig, std::vector<Animation>& animations, const AxisChange* pendingKeys,
                     AnimationRecordsText* records);
// validateAnimation() of animations[first], animations[first + 1] and on: an export error raised
// before those clips were checked gives way to the first of theirs, as when validate() checked
// every clip before the export began.
Status validateClipsFrom(const Rig& rig, const std::vector<Animation>& animations, size_t first);

}  // namespace rigport::gltf
