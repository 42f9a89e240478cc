// Meshes (format note gltf_ecosystem.md §1.2, §1.6, §5.3-5.4): one triangle primitive per part;
// POSITION with min/max from the float32 values written, unit NORMALs, TEXCOORD_0, u16/u32 indices,
// JOINTS_n as UNSIGNED_BYTE (UNSIGNED_SHORT beyond 256 joints, never FLOAT: it crashes the npm
// validator) and WEIGHTS_n as FLOAT. A skinned mesh's node sits at the scene root with no
// transform (NODE_SKINNED_MESH_NON_ROOT / _LOCAL_TRANSFORMS); an unskinned one hangs under the
// bone it rides on, its vertices being in that bone's space. Morph targets: POSITION deltas (with
// the min/max the spec requires of them) and NORMAL deltas where the mesh has normals, the default
// `weights`, and the targets' names in `extras.targetNames` (Blender's and three.js's convention).
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "export/gltf_document.hpp"
#include "export/gltf_influences.hpp"
#include "export/gltf_vertex_passes.hpp"

namespace rigport::gltf {
namespace {

// `source`, `own` and `map` as for writeNormals().
Result<uint32_t> writePositions(Document& doc, const Mesh& mesh, const Mesh& source, Mesh* own, const VertexMap* map,
                                const std::string& path) {
  const PositionBounds b = map != nullptr ? mapPositionBounds(source.positions.data(), own->positions.data(), own->positions.size(), *map)
                                          : positionBounds(mesh.positions.data(), mesh.positions.size());
  if (!b.finite) {
    for (size_t v = 0; v < mesh.positions.size(); ++v) {
      const glm::vec3& p = mesh.positions[v];
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
        return invalidModel(fmt::format("{}/positions[{}]", path, v), "position is not finite");
      }
    }
  }
  static_assert(sizeof(glm::vec3) == 12 && sizeof(glm::vec2) == 8, "glm vectors must be tightly packed floats");
  return doc.buffer.borrowAccessor(mesh.positions.data(), mesh.positions.size() * 12, mesh.positions.size(), ComponentType::Float,
                                   "VEC3", ViewTarget::ArrayBuffer, std::array{b.lo.x, b.lo.y, b.lo.z}, std::array{b.hi.x, b.hi.y, b.hi.z});
}

// The validator wants unit normals (ACCESSOR_NON_UNIT, tolerance 0.00769); a zero or non-finite
// normal cannot be made unit, so it becomes +Y and is counted in the mesh's extras. `own`: the
// exporter's own `mesh`, whose normals are written unit from `source`'s (OwnMeshes::from: `mesh`
// itself or the caller's) and then borrowed; `map`: its vertices' axis change still to be made
// (OwnMeshes::pending), or null.
uint32_t writeNormals(Document& doc, const Mesh& mesh, const Mesh& source, Mesh* own, const VertexMap* map, uint64_t& replaced) {
  const size_t n = mesh.normals.size();
  if (own != nullptr) {
    replaced += writeUnitNormals(source.normals.data(), n, &own->normals[0].x, map);
    return doc.buffer.borrowAccessor(own->normals.data(), n * 12, n, ComponentType::Float, "VEC3", ViewTarget::ArrayBuffer);
  }
  const size_t offset = doc.buffer.allocate(n * 12);
  replaced += writeUnitNormals(mesh.normals.data(), n, reinterpret_cast<float*>(doc.buffer.at(offset)));
  return doc.buffer.accessor(offset, n * 12, n, ComponentType::Float, "VEC3", ViewTarget::ArrayBuffer);
}

// in[0, n) as u16 to out, which may be the bytes of `in` itself: each block of indices is read
// before its narrower copy is written, and the copy ends before the next block begins.
void narrowIndices(const uint32_t* in, size_t n, uint8_t* out) {
  constexpr size_t kBlock = 1024;
  uint32_t wide[kBlock];
  uint16_t narrow[kBlock];
  for (size_t i = 0; i < n; i += kBlock) {
    const size_t k = std::min(kBlock, n - i);
    std::memcpy(wide, in + i, k * 4);
    for (size_t j = 0; j < k; ++j) narrow[j] = static_cast<uint16_t>(wide[j]);
    std::memcpy(out + 2 * i, narrow, k * 2);
  }
}

// Indices [first, first + n) of the mesh, read from `indices` (where OwnMeshes says they are);
// `own` as for writeNormals(): u16 indices are narrowed into its indices (in place when they are
// `indices`; parts do not overlap, validate()), so the buffer borrows them.
uint32_t writeIndices(Document& doc, const Mesh& mesh, const std::vector<uint32_t>& indices, Mesh* own, size_t first, size_t n) {
  const uint32_t* in = indices.data() + first;
  // 65535 is the primitive-restart value of an UNSIGNED_SHORT index; below 65536 vertices it never occurs.
  if (mesh.positions.size() < 65536) {
    if (own != nullptr) {
      uint8_t* out = reinterpret_cast<uint8_t*>(own->indices.data() + first);
      narrowIndices(in, n, out);
      return doc.buffer.borrowAccessor(out, n * 2, n, ComponentType::UnsignedShort, "SCALAR", ViewTarget::ElementArrayBuffer);
    }
    const size_t offset = doc.buffer.allocate(n * 2);
    narrowIndices(in, n, doc.buffer.at(offset));
    return doc.buffer.accessor(offset, n * 2, n, ComponentType::UnsignedShort, "SCALAR", ViewTarget::ElementArrayBuffer);
  }
  return doc.buffer.borrowAccessor(in, n * 4, n, ComponentType::UnsignedInt, "SCALAR", ViewTarget::ElementArrayBuffer);
}

// Each morph target's accessors, as a primitive's `targets`; null when the mesh has none.
Result<Json> writeMorphTargets(Document& doc, const Mesh& mesh, const std::string& path) {
  if (mesh.morphTargets.empty()) return Json();
  Json targets = Json::array();
  for (size_t t = 0; t < mesh.morphTargets.size(); ++t) {
    const MorphTarget& target = mesh.morphTargets[t];
    const size_t n = target.positionDeltas.size();
    const PositionBounds b = positionBounds(target.positionDeltas.data(), n);
    if (!b.finite) return invalidModel(fmt::format("{}/morphTargets[{}]", path, t), "a position delta is not finite");
    Json attributes = Json::object();
    attributes["POSITION"] = doc.buffer.borrowAccessor(target.positionDeltas.data(), n * 12, n, ComponentType::Float, "VEC3", ViewTarget::ArrayBuffer,
                                                       std::array{b.lo.x, b.lo.y, b.lo.z}, std::array{b.hi.x, b.hi.y, b.hi.z});
    // A NORMAL target needs a NORMAL attribute to add to (Spec §3.7.2.2).
    if (!target.normalDeltas.empty() && !mesh.normals.empty()) {
      attributes["NORMAL"] = doc.buffer.borrowAccessor(target.normalDeltas.data(), n * 12, n, ComponentType::Float, "VEC3", ViewTarget::ArrayBuffer);
    }
    targets.push_back(std::move(attributes));
  }
  return targets;
}

// One primitive per non-empty part, all sharing `attributes` and `targets`; a mesh without parts is
// one primitive with the default material, and without indices (not known to form triangles) POINTS.
// `indices` as for writeIndices().
Json primitives(Document& doc, const Mesh& mesh, const std::vector<uint32_t>& indices, Mesh* own, const Json& attributes, const Json& targets) {
  Json out = Json::array();
  auto add = [&](size_t first, size_t count, uint32_t material) {
    Json primitive = Json::object();
    primitive["attributes"] = attributes;
    if (!targets.is_null()) primitive["targets"] = targets;
    if (count > 0) primitive["indices"] = writeIndices(doc, mesh, indices, own, first, count);
    primitive["mode"] = count > 0 ? 4 : 0;
    primitive["material"] = material;
    out.push_back(std::move(primitive));
  };
  for (const MeshPart& part : mesh.parts) {
    if (part.indexCount > 0) add(part.firstIndex, part.indexCount, part.material);
  }
  if (out.empty()) add(0, indices.size(), defaultMaterial(doc));
  return out;
}

struct SkinAttributes {
  std::vector<uint32_t> joints;   // accessor per set
  std::vector<uint32_t> weights;  // accessor per set
  uint64_t withoutInfluences = 0;
  uint64_t truncated = 0;
};

// Whether every vertex's 16 bytes of weights fit over the mesh's own influences: vertex v's end
// at byte 16(v + 1) and the influences not yet read begin at byte 8 * off[v + 1], so vertex v must
// start at influence 2v or later. A mesh of four influences a vertex leaves room; one of mostly
// single influences does not, and gets fresh bytes.
bool weightsFitOverInfluences(const std::vector<uint32_t>& off) {
  uint32_t tooFew = 0;
  for (size_t v = 1; v < off.size(); ++v) tooFew |= static_cast<uint32_t>(off[v] < 2 * v);
  return tooFew == 0;
}

// `mesh`: the one whose influences are read (OwnMeshes::from's when there is `own`). `own` as for
// writeNormals(): one set of byte joints is written over the mesh's own arrays when they leave
// room (weights over the influences, joints over the offsets, each vertex's after its own were
// read, when they are the arrays read), and the buffer borrows them; otherwise into the buffer.
Result<SkinAttributes> writeSkin(Document& doc, const Mesh& mesh, Mesh* own, const GltfOptions& options, const std::string& path) {
  const size_t nv = mesh.positions.size();
  const Influence* inf = mesh.influences.data();
  const auto& off = mesh.influenceOffsets;
  size_t sets = 1;
  if (options.allowEightInfluences) {
    std::vector<uint32_t> scratch;
    for (size_t v = 0; v < nv && sets == 1; ++v) {
      if (off[v + 1] - off[v] > 4 && distinctInfluences(inf + off[v], inf + off[v + 1], doc.jointOfBone, scratch) > 4) sets = 2;
    }
  }
  const bool wide = doc.joints.size() > 256;
  const size_t jointBytes = wide ? 2 : 1;
  const bool inPlace = own != nullptr && sets == 1 && !wide && weightsFitOverInfluences(off);
  std::vector<size_t> jointOffset(sets), weightOffset(sets);
  // Each set's regions, found once (the buffer does not move while they are written).
  std::vector<float*> weights(sets);
  std::vector<uint8_t*> joints(sets);
  if (inPlace) {
    weights[0] = reinterpret_cast<float*>(own->influences.data());
    joints[0] = reinterpret_cast<uint8_t*>(own->influenceOffsets.data());
  } else {
    for (size_t s = 0; s < sets; ++s) {
      jointOffset[s] = doc.buffer.allocate(nv * 4 * jointBytes);
      weightOffset[s] = doc.buffer.allocate(nv * 4 * sizeof(float));
    }
    for (size_t s = 0; s < sets; ++s) {
      weights[s] = reinterpret_cast<float*>(doc.buffer.at(weightOffset[s]));
      joints[s] = doc.buffer.at(jointOffset[s]);
    }
  }
  SkinAttributes out;
  InfluenceNormaliser normaliser(doc.jointOfBone, doc.rootJoint, sets);
  VertexInfluences vi;
  auto putJoints = [&](size_t s, size_t v, const uint32_t* j) {
    for (size_t c = 0; c < 4; ++c) {
      if (wide) {
        reinterpret_cast<uint16_t*>(joints[s])[v * 4 + c] = static_cast<uint16_t>(j[c]);
      } else {
        joints[s][v * 4 + c] = static_cast<uint8_t>(j[c]);
      }
    }
  };
  auto vertex = [&](size_t v) -> Status {
    const Influence* begin = inf + off[v];
    const Influence* end = inf + off[v + 1];
    // One set: the usual vertex goes straight to the buffer (normaliseFour), the rest through normalise().
    if (uint32_t j[4]; sets == 1 && normaliser.normaliseFour(begin, end, j, weights[0] + v * 4)) {
      putJoints(0, v, j);
      return Ok{};
    }
    size_t bad = 0;
    bool truncated = false;
    const auto outcome = normaliser.normalise(begin, end, vi, bad, truncated);
    if (outcome == InfluenceNormaliser::Outcome::BoneNotAJoint) {
      const size_t i = static_cast<size_t>(begin - inf) + bad;
      return invalidModel(fmt::format("{}/influences[{}]", path, i),
                     fmt::format("vertex {} is influenced by bone {}, which is not in the skin's joint list", v, begin[bad].bone));
    }
    out.withoutInfluences += outcome == InfluenceNormaliser::Outcome::NoInfluences;
    out.truncated += truncated;
    for (size_t s = 0; s < sets; ++s) {
      std::memcpy(weights[s] + v * 4, &vi.weight[s * 4], 4 * sizeof(float));
      putJoints(s, v, &vi.joint[s * 4]);
    }
    return Ok{};
  };
  // The lanes' vertices, `lanes` from v: those taken get their joints (and, in place, their
  // staged weights); the others go through vertex(), in order.
  auto finishLanes = [&](size_t v, size_t lanes, unsigned taken, const uint32_t* j, const float* staged) -> Status {
    if (taken == (1u << lanes) - 1 && !wide) {  // the usual group: every lane taken, in bulk
      if (inPlace) std::memcpy(weights[0] + v * 4, staged, lanes * 4 * sizeof(float));
      uint8_t* out = joints[0] + v * 4;
      for (size_t i = 0; i < lanes * 4; ++i) out[i] = static_cast<uint8_t>(j[i]);
      return Ok{};
    }
    for (size_t k = 0; k < lanes; ++k) {
      if (taken >> k & 1u) {
        if (inPlace) std::memcpy(weights[0] + (v + k) * 4, staged + 4 * k, 4 * sizeof(float));
        putJoints(0, v + k, j + 4 * k);
      } else {
        RP_CHECK(vertex(v + k));
      }
    }
    return Ok{};
  };
  // Eight or four vertices at a time while four influences can be loaded from each; the vertices
  // the lanes leave, in order, and the tail, one at a time. In place, the lanes' weights are
  // staged: the slots of a lane left to vertex() hold scratch that must not land on influences
  // still unread. The eight lanes index influences in 32-bit words, hence their limit.
  size_t v = 0;
  uint32_t j[32];
  float staged[32];
  const bool eight = sets == 1 && InfluenceNormaliser::eightLanes() && mesh.influences.size() < (size_t{1} << 30);
  for (; eight && v + 8 <= nv; v += 8) {
    if (size_t{*std::max_element(&off[v], &off[v] + 8)} + 4 > mesh.influences.size()) break;
    const unsigned taken = normaliser.normaliseEightByEight(inf, &off[v], j, inPlace ? staged : weights[0] + v * 4);
    RP_CHECK(finishLanes(v, 8, taken, j, staged));
  }
  for (; sets == 1 && v + 4 <= nv; v += 4) {
    if (std::max({off[v], off[v + 1], off[v + 2], off[v + 3]}) + size_t{4} > mesh.influences.size()) break;
    const unsigned taken = normaliser.normaliseFourByFour(inf, &off[v], j, inPlace ? staged : weights[0] + v * 4);
    RP_CHECK(finishLanes(v, 4, taken, j, staged));
  }
  for (; v < nv; ++v) RP_CHECK(vertex(v));
  const ComponentType jointType = wide ? ComponentType::UnsignedShort : ComponentType::UnsignedByte;
  for (size_t s = 0; s < sets; ++s) {
    if (inPlace) {
      out.joints.push_back(doc.buffer.borrowAccessor(joints[s], nv * 4, nv, jointType, "VEC4", ViewTarget::ArrayBuffer));
      out.weights.push_back(doc.buffer.borrowAccessor(weights[s], nv * 4 * sizeof(float), nv, ComponentType::Float, "VEC4",
                                                      ViewTarget::ArrayBuffer));
      continue;
    }
    out.joints.push_back(doc.buffer.accessor(jointOffset[s], nv * 4 * jointBytes, nv, jointType, "VEC4", ViewTarget::ArrayBuffer));
    out.weights.push_back(doc.buffer.accessor(weightOffset[s], nv * 4 * sizeof(float), nv, ComponentType::Float, "VEC4",
                                              ViewTarget::ArrayBuffer));
  }
  return out;
}

}  // namespace

