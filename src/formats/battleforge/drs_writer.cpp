// Rig → DRS (battleforge_drs.md §2–§8), in the add-on's WriteOrder: CDspJointMap, CSkSkinInfo,
// CSkSkeleton, CDspMeshFile, CGeoMesh. Bone identifiers are the rig's bone indices (parents first,
// as the add-on numbers them). Each mesh part becomes one BattleforgeMesh whose rev-12 stream holds
// its 4 largest influences as 8-bit weights summing to 255, through a CDspJointMap group that starts
// with the root (the add-on's "root_ref" fills unused slots with it). CGeoMesh is every position
// once; CSkSkinInfo holds the float weights of each CGeoMesh vertex's first occurrence.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "core/validate.hpp"
#include "formats/battleforge/axes.hpp"
#include "formats/battleforge/container.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "formats/battleforge/material.hpp"
#include "formats/battleforge/mesh_file.hpp"
#include "formats/battleforge/skeleton.hpp"
#include "formats/battleforge/skin.hpp"

namespace rigport::battleforge {
namespace {

constexpr size_t kMaxSubmeshVertices = 65536;  // u16 face indices
constexpr size_t kMaxGroupJoints = 256;        // u8 local joints

struct PositionBits {
  uint32_t x, y, z;
  bool operator==(const PositionBits&) const = default;
};
struct PositionBitsHash {
  size_t operator()(const PositionBits& k) const { return (size_t{k.x} * 0x9E3779B1u) ^ (size_t{k.y} * 0x85EBCA77u) ^ (size_t{k.z} * 0xC2B2AE3Du); }
};
PositionBits bitsOf(const glm::vec3& p) {
  auto bits = [](float f) { return std::bit_cast<uint32_t>(f == 0.0f ? 0.0f : f); };
  return {bits(p.x), bits(p.y), bits(p.z)};
}

// A vertex's influences, largest 4, normalised; a vertex of an unskinned mesh (at the model root) rides bone 0.
std::vector<Influence> topFour(const Mesh& mesh, size_t v) {
  std::vector<Influence> out;
  if (mesh.skinned()) {
    out.assign(mesh.influences.begin() + mesh.influenceOffsets[v], mesh.influences.begin() + mesh.influenceOffsets[v + 1]);
  }
  std::erase_if(out, [](const Influence& i) { return !(i.weight > 0.0f); });
  std::stable_sort(out.begin(), out.end(), [](const Influence& a, const Influence& b) { return a.weight > b.weight; });
  if (out.size() > 4) out.resize(4);
  if (out.empty()) out.push_back({0, 1.0f});
  float sum = 0.0f;
  for (const Influence& i : out) sum += i.weight;
  for (Influence& i : out) i.weight /= sum;
  return out;
}

// 8-bit weights summing to 255: floor each, then the largest remainders take the rest.
std::array<uint8_t, 4> quantise(const std::vector<Influence>& in) {
  std::array<uint8_t, 4> q{};
  std::array<float, 4> rest{};
  int total = 0;
  for (size_t k = 0; k < in.size(); ++k) {
    const float scaled = in[k].weight * 255.0f;
    q[k] = static_cast<uint8_t>(std::floor(scaled));
    rest[k] = scaled - q[k];
    total += q[k];
  }
  while (total < 255 && !in.empty()) {
    const size_t k = static_cast<size_t>(std::max_element(rest.begin(), rest.begin() + in.size()) - rest.begin());
    ++q[k];
    rest[k] = -1.0f;
    ++total;
  }
  return q;
}

// A mesh drawn whole (one part) keeps every vertex in its order, so vertex i reads back as vertex
// i; a part of a mesh takes the vertices its triangles use, in ascending order.
Result<BattleforgeMesh> submesh(const Rig& rig, const Mesh& mesh, const MeshPart& part, bool wholeMesh, size_t meshIndex,
                                std::vector<int16_t>& group, bool skinned) {
  BattleforgeMesh out;
  std::vector<uint32_t> used;
  if (wholeMesh) {
    used.resize(mesh.positions.size());
    std::iota(used.begin(), used.end(), 0u);
  } else {
    used.assign(mesh.indices.begin() + part.firstIndex, mesh.indices.begin() + part.firstIndex + part.indexCount);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
  }
  if (used.size() > kMaxSubmeshVertices) {
    return makeError(ErrorCode::Unsupported, fmt::format("mesh '{}': a part uses {} vertices, more than {}; DRS face indices are 16-bit", mesh.name,
                                                         used.size(), kMaxSubmeshVertices));
  }
  for (uint32_t i = part.firstIndex; i + 2 < part.firstIndex + part.indexCount; i += 3) {
    std::array<uint16_t, 3> face{};
    for (int k = 0; k < 3; ++k) {
      const uint32_t v = mesh.indices[i + k];
      face[k] = static_cast<uint16_t>(wholeMesh ? v : std::lower_bound(used.begin(), used.end(), v) - used.begin());
    }
    out.faces.push_back(face);
  }
  for (uint32_t v : used) {
    out.positions.push_back(mesh.positions[v]);
    out.normals.push_back(v < mesh.normals.size() ? mesh.normals[v] : glm::vec3(0.0f));
    out.uvs.push_back(v < mesh.uvs.size() ? mesh.uvs[v] : glm::vec2(0.0f));
  }
  if (part.material < rig.materials.size()) {
    out.textures = texturesOf(rig.materials[part.material]);
  }
  if (!skinned) return out;
  group.assign(1, 0);  // the root first, as the add-on does
  std::unordered_map<uint32_t, uint8_t> slotOf{{0u, 0}};
  for (uint32_t v : used) {
    const std::vector<Influence> inf = topFour(mesh, v);
    const std::array<uint8_t, 4> q = quantise(inf);
    std::array<uint8_t, 8> packed{};
    for (size_t k = 0; k < inf.size(); ++k) {
      auto [it, fresh] = slotOf.emplace(inf[k].bone, static_cast<uint8_t>(group.size()));
      if (fresh) {
        if (group.size() == kMaxGroupJoints) {
          return makeError(ErrorCode::Unsupported, fmt::format("mesh '{}' (BattleforgeMesh {}): more than {} bones weigh one part; "
                                                               "rev-12 local joints are 8-bit",
                                                               mesh.name, meshIndex, kMaxGroupJoints));
        }
        group.push_back(static_cast<int16_t>(inf[k].bone));
      }
      packed[k] = q[k];
      packed[4 + k] = it->second;
    }
    out.weights.push_back(packed);
  }
  return out;
}

}  // namespace

Result<std::vector<uint8_t>> writeDrs(const Rig& source) {
  std::optional<Rig> storage;
  const Rig& rig = inBattleForgeAxes(source, storage);
  RP_CHECK(validate(rig));
  const bool skinned = !rig.skeleton.bones.empty();
  if (rig.skeleton.bones.size() > 32768) {
    return makeError(ErrorCode::Unsupported, fmt::format("{} bones; CDspJointMap identifiers are 16-bit", rig.skeleton.bones.size()));
  }
  for (const Mesh& mesh : rig.meshes) {
    // Every DRS mesh is skinned; fitToLimits binds a rider first (core/fit.hpp, skinnedMeshesOnly).
    if (!mesh.skinned() && mesh.attachBone >= 0) {
      return invalidModel(fmt::format("meshes['{}']", mesh.name), "rides a bone; DRS skins every mesh (bind it with fitToLimits first)");
    }
  }
  std::unordered_set<std::string> names;
  for (const Bone& b : rig.skeleton.bones) {
    if (b.name.size() > kMaxBoneName) {
      return makeError(ErrorCode::Unsupported, fmt::format("bone '{}': DRS bone names have at most {} characters", b.name, kMaxBoneName));
    }
    if (!names.insert(b.name).second) return makeError(ErrorCode::Unsupported, fmt::format("bone name '{}' twice; DRS bone names are unique", b.name));
  }

  CDspMeshFile meshFile;
  CDspJointMap jointMap;
  for (size_t m = 0; m < rig.meshes.size(); ++m) {
    const Mesh& mesh = rig.meshes[m];
    std::vector<MeshPart> parts = mesh.parts;
    if (parts.empty()) parts.push_back({0, 0, static_cast<uint32_t>(mesh.indices.size())});
    for (const MeshPart& part : parts) {
      std::vector<int16_t> group;
      RP_ASSIGN(meshFile.meshes.emplace_back(), submesh(rig, mesh, part, parts.size() == 1, meshFile.meshes.size(), group, skinned));
      jointMap.groups.push_back(std::move(group));
    }
  }
  // CGeoMesh: each position once, in first-use order; CSkSkinInfo beside it.
  CGeoMesh geo;
  CSkSkinInfo skinInfo;
  std::unordered_map<PositionBits, uint32_t, PositionBitsHash> geoIndex;
  for (const Mesh& mesh : rig.meshes) {
    for (uint32_t v : mesh.indices) {
      auto [it, fresh] = geoIndex.emplace(bitsOf(mesh.positions[v]), static_cast<uint32_t>(geo.positions.size()));
      if (fresh) {
        if (geo.positions.size() == kMaxSubmeshVertices) {
          return makeError(ErrorCode::Unsupported, fmt::format("more than {} distinct positions; CGeoMesh indices are 16-bit", kMaxSubmeshVertices));
        }
        geo.positions.push_back(mesh.positions[v]);
        if (skinned) {
          SkinInfoVertex row;
          const std::vector<Influence> inf = topFour(mesh, v);
          for (size_t k = 0; k < inf.size(); ++k) {
            row.weights[k] = inf[k].weight;
            row.bones[k] = static_cast<int32_t>(inf[k].bone);
          }
          skinInfo.vertices.push_back(row);
        }
      }
      geo.indices.push_back(static_cast<uint16_t>(it->second));
    }
  }

  std::vector<BlockPayload> payloads;
  auto add = [&](const char* name, int32_t magic, auto write) {
    ByteWriter w;
    write(w);
    payloads.push_back({name, magic, w.take()});
  };
  add("CDspJointMap", kCDspJointMap, [&](ByteWriter& w) { writeJointMap(w, jointMap); });
  if (skinned) {
    add("CSkSkinInfo", kCSkSkinInfo, [&](ByteWriter& w) { writeSkinInfo(w, skinInfo); });
    const CSkSkeleton skeleton = skeletonFromRig(rig.skeleton);
    for (size_t i = 0; i < skeleton.matrices.size(); ++i) {
      for (const BoneVertex& v : skeleton.matrices[i]) {
        if (!std::isfinite(v.position.x) || !std::isfinite(v.position.y) || !std::isfinite(v.position.z)) {
          return makeError(ErrorCode::Unsupported, fmt::format("bone '{}': its bind pose is not finite", rig.skeleton.bones[i].name));
        }
      }
    }
    add("CSkSkeleton", kCSkSkeleton, [&](ByteWriter& w) { writeSkeleton(w, skeleton); });
  }
  if (!meshFile.meshes.empty()) add("CDspMeshFile", kCDspMeshFile, [&](ByteWriter& w) { writeMeshFile(w, meshFile); });
  if (!geo.positions.empty()) add("CGeoMesh", kCGeoMesh, [&](ByteWriter& w) { writeGeoMesh(w, geo); });
  return writeContainer(payloads);
}

}  // namespace rigport::battleforge
