// Rig → DFF (Clump with FrameList, Node Names, HAnim PLG, generic Geometry, Skin PLG, Atomics).
// Format note renderware.md §1.2–1.5, §1.9.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "core/default_init_allocator.hpp"
#include "core/validate.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/renderware/frame_list.hpp"
#include "formats/renderware/geometry.hpp"
#include "formats/renderware/hanim_plg.hpp"
#include "formats/renderware/axes.hpp"
#include "formats/renderware/rw_materials.hpp"

namespace rigport::renderware {
namespace {

constexpr uint32_t kGeometryListSince = 0x30400;
constexpr uint32_t kClumpLightsCamerasAfter = 0x33000;
constexpr uint32_t kHAnimOnEveryFrameBefore = 0x35000;  // §1.4: older files carry HAnim (id −1) everywhere
constexpr uint32_t kAtomicFlags = 0x05;                  // COLLISIONTEST | RENDER, as librw writes
constexpr size_t kMaxInfluences = 4;                     // §1.5: four slots per vertex
constexpr size_t kMaxNodes = 256;                        // skin indices are u8

bool isIdentity(const glm::mat4& m) {
  for (int c = 0; c < 4; ++c) {
    for (int k = 0; k < 4; ++k) {
      if (std::fabs(m[c][k] - (c == k ? 1.0f : 0.0f)) > 1e-6f) return false;
    }
  }
  return true;
}

// A vertex's influences of positive weight when it has more than four: the largest four (in their
// stored order), renormalised.
size_t largestInfluences(const Influence* first, size_t count, std::array<Influence, kMaxInfluences>& out) {
  std::vector<Influence> infl;
  for (size_t i = 0; i < count; ++i) {
    if (first[i].weight > 0.0f) infl.push_back(first[i]);
  }
  std::vector<size_t> rank(infl.size());
  std::iota(rank.begin(), rank.end(), 0);
  std::stable_sort(rank.begin(), rank.end(), [&](size_t a, size_t b) { return infl[a].weight > infl[b].weight; });
  rank.resize(kMaxInfluences);
  std::sort(rank.begin(), rank.end());
  float sum = 0.0f;
  for (size_t r : rank) sum += infl[r].weight;
  for (size_t k = 0; k < kMaxInfluences; ++k) out[k] = Influence{infl[rank[k]].bone, infl[rank[k]].weight / sum};
  return kMaxInfluences;
}

// A vertex's influences of positive weight into `out`, at most four (largestInfluences() where it
// has more); returns how many. Read in place: most vertices have four or fewer, kept as they are.
size_t vertexInfluences(const Influence* first, size_t count, std::array<Influence, kMaxInfluences>& out) {
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!(first[i].weight > 0.0f)) continue;
    if (n == kMaxInfluences) return largestInfluences(first, count, out);
    out[n++] = first[i];
  }
  return n;
}

SkinPlg makeSkin(const Mesh& mesh, const std::vector<int32_t>& nodeOfBone, const std::vector<glm::mat4>& inverse) {
  SkinPlg skin;
  skin.numBones = static_cast<uint32_t>(inverse.size());
  skin.inverseMatrices = inverse;
  const size_t nv = mesh.positions.size();
  skin.indices.assign(nv, {0, 0, 0, 0});
  skin.weights.assign(nv, {0.0f, 0.0f, 0.0f, 0.0f});
  std::array<bool, kMaxNodes> used{};  // node indices are u8
  std::array<Influence, kMaxInfluences> kept;
  // Plain pointers held in registers: the byte stores below could alias the vectors' own members.
  const uint32_t* offsets = mesh.influenceOffsets.data();
  const Influence* influences = mesh.influences.data();
  const int32_t* nodes = nodeOfBone.data();
  uint8_t* indices = skin.indices.data()->data();
  float* weights = skin.weights.data()->data();
  bool* usedNodes = used.data();
  size_t most = 0;
  for (size_t v = 0; v < nv; ++v) {
    const uint32_t begin = offsets[v], end = offsets[v + 1];
    size_t n = 0;
    const Influence* f = influences + begin;
    if (end - begin == kMaxInfluences && (f[0].weight > 0.0f) & (f[1].weight > 0.0f) & (f[2].weight > 0.0f) & (f[3].weight > 0.0f)) {
      // The usual vertex: four influences, each kept (the loop below, unrolled).
      for (size_t k = 0; k < kMaxInfluences; ++k) {
        const auto node = static_cast<uint8_t>(nodes[f[k].bone]);
        indices[4 * v + k] = node;
        weights[4 * v + k] = f[k].weight;
        usedNodes[node] = true;
      }
      n = kMaxInfluences;
    } else if (end - begin <= kMaxInfluences) {  // vertexInfluences() keeps them all: written as they are read
      for (uint32_t i = begin; i < end; ++i) {
        const Influence inf = influences[i];
        if (!(inf.weight > 0.0f)) continue;
        const auto node = static_cast<uint8_t>(nodes[inf.bone]);
        indices[4 * v + n] = node;
        weights[4 * v + n] = inf.weight;
        usedNodes[node] = true;
        ++n;
      }
    } else {
      n = vertexInfluences(influences + begin, end - begin, kept);
      for (size_t k = 0; k < n; ++k) {
        const auto node = static_cast<uint8_t>(nodeOfBone[kept[k].bone]);
        skin.indices[v][k] = node;
        skin.weights[v][k] = kept[k].weight;
        used[node] = true;
      }
    }
    most = std::max(most, n);
  }
  skin.maxWeights = static_cast<uint32_t>(most);
  for (size_t n = 0; n < inverse.size(); ++n) {
    if (used[n]) skin.usedBones.push_back(static_cast<uint8_t>(n));
  }
  skin.numUsedBones = static_cast<uint32_t>(skin.usedBones.size());
  return skin;
}

}  // namespace

