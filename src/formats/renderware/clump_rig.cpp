#include "formats/renderware/clump_rig.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <deque>
#include <queue>
#include <unordered_map>

#include <fmt/format.h>

#include "core/decompose.hpp"
#include "core/validate.hpp"

#include "formats/renderware/bind_pose.hpp"
#include "formats/renderware/dff_stream.hpp"
#include "formats/renderware/hanim_plg.hpp"
#include "formats/renderware/rw_materials.hpp"
#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#endif

namespace rigport::renderware {
namespace {

constexpr float kWeightSumTolerance = 1e-3f;
constexpr float kMatrixTolerance = 1e-5f;

bool nearlyEqual(const glm::mat4& a, const glm::mat4& b) {
  for (int c = 0; c < 4; ++c) {
    for (int k = 0; k < 4; ++k) {
      if (!(std::fabs(a[c][k] - b[c][k]) <= kMatrixTolerance)) return false;
    }
  }
  return true;
}

struct Hierarchy {
  std::vector<uint32_t> nodeBones;  // bone index of each HAnim node
  std::vector<size_t> frameless;    // nodes whose id matched no frame; each got a bone of its own
};

// §1.4: nodes map to frames by id, searching the hierarchy frame's subtree first (librw attach →
// findUnattachedById), each frame used once. §5 (DragonFF #394): a node id may match no frame;
// such a node gets a bone "node_<id>" appended under its PUSH/POP parent's bone (under the
// hierarchy frame for a root), so skin indices keep their node and no bone is a joint twice.
Hierarchy mapHierarchy(const std::vector<RwFrame>& frames, const std::vector<uint32_t>& order,
                       const std::vector<uint32_t>& remap, size_t hierFrame, Skeleton& skeleton,
                       Provenance& prov) {
  const HAnimPlg& plg = *frames[hierFrame].hanim;
  Hierarchy h;
  // In `order` parents come first, so one pass marks the hierarchy frame's subtree.
  std::vector<bool> subtree(frames.size(), false);
  for (uint32_t f : order) {
    subtree[f] = f == hierFrame || (frames[f].parent >= 0 && subtree[static_cast<size_t>(frames[f].parent)]);
  }
  // Frames by HAnim id, those inside the hierarchy frame's subtree first, each in stream order.
  std::unordered_map<int32_t, std::deque<size_t>> byId;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t f = 0; f < frames.size(); ++f) {
      if (frames[f].hanim && subtree[f] == (pass == 0)) byId[frames[f].hanim->nodeId].push_back(f);
    }
  }
  bool balanced = true;
  const std::vector<int32_t> parents = hanimParents(plg.nodes, &balanced);  // parents[i] < i
  size_t mismatches = 0;
  for (size_t i = 0; i < plg.nodes.size(); ++i) {
    const int32_t id = plg.nodes[i].id;
    const int32_t parentBone =
        parents[i] < 0 ? -1 : static_cast<int32_t>(h.nodeBones[static_cast<size_t>(parents[i])]);
    auto it = byId.find(id);
    if (it != byId.end() && !it->second.empty()) {
      const uint32_t bone = remap[it->second.front()];
      it->second.pop_front();
      if (parentBone >= 0 && skeleton.bones[bone].parent != parentBone) ++mismatches;
      h.nodeBones.push_back(bone);
      continue;
    }
    Bone b;
    b.name = fmt::format("node_{}", id);
    b.parent = parentBone >= 0 ? parentBone : static_cast<int32_t>(remap[hierFrame]);
    if (id >= 0) b.id = static_cast<uint32_t>(id);
    prov.warn("hanim-missing-frame",
              fmt::format("HAnim node {} (id {}) of the hierarchy at 0x{:X} has no frame; added bone '{}' under '{}'",
                          i, id, plg.offset, b.name, skeleton.bones[static_cast<size_t>(b.parent)].name));
    h.frameless.push_back(i);
    h.nodeBones.push_back(static_cast<uint32_t>(skeleton.bones.size()));
    skeleton.bones.push_back(std::move(b));
  }
  if (!balanced || mismatches > 0) {
    prov.warn("hanim-parent", fmt::format("HAnim PUSH/POP hierarchy at 0x{:X} disagrees with the FrameList for {} "
                                          "node(s){}; FrameList parents are used",
                                          plg.offset, mismatches, balanced ? "" : " (unbalanced POP)"));
  }
  return h;
}

