// `--base` for a DFF's geometry (dff_onto.cpp says what is kept and what is refused): morph target
// 0's positions and normals, the first UV set, the triangles (and then the Bin Mesh PLG made from
// them), Skin PLG weights and the inverse bind matrices, each written where the edit changed it.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/byte_writer.hpp"
#include "formats/renderware/chunk.hpp"
#include "formats/renderware/dff_layout.hpp"
#include "formats/renderware/dff_onto.hpp"
#include "formats/renderware/geometry.hpp"
#include "formats/renderware/geometry_binmesh.hpp"

namespace rigport::renderware {
namespace {

constexpr size_t kSkinColumnStride = 16;  // a Skin PLG matrix pads each column (§1.5)
constexpr size_t kMaxWeights = 4;         // §1.5: four slots a vertex
// Blender keeps custom normals in its own compressed form: an unedited DFF comes back through
// Blender 3.4 with normals up to 1.9e-4 off (measured on the demo character); 1e-3 is a turn of
// 0.06°, far less than any edit of a normal.
constexpr float kNormalRounding = 1e-3f;

struct Geometry {
  const GeometryPlace& place;
  const Mesh& was;
  const Mesh& now;
  std::string path;
};

bool near(glm::vec3 a, glm::vec3 b, float tolerance) { return glm::all(glm::lessThanEqual(glm::abs(a - b), glm::vec3(tolerance))); }
bool near(glm::vec2 a, glm::vec2 b, float tolerance) { return glm::all(glm::lessThanEqual(glm::abs(a - b), glm::vec2(tolerance))); }

// The vertices whose value changed; none when either side lacks the array (an original without
// normals keeps none: glTF exporters may make them up).
template <class V>
std::vector<size_t> changed(const std::vector<V>& was, const std::vector<V>& now, float tolerance) {
  std::vector<size_t> out;
  if (was.size() != now.size()) return out;
  for (size_t v = 0; v < was.size(); ++v) {
    if (!near(was[v], now[v], tolerance)) out.push_back(v);
  }
  return out;
}

// A vertex's influences as (original bone, weight), by bone, weights summing to 1 (the glTF
// exporter normalises them).
using Influences = std::vector<std::pair<uint32_t, float>>;
Influences influencesOf(const Mesh& mesh, size_t v, const std::vector<uint32_t>* baseBoneOfRig) {
  Influences out;
  float sum = 0.0f;
  for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) {
    const Influence& inf = mesh.influences[i];
    if (inf.weight == 0.0f) continue;
    out.emplace_back(baseBoneOfRig != nullptr ? (*baseBoneOfRig)[inf.bone] : inf.bone, inf.weight);
    sum += inf.weight;
  }
  for (auto& [bone, weight] : out) weight /= sum;
  std::sort(out.begin(), out.end());
  return out;
}

bool same(const Influences& a, const Influences& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first || !(std::fabs(a[i].second - b[i].second) <= kRounding)) return false;
  }
  return true;
}

// The vertices whose weights changed, with their new influences.
std::vector<std::pair<size_t, Influences>> changedWeights(const OntoJob& job, const Geometry& g) {
  std::vector<std::pair<size_t, Influences>> out;
  if (!g.was.skinned() || !g.now.skinned()) return out;
  std::vector<uint32_t> baseBoneOfRig(job.rigBone.size());
  for (size_t b = 0; b < job.rigBone.size(); ++b) baseBoneOfRig[job.rigBone[b]] = static_cast<uint32_t>(b);
  for (size_t v = 0; v < g.was.positions.size(); ++v) {
    Influences now = influencesOf(g.now, v, &baseBoneOfRig);
    if (!same(influencesOf(g.was, v, nullptr), now)) out.emplace_back(v, std::move(now));
  }
  return out;
}

// The original's bones whose inverse bind matrix the edit changed.
std::vector<uint32_t> changedInverseBinds(const OntoJob& job) {
  std::vector<uint32_t> out;
  for (size_t b = 0; b < job.rigBone.size(); ++b) {
    const auto& was = job.base.skeleton.bones[b].inverseBind;
    const auto& now = job.rig.skeleton.bones[job.rigBone[b]].inverseBind;
    if (was && now && !renderware::near(*was, *now, job.length)) out.push_back(static_cast<uint32_t>(b));
  }
  return out;
}