Status addMeshes(Document& doc, const Rig& rig, const OwnMeshes* own, const GltfOptions& options) {
  Json emptyMeshes = Json::array();
  const VertexMap* map = own != nullptr && own->pending ? &*own->pending : nullptr;
  doc.meshNode.assign(rig.meshes.size(), std::nullopt);
  for (size_t m = 0; m < rig.meshes.size(); ++m) {
    const Mesh& mesh = rig.meshes[m];
    Mesh* ownMesh = own != nullptr ? &(*own->meshes)[m] : nullptr;
    const Mesh& source = own != nullptr ? (*own->from)[m] : mesh;
    const std::string path = fmt::format("meshes[{}]", m);
    if (mesh.positions.empty()) {
      // An accessor needs count >= 1, so a mesh without vertices has no glTF form; say so.
      emptyMeshes.push_back(mesh.name);
      continue;
    }
    Json attributes = Json::object();
    Json extras = Json::object();
    RP_ASSIGN(attributes["POSITION"], writePositions(doc, mesh, source, ownMesh, map, path));
    if (!mesh.normals.empty()) {
      uint64_t replaced = 0;
      attributes["NORMAL"] = writeNormals(doc, mesh, source, ownMesh, map, replaced);
      if (replaced > 0) extras["degenerateNormals"] = replaced;
    }
    // The export never changes UVs, so the buffer borrows them from where they were read.
    const std::vector<glm::vec2>& uvs = source.uvs;
    const std::vector<uint32_t>& indices = own != nullptr && own->turnedTriangles ? mesh.indices : source.indices;
    if (!uvs.empty()) {
      attributes["TEXCOORD_0"] = doc.buffer.borrowAccessor(uvs.data(), uvs.size() * 8, uvs.size(),
                                                           ComponentType::Float, "VEC2", ViewTarget::ArrayBuffer);
    }
    if (const auto tangents = writeTangents(doc, rig, mesh, uvs, indices)) attributes["TANGENT"] = *tangents;
    if (mesh.skinned()) {
      RP_ASSIGN(const SkinAttributes skin, writeSkin(doc, source, ownMesh, options, path));
      for (size_t s = 0; s < skin.joints.size(); ++s) {
        attributes[fmt::format("JOINTS_{}", s)] = skin.joints[s];
        attributes[fmt::format("WEIGHTS_{}", s)] = skin.weights[s];
      }
      // The rig is const here, so counts that would be warnings travel in the mesh's extras.
      if (skin.withoutInfluences > 0) extras["verticesWithoutInfluences"] = skin.withoutInfluences;
      if (skin.truncated > 0) extras["verticesWithDroppedInfluences"] = skin.truncated;
    }

    RP_ASSIGN(const Json targets, writeMorphTargets(doc, mesh, path));
    if (!mesh.morphTargets.empty()) {
      const bool named = std::any_of(mesh.morphTargets.begin(), mesh.morphTargets.end(), [](const MorphTarget& t) { return !t.name.empty(); });
      if (named) {
        Json names = Json::array();
        for (const MorphTarget& t : mesh.morphTargets) names.push_back(t.name);
        extras["targetNames"] = std::move(names);
      }
    }

    const uint32_t nodeIndex = doc.nodeCount();
    doc.meshNode[m] = nodeIndex;
    const std::string name = uniqueNodeName(doc, mesh.name, fmt::format("mesh_{}", m));
    Json gm = Json::object();
    gm["name"] = name;
    gm["primitives"] = primitives(doc, mesh, indices, ownMesh, attributes, targets);
    if (!mesh.morphWeights.empty()) {
      Json weights = Json::array();
      for (float w : mesh.morphWeights) weights.push_back(w);
      gm["weights"] = std::move(weights);
    }
    if (!extras.empty()) gm["extras"] = std::move(extras);
    doc.meshes.push_back(std::move(gm));

    Json node = Json::object();
    node["name"] = name;
    node["mesh"] = doc.meshes.size() - 1;
    if (mesh.skinned()) {
      node["skin"] = *doc.skin;
      doc.sceneNodes.push_back(nodeIndex);
    } else if (mesh.attachBone >= 0) {
      doc.addChild(doc.boneNode[static_cast<size_t>(mesh.attachBone)], nodeIndex);
    } else if (doc.groundNode) {
      doc.addChild(*doc.groundNode, nodeIndex);
    } else {
      doc.sceneNodes.push_back(nodeIndex);
    }
    doc.nodes.push_back(std::move(node));
  }
  if (!emptyMeshes.empty()) doc.extras["meshesWithoutVertices"] = std::move(emptyMeshes);
  return Ok{};
}

}  // namespace rigport::gltf