// A frameless node has no FrameList bind pose; its skin inverse matrix gives one (§1.9: bone world
// = inverse(invMat), the skin's space). Without a usable matrix the bone keeps its parent's pose.
// Frameless bones follow every frame bone and each other in node order, so parents are placed first.
void placeFramelessBones(Skeleton& skeleton, const Hierarchy& h, const std::vector<glm::mat4>& inverseMatrices) {
  std::vector<glm::mat4> world = skeleton.worldBindMatrices();
  for (size_t node : h.frameless) {
    const uint32_t bone = h.nodeBones[node];
    Bone& b = skeleton.bones[bone];
    const glm::mat4& parentWorld = world[static_cast<size_t>(b.parent)];
    if (node < inverseMatrices.size()) {
      const glm::mat4 local = glm::inverse(parentWorld) * glm::inverse(inverseMatrices[node]);
      if (allFinite(local)) decomposeTrs(local, b);
    }
    world[bone] = parentWorld * b.localMatrix();
  }
}

// The joint a vertex without weights rides on: glTF can only bind a vertex to a joint, so the
// atomic's frame if it is one, else its nearest joint ancestor, else the hierarchy's first node.
uint32_t jointForUnweighted(const Skeleton& skeleton, uint32_t atomicBone, const std::vector<uint32_t>& nodeBones) {
  if (nodeBones.empty()) return atomicBone;
  for (int32_t b = static_cast<int32_t>(atomicBone); b >= 0; b = skeleton.bones[static_cast<size_t>(b)].parent) {
    if (std::find(nodeBones.begin(), nodeBones.end(), static_cast<uint32_t>(b)) != nodeBones.end()) return static_cast<uint32_t>(b);
  }
  return nodeBones.front();
}

