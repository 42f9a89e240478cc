// `--base` for an arena's RenderOptiMeshData (arena_onto.cpp says what is kept and what is
// refused): each edited vertex's position, normal and first UV re-encoded in its element's own type
// (§3.1: F, SF, S1, S32K, UB, UB256, CMP; a component the edit left keeps its value), and each
// vertex whose influences changed gets new blend indices (slots of the mesh's remap table, §4.2)
// and weights in theirs. A value the type cannot hold is refused with the range it holds.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "formats/rw4/arena_onto.hpp"
#include "formats/rw4/vertex_format.hpp"

namespace rigport::rw4 {
namespace {

constexpr const char* kAxes[] = {"x", "y", "z", "w"};

struct Submesh {
  const OptiMeshPlace& place;
  const Mesh& was;
  const Mesh& now;
  std::string path;  // RenderOptiMeshData[row]
};

struct Range {
  float lowest = 0.0f, highest = 0.0f;
};

// What component c of element `e` holds when it means `meaning` (vertex_format.hpp), half a step
// beyond its extreme codes included; nullopt: any finite value (F).
std::optional<Range> rangeOf(const VertexElement& e, Meaning meaning, size_t c) {
  switch (e.vertexType) {
    case kUB: return meaning == Meaning::Integer ? Range{-0.5f, 255.5f} : Range{-0.5f / 255, 1.0f + 0.5f / 255};
    case kUB256: return Range{-0.5f, 255.5f};
    case kS1:
      if (meaning == Meaning::Position) return Range{-32767.5f / 256, 32767.5f / 256};
      if (meaning == Meaning::Integer) return Range{-32767.5f, 32767.5f};
      return Range{-1.0f - 0.5f / 32767, 1.0f + 0.5f / 32767};
    case kS32K: return meaning == Meaning::Position ? Range{-32768.5f / 256, 32767.5f / 256} : Range{-32768.5f, 32767.5f};
    case kSF: return Range{-65504.0f, 65504.0f};
    case kCMP: {
      const float steps = c == 2 ? 511.0f : 1023.0f;  // 11:11:10 bits
      return Range{-1.0f - 0.5f / steps, 1.0f + 0.5f / steps};
    }
    default: return std::nullopt;
  }
}

// `value`'s components over vertex v's element `e`, the components `edited` marks replacing what
// the element holds; a value the type cannot hold is refused, naming `path` and the range.
Status storeElement(OntoJob& job, const Submesh& g, const VertexElement& e, Meaning meaning, uint32_t v, const float* value,
                    const bool* edited, size_t components, const std::string& path) {
  uint8_t* p = job.file.data() + g.place.vertexAt + v * g.place.stride + e.offset;
  float stored[4] = {0, 0, 0, 0};
  const size_t n = decodeVertex(e, meaning, p, needsSwap(job.endian), stored);
  for (size_t c = 0; c < std::min(n, components); ++c) {
    if (!edited[c]) continue;
    const std::optional<Range> range = rangeOf(e, meaning, c);
    const bool fits = std::isfinite(value[c]) && (!range || (value[c] >= range->lowest && value[c] <= range->highest));
    if (!fits) {
      return refuse(fmt::format("{}[{}].{}", path, v, kAxes[c]),
                    fmt::format("{} does not fit the original's {} element{}; --base keeps the VertexDescriptor's element types: "
                                "convert without --base for a new arena",
                                value[c], vertexTypeName(e.vertexType),
                                range ? fmt::format(" ({} to {})", range->lowest, range->highest) : std::string(" (finite values)")));
    }
    stored[c] = value[c];
  }
  encodeElement(e, meaning, glm::vec4(stored[0], stored[1], stored[2], stored[3]), job.endian, p);
  return Ok{};
}

// Each vertex of `was`/`now` that moved beyond `tolerance` (editedComponents): its element
// re-encoded. None when the element or either side's values are missing (an original without
// normals keeps none: glTF exporters may make them up).
template <class V>
Status writeVectors(OntoJob& job, const Submesh& g, const std::optional<VertexElement>& e, Meaning meaning, const std::vector<V>& was,
                    const std::vector<V>& now, float tolerance, bool normal, const std::string& path) {
  if (!e || was.size() != now.size()) return Ok{};
  for (uint32_t v = 0; v < was.size(); ++v) {
    float value[4] = {0, 0, 0, 0};
    bool edited[4] = {false, false, false, false};
    if (!editedComponents(was[v], now[v], tolerance, normal, edited)) continue;
    for (int c = 0; c < V::length(); ++c) value[c] = now[v][c];
    RP_CHECK(storeElement(job, g, *e, meaning, v, value, edited, static_cast<size_t>(V::length()), path));
  }
  return Ok{};
}

// The step of a weight stored as `type` (the reader rescales weights to sum 1, §5 of the walkthrough).
float weightStep(uint8_t type) {
  switch (type) {
    case kUB:
    case kUB256: return 1.0f / 255;
    case kS1:
    case kS32K: return 1.0f / 32767;
    case kSF: return 1.0f / 2048;
    default: return 2e-5f;  // float weights: what glTF's normalisation leaves
  }
}

// Weights as stored: integer types as whole steps summing to the type's full weight, as the element
// decodes them (UB and S1 a fraction of full, UB256 and S32K the integer: the reader rescales);
// floats as they are.
std::vector<float> storedWeights(const std::vector<Influence>& influences, uint8_t type) {
  std::vector<float> out(influences.size());
  float sum = 0.0f;
  for (const Influence& x : influences) sum += x.weight;
  if (type == kF || type == kSF) {
    for (size_t k = 0; k < out.size(); ++k) out[k] = influences[k].weight / sum;
    return out;
  }
  const int32_t full = (type == kUB || type == kUB256) ? 255 : 32767;
  const std::vector<int32_t> units = weightUnits(influences, full);
  const bool fraction = type == kUB || type == kS1;
  for (size_t k = 0; k < out.size(); ++k) out[k] = fraction ? static_cast<float>(units[k]) / static_cast<float>(full) : static_cast<float>(units[k]);
  return out;
}

// Vertex v's new influences as palette slots and weights in its blend index and weight elements.
Status storeInfluences(OntoJob& job, const Submesh& g, uint32_t v, const std::vector<Influence>& now,
                       const std::vector<uint32_t>& rigToFile) {
  const VertexElement& indices = *g.place.indices;
  const size_t components = g.place.weights ? std::min(elementComponents(indices), elementComponents(*g.place.weights))
                                            : elementComponents(indices);
  const std::string path = fmt::format("{}/vertex[{}]", g.path, v);
  if (now.size() > components || (!g.place.weights && (now.size() != 1 || std::fabs(now[0].weight - 1.0f) > kRounding))) {
    return refuse(path + "/blendWeights", fmt::format("vertex {} has {} influence(s); its elements hold {}{}: --base keeps the "
                                                      "VertexDescriptor",
                                                      v, now.size(), components, g.place.weights ? "" : " bone with weight 1 (no weights element)"));
  }
  float slot[4] = {0, 0, 0, 0};
  for (size_t k = 0; k < now.size(); ++k) {
    const uint32_t fileBone = rigToFile[now[k].bone];
    const auto it = std::find(g.place.palette.begin(), g.place.palette.end(), fileBone);
    if (it == g.place.palette.end()) {
      return refuse(g.path + "/m_pRemapTable",
                    fmt::format("vertex {} is weighted to bone '{}' (file bone {}), which the mesh's palette of {} bones lacks; --base "
                                "keeps the remap table",
                                v, job.base.skeleton.bones[now[k].bone].name, fileBone, g.place.palette.size()));
    }
    slot[k] = static_cast<float>(it - g.place.palette.begin());
  }
  const bool all[4] = {true, true, true, true};
  RP_CHECK(storeElement(job, g, indices, Meaning::Integer, v, slot, all, 4, path + "/blendIndices"));
  if (!g.place.weights) return Ok{};
  const std::vector<float> stored = storedWeights(now, g.place.weights->vertexType);
  float weight[4] = {0, 0, 0, 0};
  std::copy(stored.begin(), stored.end(), weight);
  return storeElement(job, g, *g.place.weights, Meaning::Value, v, weight, all, 4, path + "/blendWeights");
}

// A static mesh (no blend indices, read on the model's root) stays static: the rig may carry it
// skinned (an arena target skins every mesh), fully on the bone it rode.
Status checkStatic(const OntoJob& job, const Submesh& g) {
  if (!g.now.skinned()) return Ok{};
  const uint32_t owner = job.rigBone[static_cast<size_t>(std::max(g.was.attachBone, 0))];
  for (uint32_t v = 0; v + 1 < g.now.influenceOffsets.size(); ++v) {
    const std::vector<Influence> now = influencesOf(g.now, v, nullptr);
    if (now.size() == 1 && now[0].bone == owner && std::fabs(now[0].weight - 1.0f) <= kRounding) continue;
    return refuse(fmt::format("{}/vertex[{}]/blendIndices", g.path, v),
                  "the original's mesh has no blend indices (a static mesh on the model's root), and the edit weights it to "
                  "other bones; --base keeps the VertexDescriptor");
  }
  return Ok{};
}

Status writeWeights(OntoJob& job, const Submesh& g) {
  if (!g.place.indices) return checkStatic(job, g);
  if (!g.now.skinned()) {
    return refuse(g.path + "/blendIndices", "the mesh is not skinned in the rig; the original's is, and --base keeps its VertexDescriptor");
  }
  const std::vector<uint32_t> baseBoneOfRig = baseBonesOfRig(job);
  const std::vector<uint32_t> rigToFile = fileBones(job.place);
  const float tolerance = (g.place.weights ? weightStep(g.place.weights->vertexType) : 1.0f) / 2;
  for (uint32_t v = 0; v < g.was.positions.size(); ++v) {
    const std::vector<Influence> now = influencesOf(g.now, v, &baseBoneOfRig);
    if (sameInfluences(influencesOf(g.was, v, nullptr), now, tolerance)) continue;
    RP_CHECK(storeInfluences(job, g, v, now, rigToFile));
  }
  return Ok{};
}

}  // namespace

// What the arena's buffers fix: the vertex count (the vertex data's size), the triangles (the
// index buffer and the draw ranges over it).
Status checkCounts(const Mesh& was, const Mesh& now, const std::string& countPath, const std::string& indexPath) {
  if (now.positions.size() != was.positions.size()) {
    return refuse(countPath, fmt::format("the mesh has {} vertices, the original {}: its vertex data cannot grow or shrink "
                                                     "under --base; convert without --base for a new arena",
                                                     now.positions.size(), was.positions.size()));
  }
  if (now.indices != was.indices) {
    const auto [a, b] = std::mismatch(was.indices.begin(), was.indices.end(), now.indices.begin(), now.indices.end());
    return refuse(indexPath, fmt::format("the triangles changed (the mesh has {}, the original {}; first difference in triangle {}); "
                                         "--base keeps the original's index buffer and the draw ranges over it",
                                         now.indices.size() / 3, was.indices.size() / 3, (a - was.indices.begin()) / 3));
  }
  return Ok{};
}

// A vertex's influences on the original's bones, merged and sorted by bone.
std::vector<Influence> influencesOf(const Mesh& mesh, uint32_t v, const std::vector<uint32_t>* baseBoneOfRig) {
  std::vector<Influence> out;
  for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) {
    const Influence& x = mesh.influences[i];
    if (!(x.weight > 0.0f)) continue;
    const uint32_t bone = baseBoneOfRig != nullptr ? (*baseBoneOfRig)[x.bone] : x.bone;
    const auto it = std::find_if(out.begin(), out.end(), [&](const Influence& y) { return y.bone == bone; });
    if (it != out.end()) it->weight += x.weight;
    else out.push_back(Influence{bone, x.weight});
  }
  std::sort(out.begin(), out.end(), [](const Influence& a, const Influence& b) { return a.bone < b.bone; });
  return out;
}

