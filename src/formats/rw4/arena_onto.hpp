// Shared pieces of `convert --to rw4-arena --base ORIGINAL` (issue 28): the rig being written, the
// original arena's rig it is written onto (matched bone by bone), where that rig's values lie, and
// the bytes being patched.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/error.hpp"
#include "core/onto.hpp"
#include "core/rig.hpp"
#include "formats/rw4/arena_places.hpp"

namespace rigport::rw4 {

// What a glTF round trip leaves of an unedited value (float rounding of matrices and weights):
// values closer than this to the original's keep its bytes. Lengths scale with the model's size.
constexpr float kRounding = 1e-5f;

struct OntoJob {
  const Rig& base;                // the original's rig as readArena reads it
  const Rig& rig;                 // the edited rig, in the arena's axes
  const RigPlace& place;
  Endian endian = Endian::Big;
  std::vector<uint32_t> rigBone;  // the rig's bone for each of the original's
  float length = kRounding;       // tolerance for positions and translations
  std::vector<uint8_t> file;      // the copy being patched in place: its size never changes
};

// "RenderModelData[12]" or "Skeleton[3]": what the rig's refusals name.
std::string ownerPath(const RigPlace& place);

// Blender keeps custom normals in its own compressed form (the Sluggers demo block comes back with
// normals up to 1.16e-3 off, measured by the add-on test); 4e-3 is a turn of 0.23°.
constexpr float kNormalRounding = 4e-3f;

// Which components of vertex v moved beyond `tolerance` (all or none for a normal, judged by its
// direction: a packed normal decodes a little off unit length, and glTF's is unit), and whether any did.
template <class V>
bool editedComponents(const V& was, const V& now, float tolerance, bool normal, bool edited[4]) {
  bool any = false;
  const V a = normal && glm::length(was) > 0.0f ? glm::normalize(was) : was;
  const V b = normal && glm::length(now) > 0.0f ? glm::normalize(now) : now;
  for (int c = 0; c < V::length(); ++c) {
    // A NaN or an infinity the original holds and the rig keeps is no edit; a new one is, and is refused.
    edited[c] = !(a[c] == b[c]) && !(std::fabs(b[c] - a[c]) <= tolerance) && !(std::isnan(a[c]) && std::isnan(b[c]));
    any = any || edited[c];
  }
  if (normal && any)
    for (int c = 0; c < V::length(); ++c) edited[c] = true;
  return any;
}

// The vertex count and triangles the original's buffers fix; refusals name `countPath` and `indexPath`.
Status checkCounts(const Mesh& was, const Mesh& now, const std::string& countPath, const std::string& indexPath);
// Vertex v's influences on the original's bones (`baseBoneOfRig` maps the rig's, when given), merged and sorted by bone.
std::vector<Influence> influencesOf(const Mesh& mesh, uint32_t v, const std::vector<uint32_t>* baseBoneOfRig);
bool sameInfluences(const std::vector<Influence>& a, const std::vector<Influence>& b, float tolerance);
// Whole steps summing to `full` (largest remainder), in the influences' order.
std::vector<int32_t> weightUnits(const std::vector<Influence>& influences, int32_t full);
// The original's bone of each of the rig's, and the file bone of each of the original's.
std::vector<uint32_t> baseBonesOfRig(const OntoJob& job);
std::vector<uint32_t> fileBones(const RigPlace& place);

// Every mesh's positions, normals, first UVs and skin: RenderOptiMeshData (arena_onto_mesh.cpp)
// and Spore's vertex buffers (writeSporeMeshOnto, arena_onto_spore.cpp).
Status writeMeshesOnto(OntoJob& job);
Status writeSporeMeshOnto(OntoJob& job, const SporeMeshPlace& place, const Mesh& was, const Mesh& now);

}  // namespace rigport::rw4