// The geometry's arrays move into the mesh at its last atomic; earlier atomics sharing it copy them.
Status buildMesh(RwGeometry& geo, bool lastUse, uint32_t atomicBone, const std::vector<uint32_t>& nodeBones, Rig& rig,
                 size_t atomicIndex, RigStorage* storage) {
  Mesh mesh;
  mesh.name = rig.skeleton.bones[atomicBone].name;
  if (lastUse) {
    mesh.positions = std::move(geo.positions);
    mesh.normals = std::move(geo.normals);
    mesh.uvs = std::move(geo.uvs);
    mesh.indices = std::move(geo.indices);
  } else {
    takeFrom(storage, mesh.positions, geo.positions.size());
    takeFrom(storage, mesh.normals, geo.normals.size());
    takeFrom(storage, mesh.uvs, geo.uvs.size());
    takeFrom(storage, mesh.indices, geo.indices.size());
    mesh.positions = geo.positions;
    mesh.normals = geo.normals;
    mesh.uvs = geo.uvs;
    mesh.indices = geo.indices;
  }
  addMeshMaterials(geo, atomicIndex, mesh, rig);
  if (!geo.skin) {
    mesh.attachBone = static_cast<int32_t>(atomicBone);
    rig.meshes.push_back(std::move(mesh));
    return Ok{};
  }
  const SkinPlg& skin = *geo.skin;
  Provenance& prov = rig.provenance;
  if (skin.numBones != nodeBones.size()) {
    prov.warn("skin-bones", fmt::format("atomic {}: Skin PLG has {} bones, the HAnim hierarchy {} nodes", atomicIndex,
                                        skin.numBones, nodeBones.size()));
  }
  const size_t nv = mesh.positions.size();
  // readGeometry makes the two equal (generic skins are read for numVertices positions; the Xbox
  // and WDGL readers check theirs); checked here too because the loop below reads the skin's
  // bytes through raw pointers.
  if (skin.vertexCount() != nv) {
    Error e = makeError(ErrorCode::BadValue, fmt::format("Skin PLG has {} vertices, the geometry {}", skin.vertexCount(), nv));
    e.path = fmt::format("Clump/Atomic[{}]", atomicIndex);
    return e;
  }
  // Influences are written in place, in one pass over the skin's vertex bytes: at most one per
  // weight slot in use, or one for a vertex with none (bound whole), so at most four a vertex;
  // the array is cut to what was written at the end.
  takeFrom(storage, mesh.influences, 4 * nv);
  takeFrom(storage, mesh.influenceOffsets, nv + 1);
  mesh.influences.resize(4 * nv);
  mesh.influenceOffsets.resize(nv + 1);
  Influence* out = mesh.influences.data();
  uint32_t* offsets = mesh.influenceOffsets.data();
  offsets[0] = 0;
  size_t written = 0;
  const uint32_t unweightedBone = jointForUnweighted(rig.skeleton, atomicBone, nodeBones);
  const size_t nodes = nodeBones.size();
  const uint8_t* nodeBytes = skin.nodeBytes();
  const uint8_t* weightBytes = skin.weightBytes();
  size_t unweighted = 0, badSlots = 0, badSums = 0;
  float worstSum = 1.0f;
  // The bone of each node index a byte can hold; kNoBone for nodes the hierarchy does not have.
  constexpr uint32_t kNoBone = UINT32_MAX;
  std::array<uint32_t, 256> boneOfNode;
  boneOfNode.fill(kNoBone);
  for (size_t n = 0; n < std::min<size_t>(nodes, 256); ++n) boneOfNode[n] = nodeBones[n];  // bone indices < kNoBone
  for (size_t v = 0; v < nv; ++v) {
    const uint8_t* node = nodeBytes + 4 * v;
    const uint32_t bone[4] = {boneOfNode[node[0]], boneOfNode[node[1]], boneOfNode[node[2]], boneOfNode[node[3]]};
#if RIGPORT_SSE2_LANES
    // The usual vertex below in SSE2 lanes: the four weights' bits tested at once (w - 1, signed, in
    // [0, 0x7F7FFFFF)), the influences interleaved from a lane of bones and one of weights, and the
    // sum added in the same order, one float at a time.
    {
      const __m128i w4 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(weightBytes + 16 * v));
      const __m128i less = _mm_sub_epi32(w4, _mm_set1_epi32(1));
      const __m128i positive = _mm_and_si128(_mm_cmpgt_epi32(less, _mm_set1_epi32(-1)), _mm_cmpgt_epi32(_mm_set1_epi32(0x7F7FFFFF), less));
      if (_mm_movemask_epi8(positive) == 0xFFFF && (bone[0] != kNoBone) & (bone[1] != kNoBone) & (bone[2] != kNoBone) & (bone[3] != kNoBone)) {
        const __m128i b4 = _mm_setr_epi32(static_cast<int32_t>(bone[0]), static_cast<int32_t>(bone[1]), static_cast<int32_t>(bone[2]),
                                          static_cast<int32_t>(bone[3]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + written), _mm_unpacklo_epi32(b4, w4));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + written + 2), _mm_unpackhi_epi32(b4, w4));
        written += 4;
        const __m128 w = _mm_castsi128_ps(w4);
        __m128 s = _mm_add_ss(w, _mm_shuffle_ps(w, w, _MM_SHUFFLE(1, 1, 1, 1)));
        s = _mm_add_ss(s, _mm_movehl_ps(w, w));
        s = _mm_add_ss(s, _mm_shuffle_ps(w, w, _MM_SHUFFLE(3, 3, 3, 3)));
        const float sum = _mm_cvtss_f32(s);
        if (sum != 0.0f && std::fabs(sum - 1.0f) > kWeightSumTolerance) {
          ++badSums;
          if (std::fabs(sum - 1.0f) > std::fabs(worstSum - 1.0f)) worstSum = sum;
        }
        offsets[v + 1] = static_cast<uint32_t>(written);
        continue;
      }
    }
