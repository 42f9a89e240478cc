// DRS → Rig (battleforge_drs.md §2–§8): the container's blocks found by magic, the skeleton with
// its bind pose, one Mesh per BattleforgeMesh skinned from its rev-12 stream through CDspJointMap,
// cross-checked against CSkSkinInfo by position (§8, §12). Data stays in raw game space (axes.hpp).
#include <algorithm>
#include <array>
#include <bit>
#include <optional>

#include <fmt/format.h>

#include "core/validate.hpp"
#include "formats/battleforge/axes.hpp"
#include "formats/battleforge/container.hpp"
#include "formats/battleforge/influences.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "formats/battleforge/material.hpp"
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
  // murmur3's 64-bit finaliser over the three words: positions on a grid differ in few bits.
  size_t operator()(const PositionKey& k) const {
    uint64_t h = (uint64_t{k.x} << 32 | k.y) ^ (uint64_t{k.z} * 0x9E3779B97F4A7C15ull);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    return static_cast<size_t>(h ^ (h >> 33));
  }
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

// A block's file bytes go back once it is decoded (ReadContext::releaseBytes): every part is a copy,
// so nothing reads them again, and `info`'s peak is then the decoded model, not it and the file.
template <class T, class Read>
Status readBlock(const ByteReader& root, const DrsBlock& b, const ReadContext& ctx, std::optional<T>& out, Read read) {
  RP_ASSIGN(ByteReader r, root.window(b.offset, b.size, b.name.empty() ? className(b.magic) : b.name.c_str()));
  RP_ASSIGN(out, read(r));
  if (ctx.releaseBytes) ctx.releaseBytes(r.data());
  return Ok{};
}

Result<DrsParts> readParts(const ByteReader& root, const std::vector<DrsBlock>& blocks, const ReadContext& ctx, Provenance& provenance) {
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
      case kCSkSkeleton: RP_CHECK(readBlock(root, b, ctx, parts.skeleton, readSkeleton)); break;
      case kCSkSkinInfo: RP_CHECK(readBlock(root, b, ctx, parts.skinInfo, readSkinInfo)); break;
      case kCGeoMesh: RP_CHECK(readBlock(root, b, ctx, parts.geoMesh, readGeoMesh)); break;
      case kCDspJointMap: RP_CHECK(readBlock(root, b, ctx, parts.jointMap, readJointMap)); break;
      case kCDspMeshFile:
        RP_CHECK(readBlock(root, b, ctx, parts.meshFile, [&](ByteReader& r) { return readMeshFile(r, &provenance); }));
        break;
    }
  }
  if (!skipped.empty()) provenance.warn("unknown-block", "blocks rigport does not model, skipped: " + skipped);
  return parts;
}

struct SkinContext {
  const std::vector<uint32_t>& rigIndex;  // identifier -> rig bone
  size_t badIds = 0;
};

void addInfluence(Influences4& out, int64_t identifier, float weight, SkinContext& ctx) {
  if (!(weight > 0.0f)) return;
  if (identifier < 0 || static_cast<size_t>(identifier) >= ctx.rigIndex.size()) {
    ++ctx.badIds;
    return;
  }
  out.at[out.n++] = {ctx.rigIndex[identifier], weight};
}

// §8: one rev-12 vertex through its submesh's joint group; `badLocal` counts local joints past it.
Influences4 jointMapInfluences(const std::array<uint8_t, 8>& w8, const std::vector<int16_t>& group, SkinContext& ctx, size_t& badLocal) {
  Influences4 out;
  for (int k = 0; k < 4; ++k) {
    const uint8_t w = w8[k], local = w8[4 + k];
    if (w == 0) continue;
    if (local >= group.size()) {
      ++badLocal;
      continue;
    }
    addInfluence(out, group[local], w / 255.0f, ctx);
  }
  return out;
}

Influences4 skinInfoInfluences(const SkinInfoVertex& s, SkinContext& ctx) {
  Influences4 out;
  for (int k = 0; k < 4; ++k) addInfluence(out, s.bones[k], s.weights[k], ctx);
  return out;
}

void append(Mesh& mesh, const Influences4& v) {
  if (mesh.influenceOffsets.empty()) mesh.influenceOffsets.push_back(0);
  mesh.influences.insert(mesh.influences.end(), v.at.begin(), v.at.begin() + v.n);
  mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
}