bool sameInfluences(const std::vector<Influence>& a, const std::vector<Influence>& b, float tolerance) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [&](const Influence& x, const Influence& y) {
    return x.bone == y.bone && std::fabs(x.weight - y.weight) <= tolerance;
  });
}

std::vector<int32_t> weightUnits(const std::vector<Influence>& influences, int32_t full) {
  float sum = 0.0f;
  for (const Influence& x : influences) sum += x.weight;
  std::vector<int32_t> units(influences.size());
  std::vector<std::pair<float, size_t>> remainders;
  int32_t left = full;
  for (size_t k = 0; k < units.size(); ++k) {
    const float exact = influences[k].weight / sum * static_cast<float>(full);
    units[k] = static_cast<int32_t>(std::floor(exact));
    left -= units[k];
    remainders.emplace_back(exact - static_cast<float>(units[k]), k);
  }
  std::stable_sort(remainders.begin(), remainders.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; k < remainders.size() && left > 0; ++k, --left) ++units[remainders[k].second];
  return units;
}

std::vector<uint32_t> baseBonesOfRig(const OntoJob& job) {
  std::vector<uint32_t> out(job.rigBone.size());
  for (size_t b = 0; b < job.rigBone.size(); ++b) out[job.rigBone[b]] = static_cast<uint32_t>(b);
  return out;
}

