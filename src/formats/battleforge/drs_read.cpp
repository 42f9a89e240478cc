// DRS → Rig (battleforge_drs.md §2–§8): the container's blocks found by magic, the skeleton with
// its bind pose, one Mesh per BattleforgeMesh skinned from its rev-12 stream through CDspJointMap,
// cross-checked against CSkSkinInfo by position (§8, §12). Data stays in raw game space (bf_axes.hpp).
#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "core/validate.hpp"
#include "formats/battleforge/bf_axes.hpp"
#include "formats/battleforge/container.hpp"
#include "formats/battleforge/drs_io.hpp"
#include "formats/battleforge/mesh_file.hpp"
#include "formats/battleforge/skeleton.hpp"
#include "formats/battleforge/skin.hpp"

namespace rigport::battleforge {
namespace {

// CSkSkinInfo rows are matched to submesh vertices by exact position (§5, as the C# reader does).
struct PositionKey {
  uint32_t x, y, z;
  bool operator==(const PositionKey&) const = default;
};
struct PositionHash {
  size_t operator()(const PositionKey& k) const { return (size_t{k.x} * 0x9E3779B1u) ^ (size_t{k.y} * 0x85EBCA77u) ^ (size_t{k.z} * 0xC2B2AE3Du); }
};
PositionKey keyOf(const glm::vec3& p) {
  auto bits = [](float f) { return std::bit_cast<uint32_t>(f == 0.0f ? 0.0f : f); };  // -0 == +0
  return {bits(p.x), bits(p.y), bits(p.z)};
}

struct DrsParts {
  std::optional<CSkSkeleton> skeleton;
  std::optional<CSkSkinInfo> skinInfo;
  std::optional<CGeoMesh> geoMesh;
  std::optional<CDspJointMap> jointMap;
  std::optional<CDspMeshFile> meshFile;
};

template <class T, class Read>
Status readBlock(const ByteReader& root, const DrsBlock& b, std::optional<T>& out, Read read) {
  ByteReader r = RP_TRY(root.window(b.offset, b.size, b.name.empty() ? className(b.magic) : b.name.c_str()));
  out = RP_TRY(read(r));
  return Ok{};
}

Result<DrsParts> readParts(const ByteReader& root, const std::vector<DrsBlock>& blocks, Provenance& provenance) {
  DrsParts parts;
  std::string skipped;
  std::vector<bool> seen(5, false);
  for (const DrsBlock& b : blocks) {
    const int32_t known[] = {kCSkSkeleton, kCSkSkinInfo, kCGeoMesh, kCDspMeshFile, kCDspJointMap};
    const auto it = std::find(std::begin(known), std::end(known), b.magic);
    if (it == std::end(known)) {
      skipped += fmt::format("{}{} (magic {}) at 0x{:X}, {} bytes", skipped.empty() ? "" : "; ", b.name.empty() ? "?" : b.name, b.magic, b.offset, b.size);
      continue;
    }
    const size_t k = static_cast<size_t>(it - std::begin(known));
    if (seen[k]) {
      provenance.warn("duplicate-block", fmt::format("second {} block at 0x{:X} ignored", className(b.magic), b.offset));
      continue;
    }
    seen[k] = true;
    switch (b.magic) {
      case kCSkSkeleton: RP_CHECK(readBlock(root, b, parts.skeleton, readSkeleton)); break;
      case kCSkSkinInfo: RP_CHECK(readBlock(root, b, parts.skinInfo, readSkinInfo)); break;
      case kCGeoMesh: RP_CHECK(readBlock(root, b, parts.geoMesh, readGeoMesh)); break;
      case kCDspJointMap: RP_CHECK(readBlock(root, b, parts.jointMap, readJointMap)); break;
      case kCDspMeshFile:
        RP_CHECK(readBlock(root, b, parts.meshFile, [&](ByteReader& r) { return readMeshFile(r, &provenance); }));
        break;
    }
  }
  if (!skipped.empty()) provenance.warn("unknown-block", "blocks rigport does not model, skipped: " + skipped);
  return parts;
}

// Influences of one vertex by rig bone, zero weights dropped.
using VertexInfluences = std::vector<Influence>;

struct SkinContext {
  const std::vector<uint32_t>& rigIndex;  // identifier -> rig bone
  Provenance& provenance;
  size_t badIds = 0;
};

void addInfluence(VertexInfluences& out, int64_t identifier, float weight, SkinContext& ctx) {
  if (!(weight > 0.0f)) return;
  if (identifier < 0 || static_cast<size_t>(identifier) >= ctx.rigIndex.size()) {
    ++ctx.badIds;
    return;
  }
  out.push_back({ctx.rigIndex[identifier], weight});
}

// §8: rev-12 weights through the submesh's joint group.
std::vector<VertexInfluences> jointMapInfluences(const BattleforgeMesh& m, const std::vector<int16_t>& group, size_t meshIndex, SkinContext& ctx) {
  std::vector<VertexInfluences> out(m.weights.size());
  size_t badLocal = 0;
  for (size_t v = 0; v < m.weights.size(); ++v) {
    for (int k = 0; k < 4; ++k) {
      const uint8_t w = m.weights[v][k], local = m.weights[v][4 + k];
      if (w == 0) continue;
      if (local >= group.size()) {
        ++badLocal;
        continue;
      }
      addInfluence(out[v], group[local], w / 255.0f, ctx);
    }
  }
  if (badLocal > 0) {
    ctx.provenance.warn("joint-map", fmt::format("BattleforgeMesh {}: {} weight(s) name a local joint past its CDspJointMap group of {}; dropped",
                                                 meshIndex, badLocal, group.size()));
  }
  return out;
}

VertexInfluences skinInfoInfluences(const SkinInfoVertex& s, SkinContext& ctx) {
  VertexInfluences out;
  for (int k = 0; k < 4; ++k) addInfluence(out, s.bones[k], s.weights[k], ctx);
  return out;
}

// Same bones with weights within one 8-bit step (rev-12 weights are truncated int(w·255), §8).
bool sameInfluences(VertexInfluences a, VertexInfluences b) {
  auto merge = [](VertexInfluences& v) {
    std::sort(v.begin(), v.end(), [](const Influence& x, const Influence& y) { return x.bone < y.bone; });
    VertexInfluences m;
    for (const Influence& i : v) {
      if (!m.empty() && m.back().bone == i.bone) m.back().weight += i.weight;
      else m.push_back(i);
    }
    v = std::move(m);
  };
  merge(a);
  merge(b);
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].bone != b[i].bone || std::fabs(a[i].weight - b[i].weight) > 1.0f / 255.0f + 1e-5f) return false;
  }
  return true;
}