#endif
    uint32_t bits[4];
    std::memcpy(bits, weightBytes + 16 * v, sizeof bits);
    const float w[4] = {std::bit_cast<float>(bits[0]), std::bit_cast<float>(bits[1]), std::bit_cast<float>(bits[2]),
                        std::bit_cast<float>(bits[3])};
    // The usual vertex: four positive finite weights (bit patterns 1 .. 0x7F7FFFFF) on nodes that
    // exist. Same sum, in the same order, as the general path below.
    const bool four = ((bits[0] - 1u) < 0x7F7FFFFFu) & ((bits[1] - 1u) < 0x7F7FFFFFu) & ((bits[2] - 1u) < 0x7F7FFFFFu) &
                      ((bits[3] - 1u) < 0x7F7FFFFFu) & (bone[0] != kNoBone) & (bone[1] != kNoBone) &
                      (bone[2] != kNoBone) & (bone[3] != kNoBone);
    float sum = 0.0f;
    if (four) {
      for (int k = 0; k < 4; ++k) out[written + k] = Influence{bone[k], w[k]};
      written += 4;
      sum = ((w[0] + w[1]) + w[2]) + w[3];
    } else {
      for (int k = 0; k < 4; ++k) {
        if (w[k] == 0.0f) continue;  // §5: filter by weight, never by index
        if (!(w[k] > 0.0f) || !std::isfinite(w[k]) || bone[k] == kNoBone) {
          ++badSlots;
          continue;
        }
        out[written++] = Influence{bone[k], w[k]};
        sum += w[k];
      }
      if (sum == 0.0f) {
        ++unweighted;
        out[written++] = Influence{unweightedBone, 1.0f};
      }
    }
    if (sum != 0.0f && std::fabs(sum - 1.0f) > kWeightSumTolerance) {
      ++badSums;
      if (std::fabs(sum - 1.0f) > std::fabs(worstSum - 1.0f)) worstSum = sum;
    }
    offsets[v + 1] = static_cast<uint32_t>(written);
  }
  mesh.influences.resize(written);
  // Mostly one or two weights a vertex: the spare half is given back, unless the array came from
  // (and goes back to) a storage, whose next read may need all of it.
  if (storage == nullptr && 2 * written < 4 * nv) mesh.influences.shrink_to_fit();
  if (badSlots > 0) {
    prov.warn("skin-index", fmt::format("atomic {}: {} weight slot(s) with a node index beyond {} nodes or a negative "
                                        "weight were dropped", atomicIndex, badSlots, nodeBones.size()));
  }
  if (unweighted > 0) {
    prov.warn("unweighted-vertex", fmt::format("atomic {}: {} vertex(es) without weights bound to joint '{}'{}",
                                               atomicIndex, unweighted, rig.skeleton.bones[unweightedBone].name,
                                               unweightedBone == atomicBone ? " (the atomic's frame)" : ""));
  }
  if (badSums > 0) {
    prov.warn("weight-sum", fmt::format("atomic {}: {} vertex(es) with weight sums off 1 by more than {} (worst {})",
                                        atomicIndex, badSums, kWeightSumTolerance, worstSum));
  }
  // §1.9: inverse matrices are per node, relative to the atomic's frame.
  const size_t nm = std::min(skin.inverseMatrices.size(), nodeBones.size());
  for (size_t n = 0; n < nm; ++n) {
    Bone& bone = rig.skeleton.bones[nodeBones[n]];
    if (!bone.inverseBind) {
      bone.inverseBind = skin.inverseMatrices[n];
    } else if (!nearlyEqual(*bone.inverseBind, skin.inverseMatrices[n])) {
      prov.warn("inverse-bind-conflict",
                fmt::format("atomic {}: node {} inverse matrix differs from the one bone '{}' already has; the first "
                            "is kept", atomicIndex, n, bone.name));
    }
  }
  rig.meshes.push_back(std::move(mesh));
  return Ok{};
}

}  // namespace

std::vector<uint32_t> parentFirstOrder(const std::vector<RwFrame>& frames) {
  const size_t n = frames.size();
  std::vector<std::vector<uint32_t>> children(n);
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i) {
    if (frames[i].parent < 0) {
      ready.push(static_cast<uint32_t>(i));
    } else {
      children[static_cast<size_t>(frames[i].parent)].push_back(static_cast<uint32_t>(i));
    }
  }
  std::vector<uint32_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const uint32_t f = ready.top();
    ready.pop();
    order.push_back(f);
    for (uint32_t c : children[f]) ready.push(c);
  }
  if (order.size() != n) order.clear();
  return order;
}