Status writeTriangles(OntoJob& job, const Geometry& g) {
  const GeometryPlace& p = g.place;
  // New triangles on the same vertices may be vertices renumbered (Blender's glTF exporter orders
  // them its own way): what the original holds a vertex at a time would no longer fit.
  if (!p.perVertex.empty()) {
    std::string what;
    for (const std::string& w : p.perVertex) what += (what.empty() ? "" : ", ") + w;
    return refuse(g.path + "/Struct/triangles", fmt::format("the edit rewired the triangles, and the original holds {} a vertex at a time, "
                                                            "which --base cannot renumber; convert without --base", what));
  }
  // Triangle t of the mesh is the file's triangle t only where readDff kept their order (a list
  // grouped by material) and the edit kept each triangle's material.
  for (size_t t = 0; t < p.numTriangles; ++t) {
    const size_t at = p.trianglesAt + 8 * t;
    const uint32_t v0 = job.file[at + 2] | job.file[at + 3] << 8, v1 = job.file[at] | job.file[at + 1] << 8;
    const uint32_t v2 = job.file[at + 6] | job.file[at + 7] << 8;
    if (g.was.indices[3 * t] != v0 || g.was.indices[3 * t + 1] != v1 || g.was.indices[3 * t + 2] != v2) {
      return refuse(g.path + "/Struct/triangles", "the original lists its triangles interleaved by material, so the edited mesh's "
                                                  "triangles cannot be matched to its material ids; convert without --base");
    }
  }
  const bool sameParts = g.was.parts.size() == g.now.parts.size() &&
                         std::equal(g.was.parts.begin(), g.was.parts.end(), g.now.parts.begin(), [](const MeshPart& a, const MeshPart& b) {
                           return a.firstIndex == b.firstIndex && a.indexCount == b.indexCount;
                         });
  if (!sameParts) {
    return refuse(g.path + "/Struct/triangles", "the edit moved triangles between materials; --base keeps each triangle's material id");
  }
  std::vector<uint16_t> materials(p.numTriangles);
  for (size_t t = 0; t < p.numTriangles; ++t) {
    const size_t at = p.trianglesAt + 8 * t;
    materials[t] = static_cast<uint16_t>(job.file[at + 4] | job.file[at + 5] << 8);
    putU16(job.file, at, static_cast<uint16_t>(g.now.indices[3 * t + 1]));
    putU16(job.file, at + 2, static_cast<uint16_t>(g.now.indices[3 * t]));
    putU16(job.file, at + 6, static_cast<uint16_t>(g.now.indices[3 * t + 2]));
  }
  if (!p.binMesh) return Ok{};
  // The Bin Mesh PLG lists the same triangles by material: made again, as a triangle list.
  ByteWriter w;
  writeBinMesh(w, g.now.indices, materials, getU32(job.file, p.binMesh->header + 8));
  job.splices.push_back(Splice{p.binMesh->header, p.binMesh->end - p.binMesh->header, w.take()});
  putU32(job.file, p.flagsAt, p.flags & ~kGeoTriStrip);
  return Ok{};
}

Status writeWeights(OntoJob& job, const Geometry& g, const std::vector<std::pair<size_t, Influences>>& edits) {
  const SkinPlace& skin = *g.place.skin;
  const std::vector<uint32_t>& joints = job.base.skeleton.joints;
  std::vector<bool> used(256, false);
  for (uint32_t i = 0; i < skin.numUsedBones; ++i) used[job.file[skin.usedBonesAt + i]] = true;
  bool grew = false;
  uint32_t maxWeights = skin.maxWeights;
  for (const auto& [v, influences] : edits) {
    if (influences.size() > kMaxWeights) {
      return refuse(g.path + "/Extension/SkinPlg", fmt::format("vertex {} has {} weights; a Skin PLG holds {}", v, influences.size(), kMaxWeights));
    }
    for (size_t k = 0; k < kMaxWeights; ++k) {
      uint8_t node = 0;
      float weight = 0.0f;
      if (k < influences.size()) {
        const auto it = std::find(joints.begin(), joints.end(), influences[k].first);
        if (it == joints.end() || it - joints.begin() > 255) {
          return refuse(g.path + "/Extension/SkinPlg", fmt::format("vertex {} is weighted to bone '{}', which is no HAnim node of the original",
                                                                   v, job.base.skeleton.bones[influences[k].first].name));
        }
        node = static_cast<uint8_t>(it - joints.begin());
        weight = influences[k].second;
        grew |= !skin.oldLayout && !used[node];
        used[node] = true;
      }
      putU8(job.file, skin.indicesAt + 4 * v + k, node);
      putF32(job.file, skin.weightsAt + 16 * v + 4 * k, weight);
    }
    maxWeights = std::max(maxWeights, static_cast<uint32_t>(influences.size()));
  }
  if (skin.oldLayout) return Ok{};  // §1.5: the old layout keeps no summary
  const size_t header = skin.chunk.header + kChunkHeaderSize;
  putU8(job.file, header + 2, static_cast<uint8_t>(maxWeights));
  if (!grew) return Ok{};
  if (skin.splitMeshes != 0) {
    return refuse(g.path + "/Extension/SkinPlg", "the edit weights nodes the original's Skin PLG split data (its per-mesh bone remap) "
                                                 "does not list; convert without --base");
  }
  std::vector<uint8_t> list;
  for (uint32_t n = 0; n < 256; ++n) {
    if (used[n]) list.push_back(static_cast<uint8_t>(n));
  }
  putU8(job.file, header + 1, static_cast<uint8_t>(list.size()));
  job.splices.push_back(Splice{skin.usedBonesAt, skin.numUsedBones, std::move(list)});
  return Ok{};
}

