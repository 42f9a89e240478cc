// The neutral rig model: the only thing formats and exporters share (fastgltf-style: flat vectors,
// references are indices). Readers fill it in their source's axes and units and record those in
// `Provenance::axes`; `toGltfAxes()` (core/axes.hpp) maps it to glTF's Y-up, right-handed metres.
//
// Matrix names state direction (ufbx): `Bone::inverseBind` maps mesh (bind) space to bone space.
// glm conventions: column vectors, column-major storage (= glTF layout); glm::quat is built as
// (w, x, y, z) but stored x, y, z, w.
//
// `extras` (Bone, Skeleton, Animation, Rig): null or a JSON object of data glTF has no field for;
// the glTF exporter writes it to the extras of the bone's node, the skin, the animation and the
// scene, its own keys winning on a clash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <nlohmann/json.hpp>

#include "core/default_init_allocator.hpp"
#include "core/hash.hpp"
#include "core/texture.hpp"

namespace rigport {

struct Bone {
  std::string name;
  int32_t parent = -1;  // index into Skeleton::bones; always < this bone's own index, or -1
  // Local bind pose relative to the parent (or to the model root for parent -1).
  glm::vec3 translation{0.0f};
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};
  glm::vec3 scale{1.0f};
  // Mesh space -> bone space at bind time. Absent: derived as inverse(world bind pose).
  std::optional<glm::mat4> inverseBind;
  std::optional<uint32_t> id;        // the format's own bone id (HAnim node id, IFP bone tag, ...)
  // The format's hash of the name, where it stores one, and the function that made it (core/hash.hpp).
  // 64 bits because some formats hash with FNV-1 64 (sims3_clip.md §2.13); 32-bit hashes are zero-extended.
  std::optional<uint64_t> nameHash;
  HashKind nameHashKind = HashKind::None;
  // "framePose": {"translation", "rotation" [x,y,z,w], "scale"}, the file's own pose when a reader
  // chose another rest pose (renderware: the skin's bind pose); in the rig's axes, which
  // convertAxes() keeps it in.
  nlohmann::json extras;

  glm::mat4 localMatrix() const;
};

struct Skeleton {
  std::vector<Bone> bones;
  // The skin's joints, in the source's palette order; empty means "every bone, in bone order".
  // Influences name bones, the exporter maps them to positions in this list.
  std::vector<uint32_t> joints;
  // Whether a child inherits its parent's scale. true: glTF's rule, W_c = W_p · T_c · R_c · S_c.
  // false: segment scale compensation (Spore's animation, rw4_arena.md §5): the parent's scale
  // moves the child's origin but is undone below it, W_c = W_p · T_c · S_p⁻¹ · R_c · S_c, S_p the
  // parent's own local scale. The glTF exporter writes that with a node between the two
  // (export/gltf_scale_compensation.hpp).
  bool inheritScale = true;
  nlohmann::json extras;

  // Per bone, its world matrix composed by the rule inheritScale states.
  std::vector<glm::mat4> worldBindMatrices() const;
  // Index of the bone named `name`, or -1.
  int32_t find(const std::string& name) const;
  std::vector<uint32_t> jointList() const;  // `joints`, or 0..bones-1 when it is empty
};

// 1/s per component; a zero component (a collapsed axis, nothing to undo) gives 1.
glm::vec3 inverseScale(const glm::vec3& s);

// No NaN or infinite entry.
bool allFinite(const glm::mat4& m);

// The inverse of a world bind matrix: what the exporter gives a joint that has no inverse bind
// matrix. In float; in double when float's products overflow (glm::inverse multiplies three
// entries, and the determinant of scales of 1e13 is 1e39: float then gives zeros and a NaN), so
// that any pose whose inverse float can hold has one. Nullopt when there is none (a zero scale,
// or an inverse beyond float's range).
std::optional<glm::mat4> inverseOfBindPose(const glm::mat4& world);