std::vector<uint32_t> fileBones(const RigPlace& place) {
  std::vector<uint32_t> out(place.fileToRig.size());
  for (size_t fb = 0; fb < place.fileToRig.size(); ++fb) out[place.fileToRig[fb]] = static_cast<uint32_t>(fb);
  return out;
}

Status writeMeshesOnto(OntoJob& job) {
  const std::string model = ownerPath(job.place);
  if (job.rig.meshes.size() != job.base.meshes.size()) {
    return refuse(model + "/m_iNumMeshes", fmt::format("the rig has {} meshes, the original {}; --base cannot add or remove one: convert "
                                                       "without --base for a new arena",
                                                       job.rig.meshes.size(), job.base.meshes.size()));
  }
  for (size_t m = 0; m < job.base.meshes.size(); ++m) {
    if (m >= job.place.meshes.size()) {  // Spore's own meshes follow the RenderOptiMeshData's
      RP_CHECK(writeSporeMeshOnto(job, job.place.sporeMeshes.at(m - job.place.meshes.size()), job.base.meshes[m], job.rig.meshes[m]));
      continue;
    }
    const OptiMeshPlace& place = job.place.meshes[m];
    const Submesh g{place, job.base.meshes[m], job.rig.meshes[m], fmt::format("RenderOptiMeshData[{}]", place.row)};
    RP_CHECK(checkCounts(g.was, g.now, g.path + "/m_uiNumVerts", fmt::format("IndexBuffer[{}]", place.indexRow)));
    RP_CHECK(writeVectors(job, g, place.position, Meaning::Position, g.was.positions, g.now.positions, job.length, false, g.path + "/position"));
    RP_CHECK(writeVectors(job, g, place.normal, Meaning::Value, g.was.normals, g.now.normals, kNormalRounding, true, g.path + "/normal"));
    RP_CHECK(writeVectors(job, g, place.uv, Meaning::Value, g.was.uvs, g.now.uvs, kRounding, false, g.path + "/tex0"));
    RP_CHECK(writeWeights(job, g));
  }
  return Ok{};
}

}  // namespace rigport::rw4
