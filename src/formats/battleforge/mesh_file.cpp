#include "formats/battleforge/mesh_file.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace rigport::battleforge {
namespace {

// vertex_count, face_count, stream_count, bbox, material_id, material_parameters.
constexpr size_t kMinMeshBytes = 4 + 4 + 1 + 24 + 2 + 4;

float readF32(const uint8_t* p) {
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

Status readStream(ByteReader& r, BattleforgeMesh& mesh, size_t vertexCount, Provenance* provenance) {
  RP_ASSIGN(const int32_t revision, r.s32("revision"));
  RP_ASSIGN(const uint32_t vertexSize, r.u32("vertex_size"));
  RP_CHECK(r.count(vertexCount, vertexSize, "vertex_size"));
  const size_t dataAt = r.position();
  RP_ASSIGN(const auto data, r.bytes(vertexCount * vertexSize, "vertices"));
  auto needs = [&](size_t minSize) -> Status {
    if (vertexSize >= minSize) return Ok{};
    return r.errorAt(dataAt - 4, ErrorCode::BadValue, fmt::format("revision {} vertices need {} bytes, vertex_size is {}", revision, minSize, vertexSize),
                     "vertex_size");
  };
  const bool havePositions = !mesh.positions.empty() || vertexCount == 0;
  switch (revision) {
    case kStreamPosNormalUv:
    case kStreamPosUvPacked: {
      if (havePositions) break;  // a second position stream adds nothing rigport uses
      const bool packed = revision == kStreamPosUvPacked;
      RP_CHECK(needs(packed ? 24 : 32));
      mesh.positions.resize(vertexCount);
      mesh.uvs.resize(vertexCount);
      if (!packed) mesh.normals.resize(vertexCount);
      for (size_t v = 0; v < vertexCount; ++v) {
        const uint8_t* p = data.data() + v * vertexSize;
        mesh.positions[v] = {readF32(p), readF32(p + 4), readF32(p + 8)};
        if (packed) {
          mesh.uvs[v] = {readF32(p + 12), readF32(p + 16)};  // the 4 bytes after it: the add-on sets the normal to zero
        } else {
          mesh.normals[v] = {readF32(p + 12), readF32(p + 16), readF32(p + 20)};
          mesh.uvs[v] = {readF32(p + 24), readF32(p + 28)};
        }
      }
      break;
    }
    case kStreamWeights: {
      RP_CHECK(needs(8));
      mesh.weights.resize(vertexCount);
      for (size_t v = 0; v < vertexCount; ++v) std::memcpy(mesh.weights[v].data(), data.data() + v * vertexSize, 8);
      break;
    }
    case kStreamTangents:
    case kStreamTangentsOld:
      break;  // tangents: glTF viewers derive their own
    default:
      if (provenance != nullptr) {
        provenance->warn("unknown-stream", fmt::format("vertex stream revision {} ({}-byte vertices) at 0x{:X} skipped", revision, vertexSize,
                                                       r.fileOffsetOfStart() + dataAt - 8));
      }
  }
  return Ok{};
}

Status readTextures(ByteReader& r, BattleforgeMesh& mesh) {
  auto scope = r.scope("Textures");
  RP_ASSIGN(const uint32_t count, r.u32("count"));
  RP_ASSIGN(const size_t n, r.count(count, 12, "count"));
  for (size_t i = 0; i < n; ++i) {
    auto item = r.scope(Field("texture", static_cast<int64_t>(i)));
    RP_ASSIGN(const int32_t id, r.s32("id"));
    RP_ASSIGN(const uint32_t len, r.u32("len"));
    RP_ASSIGN(const auto name, r.bytes(len, "name"));
    RP_CHECK(r.s32("spacer"));
    mesh.textures.emplace_back(id, std::string(reinterpret_cast<const char*>(name.data()), name.size()));
  }
  return Ok{};
}

// A counted list of fixed-size records the rig does not use (Refraction, Materials).
Status skipList(ByteReader& r, size_t recordSize, const char* name) {
  auto scope = r.scope(name);
  RP_ASSIGN(const uint32_t count, r.u32("count"));
  RP_CHECK(r.count(count, recordSize, "count"));
  return r.skip(size_t{count} * recordSize, "records");
}

Status skipLevelOfDetail(ByteReader& r) {
  RP_ASSIGN(const uint32_t n, r.u32("LevelOfDetail/count"));
  if (n == 1) RP_CHECK(r.s32("LevelOfDetail/lod"));
  return Ok{};
}

Status skipEmptyString(ByteReader& r) {
  RP_ASSIGN(const uint32_t n, r.u32("EmptyString/count"));
  RP_CHECK(r.count(n, 2, "EmptyString/count"));
  return r.skip(2 * size_t{n}, "EmptyString/bytes");
}

Status skipFlow(ByteReader& r) {
  RP_ASSIGN(const uint32_t n, r.u32("Flow/count"));
  if (n == 4) RP_CHECK(r.skip(4 * 20, "Flow/entries"));
  return Ok{};
}

// §7 material trailer, selected by material_parameters (0xFADED00N).
Status readMaterialBlocks(ByteReader& r, BattleforgeMesh& mesh) {
  const int32_t p = mesh.materialParameters;
  if (p < kMaterialBasic || p > kMaterialFlow) {
    return r.errorAt(r.position() - 4, ErrorCode::Unsupported,
                     fmt::format("material_parameters 0x{:08X} is none of 0xFADED001..0xFADED006; the blocks after it are unknown",
                                 static_cast<uint32_t>(p)),
                     "material_parameters");
  }
  if (p == kMaterialFlow || p == kMaterialNoFlowA || p == kMaterialNoFlowB) RP_CHECK(r.s32("material_stuff"));
  RP_CHECK(r.s32("bool_parameter"));
  RP_CHECK(readTextures(r, mesh));
  RP_CHECK(skipList(r, 16, "Refraction"));
  RP_CHECK(skipList(r, 8, "Materials"));
  if (p == kMaterialBasic) return Ok{};
  RP_CHECK(skipLevelOfDetail(r));
  if (p == kMaterialLod) return Ok{};
  RP_CHECK(skipEmptyString(r));
  if (p == kMaterialFlow) RP_CHECK(skipFlow(r));
  return Ok{};
}

Result<BattleforgeMesh> readMesh(ByteReader& r, Provenance* provenance) {
  BattleforgeMesh mesh;
  RP_ASSIGN(const uint32_t vertexCount, r.u32("vertex_count"));
  RP_ASSIGN(const uint32_t faceCount, r.u32("face_count"));
  RP_ASSIGN(const size_t nf, r.count(faceCount, 6, "face_count"));
  const size_t facesAt = r.position();
  RP_ASSIGN(const std::vector<uint16_t> faces, r.array<uint16_t>(3 * nf, "faces"));
  mesh.faces.resize(nf);
  if (nf > 0) std::memcpy(mesh.faces.data(), faces.data(), faces.size() * sizeof(uint16_t));
  RP_ASSIGN(const uint8_t streams, r.u8("stream_count"));
  for (uint8_t s = 0; s < streams; ++s) {
    auto scope = r.scope(Field("streams", s));
    RP_CHECK(readStream(r, mesh, vertexCount, provenance));
  }
  if (mesh.positions.empty() && vertexCount > 0) {
    return r.error(ErrorCode::BadValue, fmt::format("no position stream (revision 133121 or 163841) among its {} streams", streams), "streams");
  }
  for (size_t f = 0; f < nf; ++f) {
    for (int k = 0; k < 3; ++k) {
      if (mesh.faces[f][k] >= vertexCount) {
        return r.errorAt(facesAt + 6 * f + 2 * k, ErrorCode::BadValue, fmt::format("index {} past the {} vertices", mesh.faces[f][k], vertexCount),
                         Field("faces", static_cast<int64_t>(3 * f + k)));
      }
    }
  }
  RP_CHECK(r.skip(24, "bbox"));
  RP_ASSIGN(mesh.materialId, r.s16("material_id"));
  RP_ASSIGN(mesh.materialParameters, r.s32("material_parameters"));
  RP_CHECK(readMaterialBlocks(r, mesh));
  return mesh;
}

}  // namespace

Result<CDspMeshFile> readMeshFile(ByteReader& r, Provenance* provenance) {
  CDspMeshFile file;
  RP_ASSIGN(const int32_t first, r.s32("magic"));
  // §7: drs.bt also accepts an old form whose first int32 is the mesh count (no magic, zero or points).
  const bool current = first == kMeshFileMagic;
  uint32_t meshCount = static_cast<uint32_t>(first);
  if (current) {
    RP_CHECK(r.s32("zero"));
    RP_ASSIGN(meshCount, r.u32("mesh_count"));
  }
  RP_CHECK(r.skip(24, "bbox"));
  RP_ASSIGN(const size_t n, r.count(meshCount, kMinMeshBytes, current ? "mesh_count" : "magic (old form: mesh_count)"));
  file.meshes.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    auto scope = r.scope(Field("BattleforgeMesh", static_cast<int64_t>(i)));
    RP_ASSIGN(file.meshes.emplace_back(), readMesh(r, provenance));
  }
  if (current) RP_CHECK(r.skip(48, "points"));
  return file;
}