Status buildRig(const std::vector<RwFrame>& frames, uint64_t frameListOffset, std::vector<RwGeometry>& geometries,
                const std::vector<RwAtomic>& atomics, Rig& rig, RigStorage* storage, const MeshByMesh* byMesh) {
  const std::vector<uint32_t> order = parentFirstOrder(frames);
  if (order.size() != frames.size()) {
    Error e = makeError(ErrorCode::BadValue, "FrameList parents form a cycle");
    e.path = "Clump/FrameList";
    e.offset = frameListOffset;
    return e;
  }
  std::vector<uint32_t> remap(frames.size());
  bool reordered = false;
  for (size_t i = 0; i < order.size(); ++i) {
    remap[order[i]] = static_cast<uint32_t>(i);
    reordered |= order[i] != i;
  }
  if (reordered) rig.provenance.warn("frame-order", "FrameList lists children before parents; frames were reordered");
  auto& bones = rig.skeleton.bones;
  bones.resize(frames.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const RwFrame& f = frames[order[i]];
    Bone& b = bones[i];
    b.name = (f.name && !f.name->empty()) ? *f.name : fmt::format("frame_{}", order[i]);
    b.parent = f.parent < 0 ? -1 : static_cast<int32_t>(remap[static_cast<size_t>(f.parent)]);
    decomposeTrs(f.matrix, b);
    if (f.hanim && f.hanim->nodeId >= 0) b.id = static_cast<uint32_t>(f.hanim->nodeId);
  }
  if (!bones.empty()) rig.name = bones[0].name;
  size_t hierFrame = frames.size();
  for (size_t f = 0; f < frames.size(); ++f) {
    if (!frames[f].hanim || frames[f].hanim->nodes.empty()) continue;
    if (hierFrame == frames.size()) {
      hierFrame = f;
    } else {
      rig.provenance.warn("hanim-hierarchies", "more than one HAnim hierarchy; only the first is used");
    }
  }
  std::vector<uint32_t> nodeBones;
  if (hierFrame < frames.size()) {
    const Hierarchy h = mapHierarchy(frames, order, remap, hierFrame, rig.skeleton, rig.provenance);
    for (const RwAtomic& a : atomics) {
      const RwGeometry& geo = geometries[a.geometryIndex];
      if (!h.frameless.empty() && geo.skin) {
        placeFramelessBones(rig.skeleton, h, geo.skin->inverseMatrices);
        break;
      }
    }
    nodeBones = h.nodeBones;
    rig.skeleton.joints = nodeBones;
  }
  // Atomics may share a geometry; each becomes a mesh copy, so bound the total (a tiny atomic
  // could otherwise instance a large geometry thousands of times).
  uint64_t stored = 0, instanced = 0;
  for (const RwGeometry& g : geometries) stored += g.vertexCount;
  for (const RwAtomic& a : atomics) instanced += geometries[a.geometryIndex].vertexCount;
  if (instanced > 4 * stored + 65536) {
    Error e = makeError(ErrorCode::TooLarge, fmt::format("{} atomics instance {} vertices of {} stored", atomics.size(), instanced, stored));
    e.path = fmt::format("Clump/Atomic[{}]", atomics.size() - 1);
    e.offset = atomics.back().offset;
    return e;
  }
  warnShearedFrames(rig.skeleton, frames, order, rig.provenance);
  // The file's frame matrices, before any bone's TRS becomes the skin's bind pose; the clump's own
  // frame above the hierarchy without its turn, as the game places it.
  std::vector<glm::mat4> frameWorld = frameWorldMatrices(rig.skeleton, frames, order);
  if (hierFrame < frames.size()) {
    uint32_t root = remap[hierFrame];
    while (bones[root].parent >= 0) root = static_cast<uint32_t>(bones[root].parent);
    if (std::find(nodeBones.begin(), nodeBones.end(), root) == nodeBones.end()) {
      dropClumpRootTurn(rig.skeleton, root, order[root], frameWorld, rig.provenance);
    }
  }
  bool restPoseChosen = false;  // only the first disagreeing skin sets the rest pose
  std::vector<size_t> lastAtomic(geometries.size());
  for (size_t a = 0; a < atomics.size(); ++a) lastAtomic[atomics[a].geometryIndex] = a;
  for (size_t a = 0; a < atomics.size(); ++a) {
    RwGeometry& geo = geometries[atomics[a].geometryIndex];
    if (geo.skin && nodeBones.empty()) {
      // No HAnim hierarchy: the best guess is node index = frame index.
      rig.provenance.warn("skin-without-hanim", "Skin PLG without an HAnim hierarchy; node i taken as frame i");
      for (size_t i = 0; i < std::min<size_t>(geo.skin->numBones, frames.size()); ++i) nodeBones.push_back(remap[i]);
      rig.skeleton.joints = nodeBones;
    }
    const bool lastUse = lastAtomic[atomics[a].geometryIndex] == a;
    if (byMesh != nullptr) RP_CHECK(byMesh->reload(atomics[a].geometryIndex));
    RP_CHECK(buildMesh(geo, lastUse, remap[atomics[a].frameIndex], nodeBones, rig, a, storage));
    if (geo.skin) {
      restPoseChosen |= chooseRestPose(rig, nodeBones, geo.skin->inverseMatrices, frameWorld, a, !restPoseChosen);
    }
    if (byMesh != nullptr) {
      if (lastUse) byMesh->release(atomics[a].geometryIndex);
      RP_CHECK(validateMesh(rig, rig.meshes.size() - 1, MeshChecks::Structure));
      RP_CHECK(byMesh->meshBuilt(rig, 0, rig.meshes.size() - 1));
    }
  }
  return Ok{};
}

}  // namespace rigport::renderware
