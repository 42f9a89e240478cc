// The rig as JSON, for `rigport info --json` (Summary) and `rigport dump --json` (Full), and the
// other things the command line reports as JSON: clip sets, items, bind coverage, errors.
// Units are the rig's own (see provenance.axes); quaternions are [x, y, z, w]; matrices are 16
// numbers, column-major (glTF's layout); bone, joint and track references are indices into
// skeleton.bones.
#pragma once

#include <nlohmann/json.hpp>

#include "core/asset.hpp"
#include "core/bind.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

enum class JsonDetail {
  Summary,  // counts per part, animation names/durations/key counts, warnings
  Full,     // everything: every bone, vertex, influence, key and event
};

// What a summary says of a mesh: counted from it, or kept by a read that let the mesh's arrays go
// (`info` reads a DFF mesh by mesh, ReadOptions::meshBuilt).
struct MeshCounts {
  std::string name;
  size_t vertices = 0;
  size_t triangles = 0;
  bool skinned = false;
  size_t maxInfluences = 0;
  int32_t attachBone = -1;
};
MeshCounts countMesh(const Mesh& mesh);
std::vector<MeshCounts> countMeshes(const Rig& rig);
// Over all meshes: vertices added up, the most influences of any vertex.
// The keys an animation's file stores: keyCount(), or the count a reader recorded as
// extras.<format>.storedKeys where the model holds keys the file does not (a Sims 3 CLIP's constant
// channels store a value and no key record, sims3_clip.md R8; the model gives each one key).
size_t storedKeyCount(const Animation& anim);
// What a summary says of an animation: counted from it, or kept by a read that let its keys go
// (`info` reads a Sims 3 package clip by clip, ReadOptions::clipsRead).
struct AnimationCounts {
  std::string name;
  float duration = 0.0f;
  size_t tracks = 0;
  size_t keys = 0;  // storedKeyCount()
  size_t events = 0;
};
AnimationCounts countAnimation(const Animation& anim);
std::vector<AnimationCounts> countAnimations(const std::vector<Animation>& animations);

size_t totalVertices(const std::vector<MeshCounts>& meshes);
size_t maxInfluences(const std::vector<MeshCounts>& meshes);

nlohmann::ordered_json rigToJson(const Rig& rig, JsonDetail detail);
// The Summary of a rig whose meshes are described by `meshes` (one per rig mesh, in order).
nlohmann::ordered_json rigSummaryToJson(const Rig& rig, const std::vector<MeshCounts>& meshes);
// A clip set whose clips are described by `animations` (one per clip, in order): their names,
// durations, track, key and event counts.
nlohmann::ordered_json clipSetToJson(const ClipSet& clips, const std::vector<AnimationCounts>& animations);
nlohmann::ordered_json itemsToJson(const std::vector<ItemInfo>& items);
nlohmann::ordered_json coverageToJson(const BindReport& report);
// {code, file, trail: [{where, offset}], message, text}: the trail outside in, `text` = describe().
nlohmann::ordered_json errorToJson(const Error& error);

}  // namespace rigport
