// Model block → Rig (sluggers.md §2 header and sections, §3 GPL, §4 ACT, §6 SKN).
#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "core/byte_reader.hpp"
#include "core/validate.hpp"
#include "formats/sluggers/act.hpp"
#include "formats/sluggers/gpl.hpp"
#include "formats/sluggers/model_places.hpp"
#include "formats/sluggers/sluggers.hpp"
#include "formats/sluggers/skin_build.hpp"
#include "formats/sluggers/tex.hpp"
#include "formats/sluggers/skn.hpp"

namespace rigport::sluggers {
namespace {

constexpr size_t kSectionFields[] = {kHeaderGpl / 4, kHeaderAct / 4, kHeaderTex / 4, kHeaderSkn / 4, kHeaderFacial / 4};

struct Sections {
  std::array<uint32_t, 8> start{};  // the header's words; 0 = absent
  // A section ends where the next one starts (the unknown words at 0x14 and 0x1C are not pointers).
  size_t end(size_t field, size_t blockSize) const {
    size_t e = blockSize;
    for (size_t f : kSectionFields)
      if (start[f] > start[field] && start[f] < e) e = start[f];
    return e;
  }
};

// §2: the section pointers, each inside the block.
Result<Sections> readHeader(ByteReader& r) {
  Sections s;
  constexpr const char* kNames[8] = {"zero", "gpl", "act", "tex", "skn", "unknown14", "facialPoses", "unknown1C"};
  for (size_t i = 0; i < 8; ++i) { RP_ASSIGN(s.start[i], r.u32(kNames[i])); }
  if (s.start[0] != 0) {
    return r.errorAt(0, ErrorCode::BadValue,
                     fmt::format("first word 0x{:08X}: a model block starts with 0 (an archive or ANM bank does not, §2)", s.start[0]),
                     "zero");
  }
  for (size_t i : kSectionFields) {
    if (s.start[i] != 0 && (s.start[i] < kBlockHeaderSize || s.start[i] >= r.size())) {
      return r.errorAt(i * 4, ErrorCode::BadValue, fmt::format("section pointer 0x{:X} is outside the 0x{:X}-byte block", s.start[i], r.size()),
                       kNames[i]);
    }
  }
  if (s.start[kHeaderGpl / 4] == 0) return r.errorAt(kHeaderGpl, ErrorCode::BadValue, "no GPL section", "gpl");
  return s;
}

Result<ByteReader> section(const ByteReader& root, const Sections& s, size_t field, const char* name) {
  const size_t at = s.start[field / 4];
  return root.window(at, s.end(field / 4, root.size()) - at, name);
}

bool finitePose(const Bone& b) {
  std::vector<float> v{b.translation.x, b.translation.y, b.translation.z, b.scale.x, b.scale.y, b.scale.z,
                       b.rotation.x,    b.rotation.y,    b.rotation.z,    b.rotation.w};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) v.push_back((*b.inverseBind)[c][r]);
  return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

// Rig order: the table order when parents come first (vanilla, §4), else parents-first.
Result<std::vector<uint32_t>> rigOrder(const ActData& act, uint64_t actOffset) {
  const size_t n = act.bones.size();
  std::vector<uint32_t> order;
  bool sorted = true;
  for (size_t i = 0; i < n; ++i) sorted = sorted && act.bones[i].parent < static_cast<int32_t>(i);
  if (sorted) {
    for (uint32_t i = 0; i < n; ++i) order.push_back(i);
    return order;
  }
  std::vector<std::vector<uint32_t>> children(n);
  std::vector<uint32_t> pending;
  for (uint32_t i = 0; i < n; ++i) {
    if (act.bones[i].parent < 0) pending.push_back(i);
    else children[static_cast<size_t>(act.bones[i].parent)].push_back(i);
  }
  std::reverse(pending.begin(), pending.end());
  while (!pending.empty()) {
    const uint32_t b = pending.back();
    pending.pop_back();
    order.push_back(b);
    for (auto it = children[b].rbegin(); it != children[b].rend(); ++it) pending.push_back(*it);
  }
  if (order.size() != n) {
    Error e = makeError(ErrorCode::BadValue, "the bones' parent links form a cycle");
    e.path = "ACT/bone/parent";
    e.offset = actOffset;
    return e;
  }
  return order;
}

Status buildSkeleton(const ActData& act, uint64_t actOffset, Rig& rig, std::vector<int32_t>& tableToRig) {
  RP_ASSIGN(const std::vector<uint32_t> order, rigOrder(act, actOffset));
  const size_t n = act.bones.size();
  bool reordered = false;
  tableToRig.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    tableToRig[order[i]] = static_cast<int32_t>(i);
    reordered = reordered || order[i] != i;
  }
  if (reordered) {
    rig.provenance.warn("sluggers-bone-order", fmt::format("ACT at 0x{:X}: bone records list children before parents; bones reordered "
                                                           "parents-first (ids kept)",
                                                           actOffset));
  }
  std::vector<glm::mat4> world(n);
  size_t detached = 0;
  for (size_t i = 0; i < n; ++i) {
    const ActBone& a = act.bones[order[i]];
    Bone b;
    b.name = act.names.empty() ? fmt::format("bone_{}", a.boneID) : act.names[order[i]];
    b.id = a.boneID;
    b.parent = a.parent >= 0 ? tableToRig[static_cast<size_t>(a.parent)] : -1;
    glm::mat4 local = a.local;
    // §4: without inheritance the bone's matrix is in actor space; re-expressed under its parent.
    if (a.inheritanceFlag != 1 && b.parent >= 0) {
      local = glm::inverse(world[static_cast<size_t>(b.parent)]) * a.local;
      ++detached;
    }
    world[i] = b.parent >= 0 ? world[static_cast<size_t>(b.parent)] * local : local;
    if ((a.control.type & kCtrlMatrix) || local != a.local) {
      decomposeTrs(local, b.translation, b.rotation, b.scale);
    } else {
      b.translation = a.control.translation;
      b.rotation = a.control.rotation;
      b.scale = a.control.scale;
    }
    b.inverseBind = glm::inverse(world[i]);  // §4: orientationInv, the inverse bind world matrix
    if (!finitePose(b)) {
      Error e = makeError(ErrorCode::BadValue, "the bind pose is not finite (a control too large, or singular)");
      e.path = fmt::format("ACT/bone[{}]/orientation", order[i]);
      e.offset = actOffset + kActHeaderSize + order[i] * kBoneRecordSize;
      return e;
    }
    b.extras = {{"sluggers", {{"geoFileID", a.geoFileID}, {"inheritanceFlag", a.inheritanceFlag}}}};
    if (!act.trackIds.empty()) b.extras["sluggers"]["anmTrack"] = act.trackIds[order[i]];
    rig.skeleton.bones.push_back(std::move(b));
  }
  if (detached > 0) {
    rig.provenance.warn("sluggers-inheritance", fmt::format("{} bones do not inherit their parent's transform (inheritanceFlag 0); their "
                                                            "actor-space pose was re-expressed under the parent (§4 caveat)",
                                                            detached));
  }
  return Ok{};
}

// One rig vertex per distinct (position, normal, uv) index triple, or the position array itself
// when every corner uses one index for all three (what rigport's writer and the skinned layout do);
// then g's arrays are moved into the mesh.
// `place`, when given, learns each vertex's element of the normal and uv arrays too.
void buildVertices(GplMesh& g, Mesh& mesh, std::vector<uint32_t>& vertexSlot, MeshPlace* place) {
  const bool anyNormal = g.anyCornerNormal, anyUv = g.anyCornerUv;  // kept by the GPL reader as corners were added
  const bool shared = (!anyNormal || g.normals.size() == g.positions.size()) && (!anyUv || g.uvs.size() == g.positions.size()) &&
                      g.cornersShareIndex;
  if (shared) {
    mesh.positions = std::move(g.positions);
    if (anyNormal) mesh.normals = std::move(g.normals);
    if (anyUv) mesh.uvs = std::move(g.uvs);
    mesh.indices = std::move(g.cornerPosition);
    vertexSlot.resize(mesh.positions.size());
    for (uint32_t i = 0; i < vertexSlot.size(); ++i) vertexSlot[i] = i;
    return;
  }
  g.storeCornerIndices();
  std::unordered_map<uint64_t, uint32_t> seen;
  for (size_t c = 0; c < g.cornerPosition.size(); ++c) {
    const uint64_t key = (uint64_t(g.cornerPosition[c]) << 34) ^ (uint64_t(g.cornerNormal[c] & 0x1FFFF) << 17) ^ (g.cornerUv[c] & 0x1FFFF);
    auto [it, added] = seen.emplace(key, static_cast<uint32_t>(mesh.positions.size()));
    if (added) {
      vertexSlot.push_back(g.cornerPosition[c]);
      mesh.positions.push_back(g.positions[g.cornerPosition[c]]);
      if (anyNormal) mesh.normals.push_back(g.cornerNormal[c] != kNoIndex ? g.normals[g.cornerNormal[c]] : glm::vec3(0, 1, 0));
      if (anyUv) mesh.uvs.push_back(g.cornerUv[c] != kNoIndex ? g.uvs[g.cornerUv[c]] : glm::vec2(0.0f));
      if (place != nullptr) {
        place->normalOf.push_back(g.cornerNormal[c]);
        place->uvOf.push_back(g.cornerUv[c]);
      }
    }
    mesh.indices.push_back(it->second);
  }
  if (place != nullptr) place->positionOf = vertexSlot;
}

// The skinned mesh (§3 "Skinned vs rigid"): the CP takes ACT.skinFileID, the community submesh 0,
// and the skin destination is the compCount-6 layout; they agree in all surveyed data.
Result<int32_t> skinnedMesh(const ActData& act, GplMeshes& meshes, Provenance& provenance) {
  int32_t six = -1;
  for (size_t i = 0; i < meshes.size() && six < 0; ++i) {
    RP_ASSIGN(const uint8_t compCount, meshes.positionCompCount(i));
    six = compCount == kSkinnedCompCount ? static_cast<int32_t>(i) : -1;
  }
  if (act.skinFileID != kNoGeo && act.skinFileID < meshes.size()) {
    if (six >= 0 && six != act.skinFileID) {
      provenance.warn("sluggers-skin-mesh", fmt::format("skinFileID {} but submesh {} has the compCount-6 layout; skinFileID used",
                                                        act.skinFileID, six));
    }
    return static_cast<int32_t>(act.skinFileID);
  }
  return six;
}

// Each submesh decoded just before its mesh is built (GplMeshes), its warnings into gplWarnings.
// File bytes go back once decoded (ReadContext::releaseBytes): each submesh's, and the SKN's
// (its records are read again from it by the skin) once the skin is built, and as it is built
// where the meshes are handed over.
Status buildMeshes(const ActData& act, GplMeshes& gpl, Provenance& gplWarnings, size_t gplAt, std::optional<SknData>& skn,
                   const std::vector<int32_t>& tableToRig, TextureBinder& binder, const ReadContext& ctx, Rig& rig, ModelPlaces* places) {
  int32_t skinned = -1;
  if (skn) { RP_ASSIGN(skinned, skinnedMesh(act, gpl, rig.provenance)); }
  if (skn && skinned < 0 && skn->recordCount > 0) {
    rig.provenance.warn("sluggers-skin-mesh", "an SKN section but no skinned submesh (skinFileID none, no compCount-6 layout); skin not read");
  }
  nlohmann::json skinReport;
  for (size_t m = 0; m < gpl.size(); ++m) {
    RP_ASSIGN(GplMesh g, gpl.next(gplWarnings, ctx.releaseBytes, static_cast<int32_t>(m) == skinned));
    if (ctx.releaseBytes) ctx.releaseBytes(gpl.doneWith(g));
    Mesh mesh;
    mesh.name = g.name.empty() ? fmt::format("mesh_{}", m) : g.name;
    std::vector<uint32_t> vertexSlot;
    MeshPlace* place = nullptr;
    if (places != nullptr) place = &places->meshes.emplace_back(placeMesh(g, gplAt));
    if (static_cast<int32_t>(m) == skinned) {
      BoneIndexMaps maps;
      for (size_t t = 0; t < act.bones.size(); ++t) {
        const uint16_t id = act.bones[t].boneID;
        if (maps.byId.size() <= id) maps.byId.resize(size_t(id) + 1, -1);
        if (maps.byId[id] < 0) maps.byId[id] = tableToRig[t];
      }
      for (uint32_t t : act.depthFirst) maps.byDepthFirst.push_back(tableToRig[t]);
      // The SKN's pages go back as the skin is built only where the meshes are handed over (`info`):
      // a read that holds the whole model (and a conversion, its export) gains little by it, and each
      // page given back costs a fault when it is read again (a conversion of the benchmark's block
      // took 1.07 times as long).
      SlotSkin skin = buildSkin(*skn, maps, rig.skeleton, g.positions, g.interleavedNormals, rig.provenance,
                                ctx.options.meshBuilt ? ctx.releaseBytes : nullptr);
      if (ctx.releaseBytes) ctx.releaseBytes(skn->section);
      if (g.normalsAliasPositions) g.normals = std::move(g.interleavedNormals);
      buildVertices(g, mesh, vertexSlot, place);
      skinReport = std::move(skin.report);
      if (places != nullptr) {
        places->skin.mesh = skinned;
        places->skin.boneOfIndex = std::move(skin.boneOfIndex);
      }
      applySkin(std::move(skin), vertexSlot, mesh);
    } else {
      buildVertices(g, mesh, vertexSlot, place);
      for (size_t b = 0; b < act.bones.size(); ++b) {
        if (act.bones[b].geoFileID == m) mesh.attachBone = tableToRig[b];  // §4: rigid meshes ride their owner bone
      }
    }
    binder.bindMesh(g, mesh);
    rig.meshes.push_back(std::move(mesh));
    // Handed over (ReadOptions::meshBuilt) with the read's own check (readModel's validate()).
    if (ctx.options.meshBuilt) {
      RP_CHECK(validateMesh(rig, m, MeshChecks::Structure));
      RP_CHECK(ctx.options.meshBuilt(rig, 0, m));
    }
  }
  binder.warnUnbound();
  if (skinned >= 0) {
    skinReport["mesh"] = skinned;
    skinReport["posNrmShift"] = skn->shift;
    skinReport["entries"] = {{"SK1", skn->numSk1}, {"SK2", skn->numSk2}, {"SKAcc", skn->numSkAcc}};
    rig.extras["sluggers"]["skin"] = std::move(skinReport);
  }
  return Ok{};
}

}  // namespace