Result<std::vector<uint8_t>> writeDff(const Rig& input, const DffWriteOptions& options) {
  const uint32_t version = options.version;
  if (version < 0x30000 || version >= 0x40000) {
    return makeError(ErrorCode::Usage, fmt::format("RW version 0x{:X} is not RenderWare 3", version));
  }
  RP_CHECK(validate(input));
  // The skeleton in RenderWare axes. The meshes are not copied to be converted: each geometry maps
  // its vertices as it is built from the input's (convertAxes()'s bits: VertexMap), and a mirror
  // turns its triangles as convertAxes() does.
  std::optional<Skeleton> convertedSkeleton;
  std::optional<VertexMap> map;
  if (input.provenance.axes != kRenderWareAxes) {
    Rig bones;
    bones.skeleton = input.skeleton;
    bones.provenance.axes = input.provenance.axes;
    map = convertAxesLeavingVertices(bones, kRenderWareAxes);
    convertedSkeleton = std::move(bones.skeleton);
  }
  const bool mirror = map && glm::determinant(map->p) < 0.0f;
  const Rig& rig = input;
  const uint32_t libraryId = packLibraryId(version, 0xFFFF);
  const Skeleton& sk = convertedSkeleton ? *convertedSkeleton : input.skeleton;

  // Frames: one per bone, or a single root frame for a rig without bones.
  // Atomics hang on frames: a rig with meshes but no bones gets one root frame; a rig with neither
  // is written with an empty FrameList, so it reads back exactly as it was.
  std::vector<RwFrame> frames(sk.bones.empty() && !rig.meshes.empty() ? 1 : sk.bones.size());
  for (size_t i = 0; i < sk.bones.size(); ++i) {
    frames[i].matrix = sk.bones[i].localMatrix();
    frames[i].parent = sk.bones[i].parent;
    frames[i].name = sk.bones[i].name;
  }
  if (sk.bones.empty() && !frames.empty()) frames[0].name = rig.name.empty() ? std::string("root") : rig.name;

  // Joints: the skeleton's list plus any bone an influence names.
  std::vector<uint32_t> joints = sk.bones.empty() ? std::vector<uint32_t>{} : sk.jointList();
  std::vector<bool> isJoint(sk.bones.size(), false);
  for (uint32_t j : joints) isJoint[j] = true;
  // Where every bone is a joint already (a skeleton without a joint list), no influence adds one.
  const bool everyBone = std::find(isJoint.begin(), isJoint.end(), false) == isJoint.end();
  for (const Mesh& m : everyBone ? std::span<const Mesh>() : std::span<const Mesh>(rig.meshes)) {
    for (const Influence& inf : m.influences) {
      if (!isJoint[inf.bone]) {
        isJoint[inf.bone] = true;
        joints.push_back(inf.bone);
      }
    }
  }
  if (joints.size() > kMaxNodes) {
    return makeError(ErrorCode::Usage, fmt::format("{} joints; a Skin PLG indexes at most {}", joints.size(), kMaxNodes));
  }
  const HAnimNodeOrder tree = hanimNodeOrder(sk, joints);
  std::vector<int32_t> nodeOfBone(sk.bones.size(), -1);
  for (size_t n = 0; n < tree.bones.size(); ++n) nodeOfBone[tree.bones[n]] = static_cast<int32_t>(n);

  // HAnim ids: the bone's own id when unique among the nodes, otherwise the next free one.
  std::vector<int32_t> ids(sk.bones.size(), -1);
  std::vector<int32_t> taken;
  for (size_t b = 0; b < sk.bones.size(); ++b) {
    if (!sk.bones[b].id || *sk.bones[b].id > 0x7FFFFFFFu) continue;
    const auto id = static_cast<int32_t>(*sk.bones[b].id);
    if (nodeOfBone[b] >= 0 && std::find(taken.begin(), taken.end(), id) != taken.end()) continue;
    ids[b] = id;
    if (nodeOfBone[b] >= 0) taken.push_back(id);
  }
  // Fresh ids are the smallest ones no node uses (max + 1 would overflow on an id of 0x7FFFFFFF).
  std::sort(taken.begin(), taken.end());
  int32_t candidate = 0;
  size_t t = 0;  // `taken` holds distinct non-negative ids; skip those at or below the candidate
  for (uint32_t b : tree.bones) {
    if (ids[b] >= 0) continue;
    while (t < taken.size() && taken[t] <= candidate) {
      if (taken[t] == candidate) ++candidate;
      ++t;
    }
    ids[b] = candidate++;
  }
  // A bone that is no node keeps its id only where no node has it: DragonFF's construct_bone_dict
  // takes the last frame with a node's id as that node's bone, librw's findById the first.
  std::vector<int32_t> nodeIds;
  for (uint32_t b : tree.bones) nodeIds.push_back(ids[b]);
  std::sort(nodeIds.begin(), nodeIds.end());
  for (size_t b = 0; b < sk.bones.size(); ++b) {
    if (nodeOfBone[b] < 0 && std::binary_search(nodeIds.begin(), nodeIds.end(), ids[b])) ids[b] = -1;
  }
  // The hierarchy lives on the first node's frame, as in GTA's files, unless the frames above it
  // move it (Blender's armature object, the Khronos Fox's ×0.0254 and 90° turn): then on the root
  // frame above. DragonFF makes the hierarchy frame an armature object that keeps no matrix of its
  // own and hangs on the frame above it, and poses bones by their inverse bind matrices in that
  // armature's space (docs/dragonff.md): that space must be the skin's, as for librw and rigport.
  // (Not `empty() ? -1 : bones[0]`: that conditional is unsigned, and -1 became 4294967295, an
  // out-of-bounds frame the fuzzer found.)
  const std::vector<glm::mat4> world = sk.worldBindMatrices();
  const bool hasHierarchy = !tree.bones.empty();
  uint32_t hierFrame = hasHierarchy ? tree.bones[0] : 0;
  if (hasHierarchy && sk.bones[hierFrame].parent >= 0 && !isIdentity(world[static_cast<size_t>(sk.bones[hierFrame].parent)])) {
    while (sk.bones[hierFrame].parent >= 0) hierFrame = static_cast<uint32_t>(sk.bones[hierFrame].parent);
  }
  for (size_t b = 0; b < sk.bones.size(); ++b) {
    if (ids[b] >= 0 || version < kHAnimOnEveryFrameBefore || (hasHierarchy && b == hierFrame)) {
      frames[b].hanim = HAnimPlg{};
      frames[b].hanim->nodeId = ids[b];
    }
  }
  if (hasHierarchy) {
    const std::vector<int32_t> flags = hanimFlagsFromParents(tree.parents);
    HAnimPlg& plg = *frames[hierFrame].hanim;
    for (size_t n = 0; n < tree.bones.size(); ++n) {
      plg.nodes.push_back(HAnimNode{ids[tree.bones[n]], static_cast<int32_t>(n), flags[n]});
    }
  }

  // Geometry per mesh: a skinned one on the hierarchy frame (GTA and DragonFF style) with its
  // positions and inverse bind matrices as they are, in the skin's space (§1.9: librw's skinning
  // cancels the atomic's frame, a vertex lands at bone LTM × IBM × v); an unskinned one on its bone,
  // or on the first frame with its positions taken into that frame's space.
  std::vector<uint32_t> atomicFrames;
  for (size_t mi = 0; mi < rig.meshes.size(); ++mi) {
    const Mesh& mesh = rig.meshes[mi];
    if (mesh.positions.size() > 0xFFFF) {
      return makeError(ErrorCode::Usage,
                       fmt::format("mesh {} has {} vertices; RW triangles index at most 65535", mi, mesh.positions.size()));
    }
    uint32_t frame = 0;
    if (mesh.skinned() && hasHierarchy) frame = hierFrame;
    else if (mesh.attachBone >= 0) frame = static_cast<uint32_t>(mesh.attachBone);
    atomicFrames.push_back(frame);
  }
  // Each geometry is built from its mesh and written before the next is built, so that one
  // geometry's arrays are held at a time, beside the rig and the file; the mesh's own arrays are
  // written as they are where nothing changes them (UVs always, triangles without a mirror).
  std::vector<glm::vec3, DefaultInitAllocator<glm::vec3>> positions, normals;  // one geometry's mapped vertices at a time
  const auto writeMeshGeometry = [&](ByteWriter& w, size_t mi) {
    const Mesh& mesh = rig.meshes[mi];
    const uint32_t frame = atomicFrames[mi];
    const bool toFrameSpace = !sk.bones.empty() && !mesh.skinned() && mesh.attachBone < 0;
    const glm::mat4 atomicWorld = toFrameSpace ? world[frame] : glm::mat4(1.0f);
    const bool transform = !isIdentity(atomicWorld);
    const glm::mat4 toAtomic = glm::inverse(atomicWorld);
    const glm::mat3 normalToAtomic = glm::transpose(glm::inverse(glm::mat3(toAtomic)));
    RwGeometry geo;
    geometryMaterials(mesh, rig, geo);
    if (mesh.skinned()) {
      std::vector<glm::mat4> inverse(tree.bones.size());
      for (size_t n = 0; n < tree.bones.size(); ++n) {
        const Bone& b = sk.bones[tree.bones[n]];
        inverse[n] = b.inverseBind ? *b.inverseBind : glm::inverse(world[tree.bones[n]]);
      }
      geo.skin = makeSkin(mesh, nodeOfBone, inverse);
    }
    GeometryArrays arrays{mesh.positions, mesh.normals, mesh.uvs, mesh.indices};
    // In RenderWare axes (the map), then in the atomic's frame (the transform), into arrays of their
    // own (each element written once: not zeroed first).
    if (map || transform) {
      positions.resize(mesh.positions.size());
      normals.resize(mesh.normals.size());
      if (map) {
        mapPoints(*map, mesh.positions.data(), positions.data(), mesh.positions.size());
        mapDirections(*map, mesh.normals.data(), normals.data(), mesh.normals.size());
      } else {
        std::copy(mesh.positions.begin(), mesh.positions.end(), positions.begin());
        std::copy(mesh.normals.begin(), mesh.normals.end(), normals.begin());
      }
      if (transform) {
        for (glm::vec3& p : positions) p = glm::vec3(toAtomic * glm::vec4(p, 1.0f));
        for (glm::vec3& n : normals) n = glm::normalize(normalToAtomic * n);
      }
      arrays.positions = positions;
      arrays.normals = normals;
    }
    if (mirror) {
      geo.indices = mesh.indices;
      for (size_t i = 0; i + 2 < geo.indices.size(); i += 3) std::swap(geo.indices[i + 1], geo.indices[i + 2]);
      arrays.indices = geo.indices;
    }
    writeGeometry(w, geo, arrays, version, libraryId);
  };

  // The geometries' arrays are most of the file: room for them up front, so that the buffer is not
  // copied (and fresh pages touched twice) as it grows.
  ByteWriter w;
  size_t arrays = 0;
  for (const Mesh& m : rig.meshes) {
    arrays += 12 * (m.positions.size() + m.normals.size()) + 8 * m.uvs.size() + 8 * (m.indices.size() / 3) + 4 * m.indices.size();
    if (m.skinned()) arrays += 20 * m.positions.size() + 68 * tree.bones.size();
  }
  w.reserve(arrays + 256 * (frames.size() + rig.meshes.size()) + 4096);
  const size_t clump = beginChunk(w, kClump, libraryId);
  const size_t st = beginChunk(w, kStruct, libraryId);
  w.u32(static_cast<uint32_t>(rig.meshes.size()));
  if (version > kClumpLightsCamerasAfter) {
    w.u32(0);  // numLights
    w.u32(0);  // numCameras
  }
  endChunk(w, st);
  writeFrameList(w, frames, libraryId);
  const bool geometryList = version >= kGeometryListSince;
  if (geometryList) {
    const size_t gl = beginChunk(w, kGeometryList, libraryId);
    const size_t gst = beginChunk(w, kStruct, libraryId);
    w.u32(static_cast<uint32_t>(rig.meshes.size()));
    endChunk(w, gst);
    for (size_t mi = 0; mi < rig.meshes.size(); ++mi) writeMeshGeometry(w, mi);
    endChunk(w, gl);
  }
  for (size_t a = 0; a < rig.meshes.size(); ++a) {
    const size_t at = beginChunk(w, kAtomic, libraryId);
    const size_t ast = beginChunk(w, kStruct, libraryId);
    w.u32(atomicFrames[a]);
    w.u32(geometryList ? static_cast<uint32_t>(a) : 0u);
    w.u32(kAtomicFlags);
    if (geometryList) w.u32(0);
    endChunk(w, ast);
    if (!geometryList) writeMeshGeometry(w, a);
    endChunk(w, beginChunk(w, kExtension, libraryId));
    endChunk(w, at);
  }
  endChunk(w, beginChunk(w, kExtension, libraryId));
  endChunk(w, clump);
  return w.take();
}

}  // namespace rigport::renderware