// Trivial (no member initialisers), so sizing an InfluenceList leaves the elements for the reader
// to write (core/default_init_allocator.hpp); Influence{} and Influence{bone} still give zeros.
struct Influence {
  uint32_t bone;  // index into Skeleton::bones
  float weight;
};
using InfluenceList = std::vector<Influence, DefaultInitAllocator<Influence>>;

// A surface as the source describes it; the glTF exporter writes it as a PBR material with
// metallic 0 and roughness 1 (game materials are not metals; three.js's default, metallic 1,
// renders black without an environment map).
struct Material {
  std::string name;
  glm::vec4 baseColor{1.0f};           // linear RGBA (readers convert 8-bit sRGB colours)
  std::vector<std::string> textures;   // texture names as the file stores them (no paths); the first is the colour map
  std::string normalMap;               // the one of `textures` that is a tangent-space normal map, or empty
  // The base colour texture: an index into Rig::textures, once a texture file bound it
  // (core/texture_binding.hpp); none keeps the material's colour alone.
  std::optional<uint32_t> baseColorTexture;
  std::optional<uint32_t> normalTexture;  // `normalMap` bound, the same way
  nlohmann::json extras;               // null or an object, like the other extras
};

// A run of Mesh::indices drawn with one material.
struct MeshPart {
  uint32_t material = 0;    // index into Rig::materials
  uint32_t firstIndex = 0;  // multiple of 3
  uint32_t indexCount = 0;  // multiple of 3
};

// A blend shape (glTF morph target, Blender shape key; gltf_ecosystem.md §1.2, Spec §3.7.2.2): a
// vertex at weight w lies at base + w·Δ, summed over the mesh's targets, before skinning. Deltas
// are vectors: an axis change turns and scales them but never moves them.
struct MorphTarget {
  std::string name;
  std::vector<glm::vec3> positionDeltas;  // one per vertex
  std::vector<glm::vec3> normalDeltas;    // empty or one per vertex
  // The length of its longest position delta: how far the target moves a vertex at weight 1.
  double longestDelta() const;
};

// A member added here is copied in gltf_export.cpp's copyToConvert() too, which copies a mesh
// member by member.
struct Mesh {
  std::string name;
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;  // empty or one per vertex
  std::vector<glm::vec2> uvs;      // empty or one per vertex (first UV set)
  std::vector<uint32_t> indices;   // triangle list
  // Triangles grouped by material. Empty: one group drawn with a default material (white,
  // metallic 0, roughness 1).
  std::vector<MeshPart> parts;
  // Per-vertex influences in compressed-row form: vertex v owns
  // influences[influenceOffsets[v] .. influenceOffsets[v+1]). Empty offsets = not skinned.
  std::vector<uint32_t> influenceOffsets;
  InfluenceList influences;  // resize() leaves new elements unwritten
  // For an unskinned mesh: the bone it rides on (-1 = model root).
  int32_t attachBone = -1;
  std::vector<MorphTarget> morphTargets;
  // The weight of each target when no clip keys it (glTF mesh.weights): empty or one per target;
  // empty means every weight 0.
  std::vector<float> morphWeights;

  size_t vertexCount() const { return positions.size(); }
  bool skinned() const { return !influenceOffsets.empty(); }
  size_t maxInfluences() const;
};

// How an animation track names its bone. A file that carries its own skeleton resolves `bone`
// while reading; a standalone animation file (.anm, .ifp, .ska) fills what it has and
// `bindAnimations()` resolves against a skeleton from another file.
struct BoneRef {
  std::string name;
  std::optional<uint32_t> id;
  // As Bone::nameHash. With a kind other than None, a binder can match a skeleton that stores no
  // hashes by hashing its bone names: hashName(nameHashKind, bone.name) == *nameHash.
  std::optional<uint64_t> nameHash;
  std::optional<uint32_t> position;  // the bone's index in the target skeleton's order (.anm)
  HashKind nameHashKind = HashKind::None;  // after position, so {name, id, hash, position} initialisers still work
  std::vector<std::string> aliases;        // other names the games give the same bone, tried after `name`
};