bool probeModel(std::span<const uint8_t> bytes) {
  if (bytes.size() < 0x44) return false;
  ByteReader r(bytes, Endian::Big);
  auto wordAt = [&r](size_t at) -> Result<uint32_t> {
    RP_CHECK(r.seek(at, "probe"));
    return r.u32("probe");
  };
  const auto first = wordAt(0);
  const auto gpl = wordAt(kHeaderGpl);
  if (!first || *first != 0 || !gpl || (*gpl != 0x20 && *gpl != 0x40)) return false;
  const auto magic = wordAt(*gpl);
  return magic && *magic == kGplMagic;
}

Result<Rig> readModel(std::span<const uint8_t> bytes, ReadContext& ctx) { return readModel(bytes, ctx, nullptr); }

namespace {

// Everything the block holds past the GPL section's header, read into rig: the ACT, SKN and TEX
// sections, then each mesh, its submesh decoded just before it is built.
Status readSections(const ByteReader& root, const Sections& s, GplMeshes& gpl, Provenance& gplWarnings, ReadContext& ctx, Rig& rig,
                    ModelPlaces* places) {
  ActData act;
  if (s.start[kHeaderAct / 4] != 0) {
    RP_ASSIGN(ByteReader actReader, section(root, s, kHeaderAct, "ACT"));
    RP_ASSIGN(act, readAct(actReader, rig.provenance));
    // The ACT section's file bytes go back once decoded (ReadContext::releaseBytes), as each GPL
    // submesh's: their parts are copies, so the read holds the model, not it and the file.
    // (Textures are decoded from their section's later: those stay.)
    if (ctx.releaseBytes) ctx.releaseBytes(actReader.data());
  }
  std::optional<SknData> skn;
  if (s.start[kHeaderSkn / 4] != 0) {
    RP_ASSIGN(ByteReader sknReader, section(root, s, kHeaderSkn, "SKN"));
    RP_ASSIGN(skn, readSkn(sknReader, places != nullptr ? &places->skin.where : nullptr));
    // Where the meshes are handed over (`info`), so do the SKN's once its entries are checked, though
    // the skin reads its records from it: a released page of a mapped file is read in again when
    // touched, and the skin gives the pages back as it goes (buildSkin), so they are not held with
    // the rest of the section until then. A conversion keeps them until the skin is built, as it
    // did when the skin read held records: each page given back and read in again is a fault.
    if (ctx.releaseBytes && ctx.options.meshBuilt) ctx.releaseBytes(sknReader.data());
  }
  std::vector<int32_t> tableToRig;
  RP_CHECK(buildSkeleton(act, s.start[kHeaderAct / 4], rig, tableToRig));
  if (places != nullptr) placeBones(act, s.start[kHeaderAct / 4], tableToRig, *places);
  rig.extras = {{"sluggers", {{"actorID", act.actorID}, {"skinFileID", act.skinFileID}, {"geoName", act.geoName}}}};
  if (s.start[kHeaderFacial / 4] != 0) rig.provenance.warn("sluggers-not-read", "the facial-pose section is not read (morph poses)");
  std::vector<Texture> tex;
  if (s.start[kHeaderTex / 4] != 0) {
    RP_ASSIGN(ByteReader texReader, section(root, s, kHeaderTex, "TEX"));
    RP_ASSIGN(tex, readTex(texReader, rig.provenance));
  }
  TextureBinder binder(rig, std::move(tex), s.start[kHeaderTex / 4] != 0);
  RP_CHECK(buildMeshes(act, gpl, gplWarnings, s.start[kHeaderGpl / 4], skn, tableToRig, binder, ctx, rig, places));
  if (places != nullptr && places->skin.mesh >= 0) {
    places->skin.section = s.start[kHeaderSkn / 4];
    places->skin.shift = skn->shift;
    places->skin.records = std::move(skn->records);
  }
  if (const size_t dot = act.geoName.rfind(".gpl"); dot != std::string::npos && dot > 0) rig.name = act.geoName.substr(0, dot);
  // Per element, the meshes are valid as built: readCorners bounds every corner's index by its array
  // (buildVertices' own indices are its vertices'), influences name the rig bones tableToRig gives
  // (indices naming none are dropped) with weights of n/256, offsets only grow. So, as the DFF
  // reader, only the structure is checked here (the per-element passes were 2 % of the Sluggers
  // benchmark's time, and export repeats them all); the fuzz target and the corpus and byte-flip
  // tests check every rig read with every check.
  return validate(rig, MeshChecks::Structure);
}

}  // namespace

