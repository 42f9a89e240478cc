// `--base` for a block's submeshes (model_onto.cpp says what is kept and what is refused): vertex
// positions, normals and uvs re-quantised in each array's own GX type and fractional bits (§3) —
// the skinned submesh's bind positions and normals in its SKN sources too, s16 with posNrmShift
// fractional bits (§6) — and skin weights in the SK2/SKAcc weight bytes of each vertex's records.
// Each value lands within half its array's step of the edit (2^-frac / 2: 0.06 mm at s16 with 13
// fractional bits); a value outside the array's range is refused with the range it holds.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "formats/sluggers/model_onto.hpp"
#include "formats/sluggers/writer_parts.hpp"

namespace rigport::sluggers {
namespace {

// Blender keeps custom normals in its own compressed form, and glTF exporters normalise the stored
// ones: the demo character's block comes back through Blender 3.4 with normals up to 1.16e-3 off
// (its cylinders' seams; measured by the add-on test). 4e-3 is a turn of 0.23°, less than any edit
// of a normal and three times that.
constexpr float kNormalRounding = 4e-3f;
constexpr const char* kAxes[] = {"x", "y", "z"};

struct Submesh {
  size_t index = 0;
  const MeshPlace& place;
  const Mesh& was;
  const Mesh& now;
  std::string path;  // GPL/mesh[m]
};

// What the block's descriptors, display lists and ACT fix: the mesh's name, vertex count,
// triangles, skin and owner bone.
Status checkStructure(const OntoJob& job, const Submesh& g) {
  if (g.now.name != g.was.name) {
    return refuse(g.path + "/name", fmt::format("the mesh is named '{}', the original '{}'; --base keeps the GPL's names", g.now.name, g.was.name));
  }
  if (g.now.positions.size() != g.was.positions.size()) {
    return refuse(g.path + "/position", fmt::format("the mesh has {} vertices, the original {}: its arrays and display lists index the "
                                                    "original's, so --base keeps the count; convert without --base for a new block",
                                                    g.now.positions.size(), g.was.positions.size()));
  }
  if (g.now.indices != g.was.indices) {
    const auto [a, b] = std::mismatch(g.was.indices.begin(), g.was.indices.end(), g.now.indices.begin(), g.now.indices.end());
    return refuse(g.path + "/display", fmt::format("the triangles changed (the mesh has {}, the original {}; first difference in triangle "
                                                   "{}); --base keeps the original's primitive lists",
                                                   g.now.indices.size() / 3, g.was.indices.size() / 3, (a - g.was.indices.begin()) / 3));
  }
  if (g.now.skinned() != g.was.skinned()) {
    return refuse("ACT/skinFileID", fmt::format("mesh {} is {} in the rig and {} in the original; --base keeps which submesh the SKN skins",
                                                g.index, g.now.skinned() ? "skinned" : "rigid", g.was.skinned() ? "skinned" : "rigid"));
  }
  const int32_t owner = g.was.attachBone < 0 ? -1 : static_cast<int32_t>(job.rigBone[static_cast<size_t>(g.was.attachBone)]);
  if (!g.was.skinned() && g.now.attachBone != owner) {
    const size_t bone = static_cast<size_t>(std::max(g.was.attachBone, 0));
    return refuse(fmt::format("ACT/bone[{}]/geoFileID", bone < job.places.bones.size() ? job.places.bones[bone].table : 0),
                  fmt::format("rigid mesh {} rides another bone in the rig; --base keeps each bone record's geoFileID", g.index));
  }
  return Ok{};
}

// The array elements whose value the edit changed, with that value. Vertices sharing an element
// (corners of other normals or uvs) must agree on it. None when either side lacks the array (an
// original without normals keeps none: glTF exporters may make them up).
template <class V>
Result<std::vector<std::pair<uint32_t, V>>> elementEdits(const std::vector<V>& was, const std::vector<V>& now,
                                                          const std::vector<uint32_t>& elementOf, float tolerance, const std::string& path) {
  std::vector<std::pair<uint32_t, V>> out;
  if (was.size() != now.size()) return out;
  auto element = [&](size_t v) { return elementOf.empty() ? static_cast<uint32_t>(v) : elementOf[v]; };
  auto differ = [tolerance](const V& a, const V& b) { return glm::any(glm::greaterThan(glm::abs(a - b), V(tolerance))); };
  std::vector<std::pair<uint32_t, size_t>> edited;  // element, the vertex that set it
  for (size_t v = 0; v < was.size(); ++v) {
    if (!differ(was[v], now[v])) continue;
    if (element(v) == kNoIndex) return refuse(path, fmt::format("vertex {} is edited, and its corners index no element of this array", v));
    edited.emplace_back(element(v), v);
  }
  if (edited.empty()) return out;
  std::sort(edited.begin(), edited.end());
  for (size_t v = 0; v < was.size(); ++v) {
    const auto it = std::lower_bound(edited.begin(), edited.end(), std::make_pair(element(v), size_t{0}));
    if (it == edited.end() || it->first != element(v) || !differ(now[it->second], now[v])) continue;
    return refuse(fmt::format("{}[{}]", path, element(v)), fmt::format("vertices {} and {} share this element, and the edit gives them "
                                                                       "different values; --base keeps the original's index lists",
                                                                       it->second, v));
  }
  for (size_t k = 0; k < edited.size(); ++k) {
    if (k == 0 || edited[k].first != edited[k - 1].first) out.emplace_back(edited[k].first, now[edited[k].second]);
  }
  return out;
}

// `value`'s first `components` components over element e of `array`.
template <class V>
Status storeElement(OntoJob& job, const GplArray& array, uint32_t e, const V& value, const std::string& path) {
  const auto type = static_cast<GxType>(array.quantizeInfo >> 4);
  const size_t size = gxComponentSize(array.quantizeInfo);
  // A component the array does not store reads as 0 (a one-component uv channel's v): an edit that
  // gives it another value cannot be written at the block's size.
  for (uint8_t c = array.components; c < V::length(); ++c) {
    if (std::abs(value[c]) > kRounding) {
      return refuse(fmt::format("{}[{}].{}", path, e, kAxes[c]), fmt::format("is {:.6g} in the edit; the array stores {} component(s) an element, "
                                                                         "so the original holds 0 there and --base cannot write another value",
                                                                         value[c], array.components));
    }
  }
  for (uint8_t c = 0; c < array.components && c < V::length(); ++c) {
    const std::string at = fmt::format("{}[{}].{}", path, e, kAxes[c]);
    RP_CHECK(storeComponent(job, array.offset + e * array.stride + c * size, value[c], type, array.quantizeInfo & 0xF, at));
  }
  return Ok{};
}

// Each slot's skin records (indices into SkinPlace::records): where its bind data and weights lie.
std::vector<std::vector<uint32_t>> recordsOfSlots(const SkinPlace& skin, size_t slots) {
  std::vector<std::vector<uint32_t>> out(slots);
  for (size_t j = 0; j < skin.records.size(); ++j) {
    if (skin.records[j].vertex < slots) out[skin.records[j].vertex].push_back(static_cast<uint32_t>(j));
  }
  return out;
}

// A skinned slot's bind vector (position at 0, normal at 6) in every SKN source of its records (§6).
Status storeSources(OntoJob& job, const std::vector<uint32_t>& records, size_t within, const glm::vec3& value, const std::string& path) {
  const SkinPlace& skin = job.places.skin;
  for (uint32_t j : records) {
    const size_t at = skin.section + skin.records[j].source + within;
    for (size_t c = 0; c < 3; ++c) {
      RP_CHECK(storeComponent(job, at + 2 * c, value[static_cast<int>(c)], GxType::S16, skin.shift, fmt::format("{}.{}", path, kAxes[c])));
    }
  }
  return Ok{};
}

std::string kindName(SkinEntryKind k) { return k == SkinEntryKind::SK1 ? "SK1" : k == SkinEntryKind::SK2 ? "SK2" : "SKAcc"; }

// Vertex v's new weights (256ths by the original's bones) over its slot's records: each bone's
// units go to the records naming it, at most 255 a record (§6: a full 256 is stored 255 + 1).
Status storeWeights(OntoJob& job, uint32_t v, const std::vector<Weighted>& weights, const std::vector<uint32_t>& records) {
  const SkinPlace& skin = job.places.skin;
  const std::vector<Bone>& bones = job.base.skeleton.bones;
  auto boneOf = [&](uint32_t j) {
    const uint16_t index = skin.records[j].boneIndex;
    return index < skin.boneOfIndex.size() ? skin.boneOfIndex[index] : -1;
  };
  std::string named;
  for (uint32_t j : records) {
    const SkinRecordWhere& w = skin.where[j];
    if (w.kind == SkinEntryKind::SK1) {
      return refuse(fmt::format("SKN/SK1[{}]", w.entry), fmt::format("vertex {} is in an SK1 run (one bone, weight 1, the entry's): its "
                                                                     "weights cannot change under --base",
                                                                     v));
    }
    if (boneOf(j) >= 0) named += fmt::format("{}{}[{}] '{}'", named.empty() ? "" : ", ", kindName(w.kind), w.entry, bones[static_cast<size_t>(boneOf(j))].name);
  }
  std::vector<uint32_t> left(bones.size(), 0);
  for (const Weighted& x : weights) {
    const auto capacity = 255 * std::count_if(records.begin(), records.end(), [&](uint32_t j) { return boneOf(j) == static_cast<int32_t>(x.bone); });
    if (x.w > capacity) {
      return refuse("SKN", fmt::format("vertex {} is weighted {}/256 to bone '{}', and its records ({}) hold {}/256 of it; --base keeps "
                                       "the original's SK entries",
                                       v, x.w, bones[x.bone].name, named.empty() ? "none" : named, capacity));
    }
    left[x.bone] = x.w;
  }
  for (uint32_t j : records) {
    if (boneOf(j) < 0) continue;
    uint32_t& units = left[static_cast<size_t>(boneOf(j))];
    const uint32_t here = std::min<uint32_t>(units, 255);
    job.file[skin.section + skin.where[j].weightAt] = static_cast<uint8_t>(here);
    units -= here;
  }
  return Ok{};
}

// Vertex v's weights as 256ths of the original's bones, ascending by bone.
std::vector<Weighted> unitsOf(const Mesh& mesh, size_t v, const std::vector<uint32_t>* baseBoneOfRig) {
  std::vector<Weighted> out = quantizeWeights(mesh, v);
  if (baseBoneOfRig == nullptr) return out;
  for (Weighted& x : out) x.bone = (*baseBoneOfRig)[x.bone];
  std::sort(out.begin(), out.end(), [](const Weighted& a, const Weighted& b) { return a.bone < b.bone; });
  return out;
}

Status writeWeights(OntoJob& job, const Submesh& g, const std::vector<std::vector<uint32_t>>& slotRecords) {
  std::vector<uint32_t> baseBoneOfRig(job.rigBone.size());
  for (size_t b = 0; b < job.rigBone.size(); ++b) baseBoneOfRig[job.rigBone[b]] = static_cast<uint32_t>(b);
  auto same = [](const std::vector<Weighted>& a, const std::vector<Weighted>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Weighted& x, const Weighted& y) { return x.bone == y.bone && x.w == y.w; });
  };
  std::vector<std::vector<Weighted>> written(slotRecords.size());
  for (uint32_t v = 0; v < g.was.positions.size(); ++v) {
    const std::vector<Weighted> now = unitsOf(g.now, v, &baseBoneOfRig);
    const std::vector<Weighted> was = unitsOf(g.was, v, nullptr);
    if (same(was, now)) continue;
    // A slot no record writes (a gap slot, §6) comes back from glTF riding a root bone, as the
    // exporter gives every unweighted vertex: unchanged.
    if (was.empty() && now.size() == 1 && now[0].w == kFullWeight && job.base.skeleton.bones[now[0].bone].parent < 0) continue;
    const uint32_t slot = g.place.positionOf.empty() ? v : g.place.positionOf[v];
    if (!written[slot].empty() && !same(written[slot], now)) {
      return refuse(fmt::format("{}/position[{}]", g.path, slot), fmt::format("vertices sharing this skinned slot are given different "
                                                                             "weights (vertex {}); --base keeps the original's index lists",
                                                                             v));
    }
    RP_CHECK(storeWeights(job, v, now, slotRecords[slot]));
    written[slot] = now;
  }
  return Ok{};
}

