// `--base` for Spore's own meshes (docs/spore_meshes.md; arena_onto.cpp says what is kept and what
// is refused): each edited vertex's position, normal and first UV component written in its
// VertexDescription element's own D3DDECLTYPE (FLOAT1–4; a UBYTE4 normal packed as n × 127.5 +
// 127.5, rw4_enums.py; a FLOAT16 UV), and each vertex whose influences changed gets UBYTE4 blend
// indices 3 × bone and UBYTE4N weights summing to 255. Tangents are not read, so an edited normal
// leaves its tangent as it was. Other element types are refused when an edit reaches them.
#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "formats/rw4/arena_onto.hpp"
#include "formats/rw4/spore_mesh_layout.hpp"

namespace rigport::rw4 {
namespace {

using namespace spore;

constexpr const char* kAxes[] = {"x", "y", "z"};
constexpr float kPacked = 127.5f;  // a UBYTE4 normal component: b = n × 127.5 + 127.5

void putLe(std::vector<uint8_t>& file, size_t at, uint32_t v, size_t bytes) {
  for (size_t k = 0; k < bytes; ++k) file[at + k] = static_cast<uint8_t>(v >> (8 * k));
}

const char* declName(uint8_t type) {
  static constexpr const char* kNames[] = {"FLOAT1", "FLOAT2",  "FLOAT3",   "FLOAT4",    "D3DCOLOR",  "UBYTE4",    "SHORT2",   "SHORT4",  "UBYTE4N",
                                           "SHORT2N", "SHORT4N", "USHORT2N", "USHORT4N", "UDEC3",     "DEC3N",     "FLOAT16_2", "FLOAT16_4"};
  return type < std::size(kNames) ? kNames[type] : "unknown";
}

// Component c of a position, normal or UV element at `at`, as the reader decodes its type.
Status storeComponent(OntoJob& job, size_t at, uint8_t type, bool normal, size_t c, float v, const std::string& path) {
  const bool isFloat = type <= kFloat4 && c <= type;
  if (isFloat && std::isfinite(v)) {
    putLe(job.file, at + 4 * c, std::bit_cast<uint32_t>(v), 4);
    return Ok{};
  }
  if (type == kFloat16x2 && c < 2 && std::isfinite(v) && std::fabs(v) <= 65504.0f) {
    putLe(job.file, at + 2 * c, floatToHalf(v), 2);
    return Ok{};
  }
  const float limit = 1.0f + 0.5f / kPacked;
  if (normal && type == kUByte4 && c < 3 && std::fabs(v) <= limit) {
    job.file[at + c] = static_cast<uint8_t>(std::clamp(std::round(v * kPacked + kPacked), 0.0f, 255.0f));
    return Ok{};
  }
  const bool known = isFloat || type == kFloat16x2 || (normal && type == kUByte4);
  return refuse(path, known ? fmt::format("{} does not fit the original's {} element; --base keeps the VertexDescription's types", v, declName(type))
                            : fmt::format("the original's element is {}, which --base does not write", declName(type)));
}

template <class V>
Status writeVectors(OntoJob& job, const SporeMeshPlace& place, const std::optional<SporeMeshPlace::Element>& e, bool normal,
                    const std::vector<V>& was, const std::vector<V>& now, float tolerance, const std::string& path) {
  if (!e || was.size() != now.size()) return Ok{};
  for (size_t v = 0; v < was.size(); ++v) {
    bool edited[4] = {false, false, false, false};
    if (!editedComponents(was[v], now[v], tolerance, normal, edited)) continue;
    for (int c = 0; c < V::length(); ++c) {
      if (!edited[c]) continue;
      RP_CHECK(storeComponent(job, place.vertexAt + v * place.stride + e->offset, e->type, normal, static_cast<size_t>(c), now[v][c],
                              fmt::format("{}[{}].{}", path, v, kAxes[c])));
    }
  }
  return Ok{};
}

// Vertex v's influences as UBYTE4 blend indices (3 × file bone) and UBYTE4N weights summing to 255.
Status storeInfluences(OntoJob& job, const SporeMeshPlace& place, uint32_t v, const std::vector<Influence>& now,
                       const std::vector<uint32_t>& rigToFile, const std::string& path) {
  const bool weighted = place.weights.has_value();
  if (place.indices->type != kUByte4 || (weighted && place.weights->type != kUByte4N)) {
    return refuse(path + "/blendIndices", fmt::format("the original's blend elements are {} and {}, which --base does not write (UBYTE4 "
                                                      "and UBYTE4N are)",
                                                      declName(place.indices->type), weighted ? declName(place.weights->type) : "none"));
  }
  if (now.size() > 4 || (!weighted && (now.size() != 1 || std::fabs(now[0].weight - 1.0f) > kRounding))) {
    return refuse(path + "/blendWeights", fmt::format("vertex {} has {} influence(s); its elements hold {}", v, now.size(),
                                                      weighted ? "4" : "1 bone with weight 1 (no weights element)"));
  }
  const std::vector<int32_t> units = weightUnits(now, 255);
  uint8_t* vertex = job.file.data() + place.vertexAt + v * place.stride;
  for (size_t k = 0; k < 4; ++k) {
    const uint32_t fileBone = k < now.size() ? rigToFile[now[k].bone] : 0;
    if (fileBone * kPaletteRowsPerBone > 255) {
      return refuse(path + "/blendIndices", fmt::format("vertex {} is weighted to bone '{}', file bone {}: 3 × {} does not fit the "
                                                        "original's UBYTE4 blend index",
                                                        v, job.base.skeleton.bones[now[k].bone].name, fileBone, fileBone));
    }
    vertex[place.indices->offset + k] = static_cast<uint8_t>(fileBone * kPaletteRowsPerBone);
    if (weighted) vertex[place.weights->offset + k] = static_cast<uint8_t>(k < now.size() ? units[k] : 0);
  }
  return Ok{};
}

template <class V>
bool anyEdited(const std::vector<V>& was, const std::vector<V>& now, float tolerance, bool normal) {
  if (was.size() != now.size()) return true;
  bool edited[4];
  for (size_t v = 0; v < was.size(); ++v)
    if (editedComponents(was[v], now[v], tolerance, normal, edited)) return true;
  return false;
}

// A BlendShapeBuffer mesh is kept as the original holds it: --base writes none of its streams, so an
// edit of its vertices, skin or shapes is refused rather than dropped.
Status keepBlendShapeMesh(const OntoJob& job, const SporeMeshPlace& place, const Mesh& was, const Mesh& now) {
  const std::string path = fmt::format("BlendShapeBuffer[{}]", place.row);
  RP_CHECK(checkCounts(was, now, path + "/vertexCount", path + "/Mesh"));
  const char* edited = nullptr;
  if (anyEdited(was.positions, now.positions, job.length, false)) edited = "positions";
  if (anyEdited(was.normals, now.normals, kNormalRounding, true)) edited = "normals";
  if (anyEdited(was.uvs, now.uvs, kRounding, false)) edited = "UVs";
  if (was.morphTargets.size() != now.morphTargets.size()) edited = "shape count";
  for (size_t t = 0; edited == nullptr && t < was.morphTargets.size(); ++t) {
    if (anyEdited(was.morphTargets[t].positionDeltas, now.morphTargets[t].positionDeltas, job.length, false)) edited = "shapes";
  }
  const std::vector<uint32_t> baseBoneOfRig = baseBonesOfRig(job);
  for (uint32_t v = 0; edited == nullptr && now.skinned() && v < was.positions.size(); ++v) {
    if (!sameInfluences(influencesOf(was, v, nullptr), influencesOf(now, v, &baseBoneOfRig), 0.5f / 255)) edited = "skin";
  }
  if (edited == nullptr) return Ok{};
  return refuse(path, fmt::format("the mesh's {} changed; --base does not write a BlendShapeBuffer (convert without --base for a new "
                                  "arena)",
                                  edited));
}

}  // namespace

Status writeSporeMeshOnto(OntoJob& job, const SporeMeshPlace& place, const Mesh& was, const Mesh& now) {
  if (place.blendShapeBuffer) return keepBlendShapeMesh(job, place, was, now);
  const std::string path = fmt::format("VertexBuffer[{}]", place.row);
  RP_CHECK(checkCounts(was, now, path + "/vertexCount", path + "/Mesh"));
  RP_CHECK(writeVectors(job, place, place.position, false, was.positions, now.positions, job.length, path + "/position"));
  RP_CHECK(writeVectors(job, place, place.normal, true, was.normals, now.normals, kNormalRounding, path + "/normal"));
  RP_CHECK(writeVectors(job, place, place.uv, false, was.uvs, now.uvs, kRounding, path + "/texcoord0"));
  if (!place.indices) return Ok{};
  if (!now.skinned()) return refuse(path + "/blendIndices", "the mesh is not skinned in the rig; the original's is, and --base keeps its elements");
  const std::vector<uint32_t> baseBoneOfRig = baseBonesOfRig(job);
  const std::vector<uint32_t> rigToFile = fileBones(job.place);
  for (uint32_t v = 0; v < was.positions.size(); ++v) {
    const std::vector<Influence> influences = influencesOf(now, v, &baseBoneOfRig);
    if (sameInfluences(influencesOf(was, v, nullptr), influences, 0.5f / 255)) continue;
    RP_CHECK(storeInfluences(job, place, v, influences, rigToFile, fmt::format("{}/vertex[{}]", path, v)));
  }
  return Ok{};
}

}  // namespace rigport::rw4