Result<Rig> readModel(std::span<const uint8_t> bytes, ReadContext& ctx, ModelPlaces* places) {
  Rig rig;
  rig.provenance.format = "sluggers-model";
  ByteReader root = ctx.reader(bytes, Endian::Big);
  Sections s;
  {
    auto scope = root.scope("header");
    RP_ASSIGN(s, readHeader(root));
  }
  RP_ASSIGN(ByteReader gplReader, section(root, s, kHeaderGpl, "GPL"));
  RP_ASSIGN(GplMeshes gpl, GplMeshes::open(std::move(gplReader)));
  // The submeshes are decoded as their meshes are built, after the other sections, yet the read
  // says what it said when they were decoded first: a GPL error wins over any later one, and the
  // GPL's warnings come first. (Only the GPL warns "gx-lines-points", and it warns nothing else,
  // so adding the later warnings after its own keeps every warning's place and count.)
  Provenance gplWarnings = rig.provenance;
  if (Status read = readSections(root, s, gpl, gplWarnings, ctx, rig, places); !read) {
    RP_CHECK(gpl.decodeRest());
    return std::move(read.error());
  }
  gplWarnings.absorb(rig.provenance);
  rig.provenance = std::move(gplWarnings);
  return rig;
}

}  // namespace rigport::sluggers