Status writeMeshOnto(OntoJob& job, const Submesh& g) {
  RP_CHECK(checkStructure(job, g));
  const MeshPlace& p = g.place;
  const bool skinned = job.places.skin.mesh == static_cast<int32_t>(g.index);
  const std::vector<std::vector<uint32_t>> slotRecords = skinned ? recordsOfSlots(job.places.skin, p.position.count) : std::vector<std::vector<uint32_t>>{};
  RP_ASSIGN(const auto positions, elementEdits(g.was.positions, g.now.positions, p.positionOf, job.length, g.path + "/position"));
  for (const auto& [e, value] : positions) {
    RP_CHECK(storeElement(job, p.position, e, value, g.path + "/position"));
    if (skinned) RP_CHECK(storeSources(job, slotRecords[e], 0, value, fmt::format("SKN/source[{}].position", e)));
  }
  if (p.normal.count != 0) {
    RP_ASSIGN(const auto normals, elementEdits(g.was.normals, g.now.normals, p.normalOf, kNormalRounding, g.path + "/normal"));
    for (const auto& [e, value] : normals) {
      RP_CHECK(storeElement(job, p.normal, e, value, g.path + "/normal"));
      if (skinned) RP_CHECK(storeSources(job, slotRecords[e], 6, value, fmt::format("SKN/source[{}].normal", e)));
    }
  }
  if (p.uv.count != 0) {
    RP_ASSIGN(const auto uvs, elementEdits(g.was.uvs, g.now.uvs, p.uvOf, kRounding, g.path + "/texcoord[0]"));
    for (const auto& [e, value] : uvs) RP_CHECK(storeElement(job, p.uv, e, value, g.path + "/texcoord[0]"));
  }
  if (skinned) RP_CHECK(writeWeights(job, g, slotRecords));
  return Ok{};
}

}  // namespace

Status writeMeshesOnto(OntoJob& job) {
  if (job.rig.meshes.size() != job.base.meshes.size()) {
    return refuse("GPL/numMeshes", fmt::format("the rig has {} meshes, the original {} submeshes; --base cannot add or remove one: convert "
                                               "without --base for a new block",
                                               job.rig.meshes.size(), job.base.meshes.size()));
  }
  for (size_t m = 0; m < job.base.meshes.size(); ++m) {
    const Submesh g{m, job.places.meshes[m], job.base.meshes[m], job.rig.meshes[m], fmt::format("GPL/mesh[{}]", m)};
    RP_CHECK(writeMeshOnto(job, g));
  }
  return Ok{};
}

}  // namespace rigport::sluggers