// How values between two keys are found; the same three modes as glTF samplers (gltf_ecosystem.md
// §1.3). Before the first and after the last key the value is held.
enum class Interpolation : uint8_t {
  Step,         // the earlier key's value until the next key time
  Linear,       // lerp; slerp along the shortest arc for rotations
  CubicSpline,  // cubic Hermite through the values with the keys' in/out tangents
};

template <class T>
struct Keys {
  std::vector<float> times;  // seconds, strictly increasing after normalizeKeys()
  std::vector<T> values;
  Interpolation interpolation = Interpolation::Linear;
  // CubicSpline only (empty otherwise): one in- and one out-tangent per key, in value units per
  // SECOND, the convention of glTF's CUBICSPLINE (Spec Appendix C: the curve on [t_k, t_k+1] with
  // d = t_k+1 - t_k is p(s) = (2s³-3s²+1)v_k + (s³-2s²+s)·d·out_k + (-2s³+3s²)v_k+1 + (s³-s²)·d·in_k+1,
  // s = (t - t_k)/d), so the exporter writes them unscaled. A reader whose tangents are per
  // normalised clip time divides by the clip length (battleforge_drs.md §9: in = out = tangent/duration);
  // one whose tangents are per key interval divides by that interval. The in-tangent of the first key
  // and the out-tangent of the last are never used. Rotation tangents are the derivative of the
  // quaternion's 4 components, taken on the stored signs of the values (see normalizeKeys()).
  std::vector<T> inTangents;
  std::vector<T> outTangents;
  bool empty() const { return times.empty(); }
};

// What a track's keys are measured against. glTF animates absolute local TRS, so the exporter (and
// any writer) first calls makeAbsolute() (core/track_space.hpp).
enum class TrackSpace : uint8_t {
  Absolute,  // keys replace the bone's local bind TRS component for component
  // Keys are a delta D applied after the bind B, as matrices: local = B·D (the bind on the left), the
  // rule of Sluggers' runtime when replaceHierarchyCtrl is 0 (sluggers.md §7, "local = bindSRT ·
  // animSRT") and of Blender's pose bones (battleforge_drs.md §9: pose = bind_rot⁻¹·(key − bind_loc),
  // pose rotation = bind_rot⁻¹ ⊗ key). As TRS: T = T_b + R_b·(S_b ⊙ T_d), R = R_b·R_d, S = S_b ⊙ S_d.
  // The scale rule is exact when S_b is uniform or R_d keeps the axes; otherwise B·D has shear,
  // which no TRS (and no glTF node) can hold.
  RelativeToBind,
};

struct BoneTrack {
  BoneRef target;
  int32_t bone = -1;  // resolved index into Skeleton::bones, -1 until bound
  TrackSpace space = TrackSpace::Absolute;
  // Local (parent-relative) keys; each component that has no keys keeps the bind value.
  Keys<glm::vec3> translation;
  Keys<glm::quat> rotation;
  Keys<glm::vec3> scale;
};

// Keys glTF cannot bind to a node path: morph weights, driver values, IK weights.
struct ScalarChannel {
  std::string name;
  std::string target;  // what it drives, in the format's words
  Keys<float> keys;
};

// Keys of a mesh's morph target weights (a glTF `weights` channel, Spec §3.11): every key holds one
// weight per target, key by key, as glTF's sampler output lays them out.
struct MorphWeightTrack {
  std::string mesh;        // the mesh's name, as glTF binds a node's mesh
  int32_t meshIndex = -1;  // resolved index into Rig::meshes, -1 until bound (like BoneTrack::bone)
  uint32_t targetCount = 0;
  std::vector<float> times;    // seconds, strictly increasing
  std::vector<float> weights;  // times.size() × targetCount
  Interpolation interpolation = Interpolation::Linear;
  // CubicSpline only (empty otherwise): laid out as `weights`, per second (as Keys' tangents).
  std::vector<float> inTangents;
  std::vector<float> outTangents;
  // Whether it can drive `mesh`: the mesh it names, with as many targets.
  bool drives(const Mesh& mesh) const { return mesh.name == this->mesh && mesh.morphTargets.size() == targetCount; }
};