void writeMeshFile(ByteWriter& w, const CDspMeshFile& file) {
  glm::vec3 lo(std::numeric_limits<float>::max()), hi(std::numeric_limits<float>::lowest());
  auto box = [](const std::vector<glm::vec3>& ps, glm::vec3& a, glm::vec3& b) {
    for (const glm::vec3& p : ps) {
      a = glm::min(a, p);
      b = glm::max(b, p);
    }
  };
  for (const BattleforgeMesh& m : file.meshes) box(m.positions, lo, hi);
  if (lo.x > hi.x) lo = hi = glm::vec3(0.0f);
  auto vec = [&](const glm::vec3& v) {
    w.f32(v.x);
    w.f32(v.y);
    w.f32(v.z);
  };
  w.s32(kMeshFileMagic);
  w.s32(0);
  w.u32(static_cast<uint32_t>(file.meshes.size()));
  vec(lo);
  vec(hi);
  for (const BattleforgeMesh& m : file.meshes) {
    const size_t n = m.positions.size();
    w.u32(static_cast<uint32_t>(n));
    w.u32(static_cast<uint32_t>(m.faces.size()));
    for (const auto& f : m.faces)
      for (uint16_t i : f) w.u16(i);
    w.u8(m.weights.empty() ? 2 : 3);
    w.s32(kStreamPosNormalUv);
    w.u32(32);
    for (size_t v = 0; v < n; ++v) {
      vec(m.positions[v]);
      vec(v < m.normals.size() ? m.normals[v] : glm::vec3(0.0f));
      const glm::vec2 uv = v < m.uvs.size() ? m.uvs[v] : glm::vec2(0.0f);
      w.f32(uv.x);
      w.f32(uv.y);
    }
    w.s32(kStreamTangents);
    w.u32(24);
    w.zeros(24 * n);
    if (!m.weights.empty()) {
      w.s32(kStreamWeights);
      w.u32(8);
      for (const auto& wt : m.weights) w.raw(wt);
    }
    glm::vec3 a(std::numeric_limits<float>::max()), b(std::numeric_limits<float>::lowest());
    box(m.positions, a, b);
    if (a.x > b.x) a = b = glm::vec3(0.0f);
    vec(a);
    vec(b);
    w.s16(m.materialId);
    w.s32(kMaterialBasic);
    w.s32(0);  // bool_parameter
    w.u32(static_cast<uint32_t>(m.textures.size()));
    for (const auto& [id, name] : m.textures) {
      w.s32(id);
      w.u32(static_cast<uint32_t>(name.size()));
      w.raw({reinterpret_cast<const uint8_t*>(name.data()), name.size()});
      w.s32(0);
    }
    w.u32(0);  // Refraction
    w.u32(0);  // Materials
  }
  // §7: the three points the add-on always writes.
  for (float f : {0.f, 0.f, 0.f, 1.f, 1.f, 1.f, 0.f, 1.f, 0.f, 0.f, 1.f, 1.f}) w.f32(f);
}

}  // namespace rigport::battleforge
