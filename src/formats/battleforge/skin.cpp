#include "formats/battleforge/skin.hpp"

#include <cstddef>
#include <cstring>

#include <fmt/format.h>

namespace rigport::battleforge {

Result<CSkSkinInfo> readSkinInfo(ByteReader& r) {
  CSkSkinInfo s;
  RP_ASSIGN(s.version, r.s32("version"));
  RP_ASSIGN(const uint32_t count, r.u32("vertex_count"));
  RP_ASSIGN(const size_t n, r.count(count, 32, "vertex_count"));
  // §5: weights first, then bone ids (the docs page has them the other way round), 8 words a row:
  // SkinInfoVertex's own layout, so the rows are copied straight into it (no array of words first).
  static_assert(sizeof(SkinInfoVertex) == 32 && offsetof(SkinInfoVertex, bones) == 16);
  RP_ASSIGN(s.vertices, (r.records<SkinInfoVertex, uint32_t>(n, "vertices")));
  return s;
}

void writeSkinInfo(ByteWriter& w, const CSkSkinInfo& s) {
  w.s32(s.version);
  w.u32(static_cast<uint32_t>(s.vertices.size()));
  for (const SkinInfoVertex& v : s.vertices) {
    for (float f : v.weights) w.f32(f);
    for (int32_t b : v.bones) w.s32(b);
  }
}

Result<CGeoMesh> readGeoMesh(ByteReader& r) {
  CGeoMesh m;
  RP_ASSIGN(const int32_t magic, r.s32("magic"));
  if (magic != kGeoMeshMagic) {
    return r.errorAt(r.position() - 4, ErrorCode::BadValue, fmt::format("CGeoMesh magic {}, expected 1", magic), "magic");
  }
  RP_ASSIGN(const uint32_t indexCount, r.u32("index_count"));
  const size_t indicesAt = r.position();
  RP_ASSIGN(m.indices, r.array<uint16_t>(indexCount, "indices"));
  RP_ASSIGN(const uint32_t vertexCount, r.u32("vertex_count"));
  RP_ASSIGN(const size_t n, r.count(vertexCount, 16, "vertex_count"));
  RP_ASSIGN(const std::vector<float> xyzw, r.array<float>(4 * n, "vertices"));
  m.positions.resize(n);
  for (size_t v = 0; v < n; ++v) m.positions[v] = {xyzw[4 * v], xyzw[4 * v + 1], xyzw[4 * v + 2]};
  for (size_t i = 0; i < m.indices.size(); ++i) {
    if (m.indices[i] >= n) {
      return r.errorAt(indicesAt + 2 * i, ErrorCode::BadValue, fmt::format("index {} past the {} vertices", m.indices[i], n),
                       Field("indices", static_cast<int64_t>(i)));
    }
  }
  return m;
}

void writeGeoMesh(ByteWriter& w, const CGeoMesh& m) {
  w.s32(kGeoMeshMagic);
  w.u32(static_cast<uint32_t>(m.indices.size()));
  for (uint16_t i : m.indices) w.u16(i);
  w.u32(static_cast<uint32_t>(m.positions.size()));
  for (const glm::vec3& p : m.positions) {
    w.f32(p.x);
    w.f32(p.y);
    w.f32(p.z);
    w.f32(1.0f);
  }
}

Result<CDspJointMap> readJointMap(ByteReader& r) {
  CDspJointMap m;
  RP_ASSIGN(const int32_t version, r.s32("version"));
  if (version != kJointMapVersion) {
    return r.errorAt(r.position() - 4, ErrorCode::Unsupported, fmt::format("CDspJointMap version {} (only 1 is known)", version), "version");
  }
  RP_ASSIGN(const uint32_t groups, r.u32("group_count"));
  RP_ASSIGN(const size_t n, r.count(groups, 4, "group_count"));
  m.groups.resize(n);
  for (size_t g = 0; g < n; ++g) {
    auto scope = r.scope(Field("groups", static_cast<int64_t>(g)));
    RP_ASSIGN(const uint32_t joints, r.u32("joint_count"));
    RP_ASSIGN(m.groups[g], r.array<int16_t>(joints, "joints"));
  }
  return m;
}

void writeJointMap(ByteWriter& w, const CDspJointMap& m) {
  w.s32(kJointMapVersion);
  w.u32(static_cast<uint32_t>(m.groups.size()));
  for (const auto& g : m.groups) {
    w.u32(static_cast<uint32_t>(g.size()));
    for (int16_t j : g) w.s16(j);
  }
}

}  // namespace rigport::battleforge