struct Event {
  float time = 0.0f;
  std::string type;
  std::string payload;  // format-specific text (JSON where structured)
};

struct Animation {
  std::string name;
  float duration = 0.0f;  // seconds
  std::vector<BoneTrack> tracks;
  std::vector<ScalarChannel> scalars;
  std::vector<MorphWeightTrack> morphWeights;
  std::vector<Event> events;
  nlohmann::json extras;
  size_t keyCount() const;  // all keys of all tracks, scalar channels and morph weight tracks
};

// The source's coordinate system: which axis is up, which way a character faces, handedness and
// size of one unit. `forward` must be perpendicular to `up`. glTF: Y up, characters face +Z.
struct AxisSystem {
  enum class Up { Y, Z };
  enum class Axis { PosX, NegX, PosY, NegY, PosZ, NegZ };
  Up up = Up::Y;
  Axis forward = Axis::PosZ;
  bool rightHanded = true;
  float metresPerUnit = 1.0f;
  bool isGltf() const { return *this == AxisSystem{}; }
  bool operator==(const AxisSystem&) const = default;
};

struct Warning {
  std::string code;     // short stable id, e.g. "unknown-chunk"
  std::string message;  // one line, with offset and path where known
  uint32_t count = 1;   // repeats of the same code+message are folded
};

struct Provenance {
  std::string format;  // registry name, e.g. "renderware-dff"
  std::string file;
  AxisSystem axes;
  std::vector<Warning> warnings;

  // Records a warning; a repeat of the same code and message only raises its count. A hostile file
  // can raise thousands of distinct warnings, so past kMaxListedWarnings messages each further one
  // is folded into one "not listed" entry per code: O(1) per call, bounded memory.
  void warn(std::string code, std::string message, uint32_t times = 1);
  // Adds another provenance's warnings (a clip file's, onto the rig its clips were bound to).
  void absorb(const Provenance& other);
  // Every warning, each folded one counted with its repeats.
  size_t warningCount() const;
  static constexpr size_t kMaxListedWarnings = 64;

 private:
  std::unordered_map<std::string, size_t> index_;  // code + '\n' + message -> position in warnings
};

struct Rig {
  std::string name;
  // What `--item` (and --skeleton FILE#ITEM) also pick this rig by, besides its name: its item id as
  // `info` lists it (a package's TYPE:GROUP:INSTANCE) and other names the file gives it (the name a
  // Sims 3 RIG stores, when the package's name map files it under another).
  std::vector<std::string> itemIds;
  Skeleton skeleton;
  std::vector<Mesh> meshes;
  std::vector<Material> materials;  // referenced by MeshPart::material
  std::vector<Texture> textures;    // referenced by Material::baseColorTexture and normalTexture
  std::vector<Animation> animations;
  Provenance provenance;
  nlohmann::json extras;  // renderware: {"renderware": {"version": "3.6.0.3", "platform": ...}}

  size_t vertexCount() const;
  size_t maxInfluences() const;
};

class AxisChange;  // core/axes.hpp

// Sorts keys by time, merges equal times (keeping the last key, with its tangents), normalises
// quaternions and, except in CUBICSPLINE key sets, makes consecutive ones lie in one hemisphere:
// what glTF's samplers need.
void normalizeKeys(Animation& anim);
// normalizeKeys() of one track. With `turn`, its rotation values are first turned as
// turn->convertTrack() turns them (which was told to leave them), in the same pass: bit for bit
// that call and then this one without `turn` (sorting moves values as they are, so it may come first).
void normalizeTrack(BoneTrack& track, const AxisChange* turn = nullptr);
// normalizeKeys() of the clip's scalar channels: normalizeKeys() is normalizeTrack() of every
// track, then this.
void normalizeScalars(Animation& anim);

}  // namespace rigport