void writeInverseBinds(OntoJob& job, const SkinPlace& skin, const std::vector<uint32_t>& bones) {
  const std::vector<uint32_t>& joints = job.base.skeleton.joints;
  for (uint32_t b : bones) {
    const auto it = std::find(joints.begin(), joints.end(), b);
    const auto node = static_cast<uint32_t>(it - joints.begin());
    if (it == joints.end() || node >= skin.numBones) continue;
    putRwMatrix(job.file, skin.matrixAt(node), kSkinColumnStride, *job.rig.skeleton.bones[job.rigBone[b]].inverseBind);
  }
}

Status writeGeometryOnto(OntoJob& job, const Geometry& g, const std::vector<uint32_t>& inverseBinds) {
  const GeometryPlace& p = g.place;
  if (g.now.positions.size() != g.was.positions.size()) {
    return refuse(g.path, fmt::format("the mesh has {} vertices, the original {}: its prelit colours, UV sets, extra vertex colours, morph "
                                      "targets and Skin PLG hold one entry a vertex, so --base keeps the count; convert without --base "
                                      "for a new file", g.now.positions.size(), g.was.positions.size()));
  }
  if (g.now.indices.size() != g.was.indices.size()) {
    return refuse(g.path, fmt::format("the mesh has {} triangles, the original {}: --base keeps the count (material ids, Bin Mesh PLG); "
                                      "convert without --base for a new file", g.now.indices.size() / 3, g.was.indices.size() / 3));
  }
  const std::vector<size_t> positions = changed(g.was.positions, g.now.positions, job.length);
  const std::vector<size_t> normals = p.normalsAt ? changed(g.was.normals, g.now.normals, kNormalRounding) : std::vector<size_t>{};
  const std::vector<size_t> uvs = p.uvsAt ? changed(g.was.uvs, g.now.uvs, kRounding) : std::vector<size_t>{};
  const bool triangles = g.now.indices != g.was.indices;
  const auto weights = changedWeights(job, g);
  const bool skinned = p.skin || p.nativeSkin;
  if (p.native && (!positions.empty() || !normals.empty() || !uvs.empty() || triangles || !weights.empty() || (p.nativeSkin && !inverseBinds.empty()))) {
    return refuse(g.path + "/Extension/NativeDataPlg", "native geometry keeps its vertices, weights and skin matrices in the platform's own "
                                                       "layout, which --base does not rewrite; only its frames can be edited");
  }
  for (size_t v : positions) {
    for (int k = 0; k < 3; ++k) putF32(job.file, *p.positionsAt + 12 * v + 4 * static_cast<size_t>(k), g.now.positions[v][k]);
  }
  if (!positions.empty()) {
    const glm::vec4 sphere = boundingSphere(g.now.positions);
    for (int k = 0; k < 4; ++k) putF32(job.file, p.sphereAt + 4 * static_cast<size_t>(k), sphere[k]);
  }
  for (size_t v : normals) {
    for (int k = 0; k < 3; ++k) putF32(job.file, *p.normalsAt + 12 * v + 4 * static_cast<size_t>(k), g.now.normals[v][k]);
  }
  for (size_t v : uvs) {
    for (int k = 0; k < 2; ++k) putF32(job.file, *p.uvsAt + 8 * v + 4 * static_cast<size_t>(k), g.now.uvs[v][k]);
  }
  if (triangles) RP_CHECK(writeTriangles(job, g));
  if (!skinned || p.native) return Ok{};
  RP_CHECK(writeWeights(job, g, weights));
  writeInverseBinds(job, *p.skin, inverseBinds);
  return Ok{};
}

}  // namespace

Status writeGeometriesOnto(OntoJob& job) {
  const std::vector<GeometryPlace>& geometries = job.places.geometries;
  const std::vector<uint32_t>& atomics = job.places.atomicGeometry;
  if (job.rig.meshes.size() != job.base.meshes.size()) {
    return refuse("Clump/Atomic", fmt::format("the rig has {} meshes, the original {} atomics; --base cannot add or remove one: convert "
                                              "without --base for a new file", job.rig.meshes.size(), job.base.meshes.size()));
  }
  const std::vector<uint32_t> inverseBinds = changedInverseBinds(job);
  std::vector<bool> done(geometries.size(), false);
  // Atomics sharing a geometry: the first one's mesh is written into it.
  for (size_t a = 0; a < atomics.size() && a < job.base.meshes.size(); ++a) {
    const uint32_t gi = atomics[a];
    if (gi >= geometries.size() || done[gi]) continue;
    done[gi] = true;
    const Geometry g{geometries[gi], job.base.meshes[a], job.rig.meshes[a], fmt::format("Clump/Geometry[{}]", gi)};
    RP_CHECK(writeGeometryOnto(job, g, inverseBinds));
  }
  return Ok{};
}

}  // namespace rigport::renderware