// CGeoMesh vertex by exact position (open addressing; the CGeoMesh has at most 65,536 vertices).
// A slot holds only its row, whose position the probe compares: 512 KB for the benchmark's 60,025
// rows where slots holding their keys too took 2 MB, whose stores missed the caches and whose fresh
// pages the kernel zeroed (together 7 % of the DRS benchmark's time); a probe rarely meets a second
// row, the table being at most half full.
class PositionIndex {
 public:
  void build(const std::vector<glm::vec3>& positions, size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    slots_.assign(cap, kEmpty);
    positions_ = &positions;
    firstOfPosition_.assign(n, false);
    for (size_t v = 0; v < n; ++v) {
      const PositionKey k = keyOf(positions[v]);
      size_t h = PositionHash{}(k) & (cap - 1);
      while (slots_[h] != kEmpty && !(keyOf(positions[slots_[h]]) == k)) h = (h + 1) & (cap - 1);
      if (slots_[h] == kEmpty) {  // the first row of a position wins
        slots_[h] = static_cast<uint32_t>(v);
        firstOfPosition_[v] = true;
      }
    }
  }
  // Submeshes usually list CGeoMesh's vertices in its order: row `hint` is tried first and taken
  // when it is the row a lookup would give (same position, first of it), which skips the hash.
  int64_t find(const glm::vec3& p, size_t hint) const {
    if (hint < firstOfPosition_.size() && firstOfPosition_[hint] && keyOf((*positions_)[hint]) == keyOf(p)) {
      return static_cast<int64_t>(hint);
    }
    return find(p);
  }
  int64_t find(const glm::vec3& p) const {
    if (slots_.empty()) return -1;
    const PositionKey k = keyOf(p);
    for (size_t h = PositionHash{}(k) & (slots_.size() - 1);; h = (h + 1) & (slots_.size() - 1)) {
      if (slots_[h] == kEmpty) return -1;
      if (keyOf((*positions_)[slots_[h]]) == k) return slots_[h];
    }
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  std::vector<uint32_t> slots_;  // a CGeoMesh row, or kEmpty
  const std::vector<glm::vec3>* positions_ = nullptr;
  std::vector<bool> firstOfPosition_;
};

// Swapped with an empty vector: clear() and `= {}` would keep the capacity.
template <class T>
void giveBack(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

// Mesh m of the rig, just built: with ReadOptions::meshBuilt, checked whole (what the read's last
// validate() would find in it) and handed over. The caller has checked the rest of the rig already,
// so a damaged file gives the error an ordinary read gives.
Status handOver(const ReadContext& readContext, Rig& rig, size_t m) {
  if (!readContext.options.meshBuilt) return Ok{};
  RP_CHECK(validateMesh(rig, m, MeshChecks::Every));
  return readContext.options.meshBuilt(rig, 0, m);
}

// The meshes, each handed over as soon as it is built (handOver); each source array is given back
// once used, so a mesh-by-mesh read holds one mesh and what still skins the rest (a mesh's indices
// are made last, when that is least).
Status buildMeshes(DrsParts& parts, const std::vector<uint32_t>& rigIndex, const ReadContext& readContext, Rig& rig) {
  SkinContext ctx{rigIndex};
  const bool skinned = parts.skeleton.has_value();
  const bool haveSkinInfo = skinned && parts.skinInfo && parts.geoMesh;
  PositionIndex geoIndex;
  if (haveSkinInfo) {
    if (parts.skinInfo->vertices.size() != parts.geoMesh->positions.size()) {
      rig.provenance.warn("skin-info", fmt::format("CSkSkinInfo has {} rows for {} CGeoMesh vertices; rows past either end unused",
                                                   parts.skinInfo->vertices.size(), parts.geoMesh->positions.size()));
    }
    geoIndex.build(parts.geoMesh->positions, std::min(parts.skinInfo->vertices.size(), parts.geoMesh->positions.size()));
  }

  // Every material first, so that all of the rig but its meshes is checked before one is handed over.
  if (parts.meshFile) {
    for (size_t i = 0; i < parts.meshFile->meshes.size(); ++i) rig.materials.push_back(materialOf(parts.meshFile->meshes[i], i));
  }
  if (readContext.options.meshBuilt) RP_CHECK(validate(rig));
  if (parts.meshFile) {
    if (parts.geoMesh) giveBack(parts.geoMesh->indices);  // the render meshes have their own
    size_t mismatches = 0, unmatched = 0;
    std::string firstMismatch;
    for (size_t i = 0; i < parts.meshFile->meshes.size(); ++i) {
      BattleforgeMesh& m = parts.meshFile->meshes[i];
      Mesh mesh;
      mesh.name = fmt::format("mesh{}", i);
      mesh.positions = std::move(m.positions);  // m's streams are not needed again: moved, not copied
      mesh.normals = std::move(m.normals);
      mesh.uvs = std::move(m.uvs);  // §4: raw v is already top-left-origin, as glTF's
      const bool haveGroup = parts.jointMap && i < parts.jointMap->groups.size();
      if (skinned && !m.weights.empty() && haveGroup) {
        const std::vector<int16_t>& group = parts.jointMap->groups[i];
        size_t badLocal = 0;
        mesh.influences.reserve(4 * m.weights.size());
        mesh.influenceOffsets.reserve(m.weights.size() + 1);
        // The rev-12 stream decides (§12); where CSkSkinInfo agrees with it (same bones, weights within
        // one 8-bit step) its float weights are taken instead: the stream's are truncated to 1/255.
        size_t hint = 0;
        for (size_t v = 0; v < m.weights.size(); ++v) {
          const Influences4 inf = jointMapInfluences(m.weights[v], group, ctx, badLocal);
          const int64_t g = haveSkinInfo ? geoIndex.find(mesh.positions[v], hint) : -1;
          hint = g < 0 ? hint : static_cast<size_t>(g) + 1;
          if (g < 0) {
            unmatched += haveSkinInfo ? 1 : 0;
            append(mesh, inf);
            continue;
          }
          const Influences4 precise = skinInfoInfluences(parts.skinInfo->vertices[g], ctx);
          if (sameInfluences(inf, precise)) {
            append(mesh, precise);
          } else {
            append(mesh, inf);
            if (mismatches++ == 0) firstMismatch = fmt::format("BattleforgeMesh {} vertex {}", i, v);
          }
        }
        if (badLocal > 0) {
          rig.provenance.warn("joint-map", fmt::format("BattleforgeMesh {}: {} weight(s) name a local joint past its CDspJointMap group of {}; dropped",
                                                       i, badLocal, group.size()));
        }
      } else if (skinned && haveSkinInfo) {
        if (!m.weights.empty()) {
          rig.provenance.warn("joint-map", fmt::format("BattleforgeMesh {} has weights but no CDspJointMap group; skinned from CSkSkinInfo", i));
        }
        size_t hint = 0;
        for (const glm::vec3& p : mesh.positions) {
          const int64_t g = geoIndex.find(p, hint);
          hint = g < 0 ? hint : static_cast<size_t>(g) + 1;
          unmatched += g < 0 ? 1 : 0;
          append(mesh, g < 0 ? Influences4{} : skinInfoInfluences(parts.skinInfo->vertices[g], ctx));
        }
      }
      giveBack(m.weights);
      // What skins the meshes goes back after the last one's influences, before its indices are made.
      if (i + 1 == parts.meshFile->meshes.size()) {
        parts.skinInfo.reset();
        parts.geoMesh.reset();
        geoIndex = PositionIndex();
      }
      mesh.indices.resize(3 * m.faces.size());
      for (size_t f = 0; f < m.faces.size(); ++f) {
        for (size_t k = 0; k < 3; ++k) mesh.indices[3 * f + k] = m.faces[f][k];
      }
      giveBack(m.faces);
      mesh.parts.push_back({static_cast<uint32_t>(i), 0, static_cast<uint32_t>(mesh.indices.size())});
      rig.meshes.push_back(std::move(mesh));
      RP_CHECK(handOver(readContext, rig, rig.meshes.size() - 1));
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
    mesh.positions = std::move(parts.geoMesh->positions);
    mesh.indices.assign(parts.geoMesh->indices.begin(), parts.geoMesh->indices.end());
    mesh.indices.resize(mesh.indices.size() / 3 * 3);
    giveBack(parts.geoMesh->indices);
    if (haveSkinInfo) {
      for (size_t v = 0; v < mesh.positions.size(); ++v) {
        append(mesh, v < parts.skinInfo->vertices.size() ? skinInfoInfluences(parts.skinInfo->vertices[v], ctx) : Influences4{});
      }
    }
    rig.meshes.push_back(std::move(mesh));
    RP_CHECK(handOver(readContext, rig, 0));
  }
  if (ctx.badIds > 0) rig.provenance.warn("bone-id", fmt::format("{} influence(s) name no bone identifier; dropped", ctx.badIds));
  return Ok{};
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
  RP_ASSIGN(const std::vector<DrsBlock> blocks, readBlocks(root, &rig.provenance));
  RP_ASSIGN(DrsParts parts, readParts(root, blocks, readContext, rig.provenance));
  std::vector<uint32_t> rigIndex;
  if (parts.skeleton) RP_CHECK(buildSkeleton(*parts.skeleton, rig.skeleton, rigIndex, rig.provenance));
  RP_CHECK(buildMeshes(parts, rigIndex, readContext, rig));
  if (rig.skeleton.bones.empty() && rig.meshes.empty()) {
    return root.errorAt(0, ErrorCode::BadValue, "no CSkSkeleton, CDspMeshFile or CGeoMesh block: nothing to convert", "NodeInformation");
  }
  RP_CHECK(validate(rig));
  return rig;
}

}  // namespace rigport::battleforge