void setInfluences(Mesh& mesh, const std::vector<VertexInfluences>& per) {
  mesh.influenceOffsets.assign(1, 0);
  mesh.influenceOffsets.reserve(per.size() + 1);
  for (const VertexInfluences& v : per) {
    mesh.influences.insert(mesh.influences.end(), v.begin(), v.end());
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
}

void buildMeshes(const DrsParts& parts, const std::vector<uint32_t>& rigIndex, Rig& rig) {
  SkinContext ctx{rigIndex, rig.provenance};
  const bool skinned = parts.skeleton.has_value();
  // CGeoMesh vertex of each position, for CSkSkinInfo.
  std::unordered_map<PositionKey, uint32_t, PositionHash> geoIndex;
  const bool haveSkinInfo = skinned && parts.skinInfo && parts.geoMesh;
  if (haveSkinInfo) {
    if (parts.skinInfo->vertices.size() != parts.geoMesh->positions.size()) {
      rig.provenance.warn("skin-info", fmt::format("CSkSkinInfo has {} rows for {} CGeoMesh vertices; rows past either end unused",
                                                   parts.skinInfo->vertices.size(), parts.geoMesh->positions.size()));
    }
    const size_t n = std::min(parts.skinInfo->vertices.size(), parts.geoMesh->positions.size());
    for (size_t v = 0; v < n; ++v) geoIndex.emplace(keyOf(parts.geoMesh->positions[v]), static_cast<uint32_t>(v));
  }
  auto skinInfoAt = [&](const glm::vec3& p) -> const SkinInfoVertex* {
    const auto it = geoIndex.find(keyOf(p));
    return it == geoIndex.end() ? nullptr : &parts.skinInfo->vertices[it->second];
  };

  if (parts.meshFile) {
    size_t mismatches = 0, unmatched = 0;
    std::string firstMismatch;
    for (size_t i = 0; i < parts.meshFile->meshes.size(); ++i) {
      const BattleforgeMesh& m = parts.meshFile->meshes[i];
      Mesh mesh;
      mesh.name = fmt::format("mesh{}", i);
      mesh.positions = m.positions;
      mesh.normals = m.normals;
      mesh.uvs = m.uvs;  // §4: raw v is already top-left-origin, as glTF's
      mesh.indices.reserve(3 * m.faces.size());
      for (const auto& f : m.faces) mesh.indices.insert(mesh.indices.end(), {f[0], f[1], f[2]});
      Material material;
      material.name = fmt::format("material{}", i);
      for (const auto& [id, name] : m.textures) {
        material.textures.push_back(name);
        if (id == kTextureColour) material.name = name;
      }
      rig.materials.push_back(std::move(material));
      mesh.parts.push_back({static_cast<uint32_t>(rig.materials.size() - 1), 0, static_cast<uint32_t>(mesh.indices.size())});
      if (skinned) {
        const bool haveGroup = parts.jointMap && i < parts.jointMap->groups.size();
        std::vector<VertexInfluences> per;
        if (!m.weights.empty() && haveGroup) {
          per = jointMapInfluences(m, parts.jointMap->groups[i], i, ctx);
          if (haveSkinInfo) {
            for (size_t v = 0; v < per.size(); ++v) {
              const SkinInfoVertex* s = skinInfoAt(m.positions[v]);
              if (s == nullptr) {
                ++unmatched;
              } else if (!sameInfluences(per[v], skinInfoInfluences(*s, ctx))) {
                if (mismatches++ == 0) firstMismatch = fmt::format("BattleforgeMesh {} vertex {}", i, v);
              }
            }
          }
        } else if (haveSkinInfo) {
          if (!m.weights.empty()) {
            rig.provenance.warn("joint-map", fmt::format("BattleforgeMesh {} has weights but no CDspJointMap group; skinned from CSkSkinInfo", i));
          }
          per.resize(m.positions.size());
          for (size_t v = 0; v < per.size(); ++v) {
            if (const SkinInfoVertex* s = skinInfoAt(m.positions[v])) per[v] = skinInfoInfluences(*s, ctx);
            else ++unmatched;
          }
        }
        if (!per.empty()) setInfluences(mesh, per);
      }
      rig.meshes.push_back(std::move(mesh));
    }
    if (mismatches > 0) {
      rig.provenance.warn("skin-mismatch", fmt::format("{} vertices weighted differently by the rev-12 stream (used) and CSkSkinInfo at the same "
                                                       "position, first {}",
                                                       mismatches, firstMismatch));
    }
    if (unmatched > 0) {
      rig.provenance.warn("skin-info", fmt::format("{} submesh vertices have no CGeoMesh vertex at their position", unmatched));
    }
  } else if (parts.geoMesh) {
    // No render mesh: the selection mesh (positions only), skinned by the CSkSkinInfo parallel to it.
    Mesh mesh;
    mesh.name = "CGeoMesh";
    mesh.positions = parts.geoMesh->positions;
    mesh.indices.assign(parts.geoMesh->indices.begin(), parts.geoMesh->indices.end());
    mesh.indices.resize(mesh.indices.size() / 3 * 3);
    if (haveSkinInfo) {
      std::vector<VertexInfluences> per(mesh.positions.size());
      for (size_t v = 0; v < per.size() && v < parts.skinInfo->vertices.size(); ++v) per[v] = skinInfoInfluences(parts.skinInfo->vertices[v], ctx);
      setInfluences(mesh, per);
    }
    rig.meshes.push_back(std::move(mesh));
  }
  if (ctx.badIds > 0) rig.provenance.warn("bone-id", fmt::format("{} influence(s) name no bone identifier; dropped", ctx.badIds));
}

}  // namespace

bool probeDrs(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  auto magic = r.s32("magic");
  return magic && *magic == kDrsMagic;
}

Result<Rig> readDrs(std::span<const uint8_t> bytes, ReadContext& readContext) {
  ByteReader root = readContext.reader(bytes);
  Rig rig;
  rig.provenance.format = "battleforge-drs";
  rig.provenance.axes = kBattleForgeAxes;
  const std::vector<DrsBlock> blocks = RP_TRY(readBlocks(root, &rig.provenance));
  const DrsParts parts = RP_TRY(readParts(root, blocks, rig.provenance));
  std::vector<uint32_t> rigIndex;
  if (parts.skeleton) RP_CHECK(buildSkeleton(*parts.skeleton, rig.skeleton, rigIndex, rig.provenance));
  buildMeshes(parts, rigIndex, rig);
  if (rig.skeleton.bones.empty() && rig.meshes.empty()) {
    return root.errorAt(0, ErrorCode::BadValue, "no CSkSkeleton, CDspMeshFile or CGeoMesh block: nothing to convert", "NodeInformation");
  }
  RP_CHECK(validate(rig));
  return rig;
}

}  // namespace rigport::battleforge
