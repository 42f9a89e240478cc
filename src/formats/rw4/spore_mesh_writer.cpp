// Mesh → Spore's VertexDescription, VertexBuffer, IndexBuffer and Mesh objects (docs/spore_meshes.md;
// the vertex layout, tangents and weight rounding as the SporeModder Blender add-on writes them,
// rw4_exporter.py).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/hash.hpp"
#include "formats/rw4/spore_mesh.hpp"
#include "formats/rw4/spore_mesh_layout.hpp"

namespace rigport::rw4 {
namespace {

using namespace spore;

constexpr uint32_t kLargestByteBone = 255 / kPaletteRowsPerBone;  // 85

struct Layout {
  struct Slot {
    uint8_t type, usage;
    uint32_t rwDecl;
    uint16_t offset;
  };
  std::vector<Slot> slots;
  uint16_t stride = 0;
  void add(uint8_t type, uint8_t usage, uint32_t rwDecl, uint16_t bytes) {
    slots.push_back(Slot{type, usage, rwDecl, stride});
    stride = static_cast<uint16_t>(stride + bytes);
  }
};

// rw4_exporter.py create_vertex_description: position, normal, tangent + texcoord0 (with UVs),
// blend indices and weights (not for a blend-shape mesh: "When there is BlendShape, Spore does not
// add the bone indices to the vertex format", the add-on's call leaving out both).
Layout layoutOf(const Mesh& mesh, bool bones = true) {
  Layout l;
  l.add(kFloat3, kUsagePosition, kPosition, 12);
  if (!mesh.normals.empty()) l.add(kUByte4, kUsageNormal, spore::kNormal, 4);
  if (!mesh.uvs.empty()) {
    l.add(kUByte4, kUsageTangent, spore::kTangent, 4);
    l.add(kFloat2, kUsageTexcoord, kTexcoord0, 8);
  }
  if (!bones) return l;
  l.add(kUByte4, kUsageBlendIndices, kBlendIndices, 4);
  l.add(kUByte4N, kUsageBlendWeight, kBlendWeights, 4);
  return l;
}

// The IndexBuffer's u16 indices (the callers check the vertex count fits).
std::vector<uint8_t> indexBytes(const Mesh& mesh) {
  ByteWriter ix(Endian::Little);
  for (uint32_t i : mesh.indices) ix.u16(static_cast<uint16_t>(i));
  return ix.take();
}

// The VertexDescription object of a layout (spore_meshes.md "VDES").
std::vector<uint8_t> descriptionBytes(const Layout& layout) {
  ByteWriter d(Endian::Little);
  uint32_t flags = 0;
  for (const Layout::Slot& s : layout.slots) flags |= 1u << s.rwDecl;
  d.zeros(12);  // field_0, field_4, the D3D declaration pointer
  d.u16(static_cast<uint16_t>(layout.slots.size()));
  d.u8(0);
  d.u8(static_cast<uint8_t>(layout.stride));
  d.u32(flags);
  d.u32(vdes::kField14);
  for (const Layout::Slot& s : layout.slots) {
    d.s16(0);  // stream
    d.u16(s.offset);
    d.u8(s.type);
    d.u8(0);  // D3DDECLMETHOD_DEFAULT
    d.u8(s.usage);
    d.u8(0);  // usage index
    d.u32(s.rwDecl);
  }
  return d.take();
}

// rw4_exporter.py signed_float_to_ubyte: b = round(x × 127.5 + 127.5), clamped here to a byte.
uint8_t packSigned(float x) {
  if (!std::isfinite(x)) x = 0.0f;
  return static_cast<uint8_t>(std::clamp(std::round(x * 127.5f + 127.5f), 0.0f, 255.0f));
}

// rw4_exporter.py calculate_tangents: per triangle from the UV gradients, summed at its corners,
// then made perpendicular to the vertex normal (the face normal's side where there is none).
std::vector<glm::vec3> tangents(const Mesh& mesh) {
  std::vector<glm::vec3> t(mesh.vertexCount(), glm::vec3(0.0f));
  for (size_t i = 0; i + 2 < mesh.indices.size(); i += 3) {
    const uint32_t a = mesh.indices[i], b = mesh.indices[i + 1], c = mesh.indices[i + 2];
    const glm::vec3 dco1 = mesh.positions[b] - mesh.positions[a], dco2 = mesh.positions[c] - mesh.positions[a];
    const glm::vec2 duv1 = mesh.uvs[b] - mesh.uvs[a], duv2 = mesh.uvs[c] - mesh.uvs[a];
    glm::vec3 tangent = dco2 * duv1.y - dco1 * duv2.y;
    const glm::vec3 bitangent = dco2 * duv1.x - dco1 * duv2.x;
    if (glm::dot(glm::cross(dco2, dco1), glm::cross(bitangent, tangent)) < 0.0f) tangent = -tangent;
    t[a] += tangent;
    t[b] += tangent;
    t[c] += tangent;
  }
  for (size_t v = 0; v < t.size(); ++v) {
    if (!mesh.normals.empty()) t[v] -= mesh.normals[v] * glm::dot(t[v], mesh.normals[v]);
    const float length = glm::length(t[v]);
    t[v] = length > 0.0f && std::isfinite(length) ? t[v] / length : glm::vec3(1, 0, 0);
  }
  return t;
}

// Vertex v's 4 largest positive influences, largest first (bone 0 fully for an unskinned mesh).
std::vector<Influence> largestInfluences(const Mesh& mesh, size_t v) {
  std::vector<Influence> inf;
  if (mesh.skinned()) inf.assign(mesh.influences.begin() + mesh.influenceOffsets[v], mesh.influences.begin() + mesh.influenceOffsets[v + 1]);
  std::erase_if(inf, [](const Influence& i) { return !(i.weight > 0.0f); });
  std::stable_sort(inf.begin(), inf.end(), [](const Influence& a, const Influence& b) { return a.weight > b.weight; });
  if (inf.size() > kMaxInfluences) inf.resize(kMaxInfluences);
  if (inf.empty()) inf.push_back(Influence{0, 1.0f});
  return inf;
}

// The 4 largest influences as 3 × bone and byte weights summing to 255 (the add-on's rule: the
// rounding error goes to one weight).
Status skinBytes(const Mesh& mesh, size_t v, size_t meshIndex, uint8_t index[4], uint8_t weight[4]) {
  const std::vector<Influence> inf = largestInfluences(mesh, v);
  float sum = 0.0f;
  for (const Influence& i : inf) sum += i.weight;
  int total = 0;
  for (size_t k = 0; k < kMaxInfluences; ++k) {
    index[k] = weight[k] = 0;
    if (k >= inf.size()) continue;
    if (inf[k].bone > kLargestByteBone) {
      return makeError(ErrorCode::Usage, fmt::format("mesh {} vertex {}: bone {}; Spore's byte blend indices (3 × the bone) reach bone {}",
                                                     meshIndex, v, inf[k].bone, kLargestByteBone));
    }
    index[k] = static_cast<uint8_t>(inf[k].bone * kPaletteRowsPerBone);
    weight[k] = static_cast<uint8_t>(std::lround(inf[k].weight / sum * 255.0f));
    total += weight[k];
  }
  weight[0] = static_cast<uint8_t>(std::clamp(weight[0] + 255 - total, 0, 255));
  return Ok{};
}

}  // namespace

Result<SporeMeshBytes> encodeSporeMesh(const Mesh& mesh, size_t meshIndex) {
  const size_t n = mesh.vertexCount();
  if (n == 0 || n > 65535) {
    return makeError(ErrorCode::Usage, fmt::format("mesh {} has {} vertices; Spore's u16 indices address 1 to 65535", meshIndex, n));
  }
  if (!mesh.skinned() && mesh.attachBone >= 0) {  // as the RenderOptiMeshData writer: fitToLimits binds a rider first
    return makeError(ErrorCode::Usage, fmt::format("mesh {} rides bone {}; Spore's meshes are skinned (bind it with fitToLimits first)",
                                                   meshIndex, mesh.attachBone));
  }
  const Layout layout = layoutOf(mesh);
  SporeMeshBytes out;
  out.stride = layout.stride;
  out.vertexCount = static_cast<uint32_t>(n);
  const std::vector<glm::vec3> tangent = mesh.uvs.empty() ? std::vector<glm::vec3>{} : tangents(mesh);
  ByteWriter v(Endian::Little);
  for (size_t i = 0; i < n; ++i) {
    uint8_t index[4], weight[4];
    RP_CHECK(skinBytes(mesh, i, meshIndex, index, weight));
    for (const Layout::Slot& s : layout.slots) {
      switch (s.rwDecl) {
        case kPosition:
          for (int k = 0; k < 3; ++k) v.f32(mesh.positions[i][k]);
          break;
        case spore::kNormal:
        case spore::kTangent: {
          const glm::vec3 x = s.rwDecl == spore::kNormal ? mesh.normals[i] : tangent[i];
          for (int k = 0; k < 3; ++k) v.u8(packSigned(x[k]));
          v.u8(0);
          break;
        }
        case kTexcoord0:
          v.f32(mesh.uvs[i].x);
          v.f32(mesh.uvs[i].y);
          break;
        case kBlendIndices: v.raw(index); break;
        default: v.raw(weight); break;
      }
    }
  }
  out.vertices = v.take();
  out.indices = indexBytes(mesh);
  out.description = descriptionBytes(layout);
  return out;
}

void writeSporeVertexBuffer(ByteWriter& w, const SporeMeshBytes& m, uint32_t descriptionRow, uint32_t vertexBytesRow) {
  for (uint32_t x : {descriptionRow, 0u, 0u, m.vertexCount, vbuf::kField10, m.stride, vertexBytesRow}) w.u32(x);
}

void writeSporeIndexBuffer(ByteWriter& w, const SporeMeshBytes& m, uint32_t indexBytesRow) {
  const auto count = static_cast<uint32_t>(m.indices.size() / 2);
  for (uint32_t x : {0u, 0u, count, ibuf::kUsageWriteOnly, ibuf::kIndex16, kTriangleList, indexBytesRow}) w.u32(x);
}

void writeSporeMeshObject(ByteWriter& w, const SporeMeshBytes& m, uint32_t indexBufferRow, uint32_t vertexBufferRow) {
  const auto count = static_cast<uint32_t>(m.indices.size() / 2);
  for (uint32_t x : {mesh::kField0, kTriangleList, indexBufferRow, count / 3, 1u, 0u, count, 0u, m.vertexCount, vertexBufferRow}) w.u32(x);
}

uint32_t sporeNameId(const std::string& name) {
  if (name.size() == 10 && name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) {
    uint32_t v = 0;
    const char* end = name.data() + name.size();
    const auto [at, ec] = std::from_chars(name.data() + 2, end, v, 16);
    if (ec == std::errc{} && at == end) return v;
  }
  return fnv1_32Lower(name);
}

Result<SporeBlendShapeBytes> encodeSporeBlendShapeMesh(const Mesh& mesh, size_t meshIndex) {
  using namespace blendshapebuffer;
  const size_t n = mesh.vertexCount();
  if (n == 0 || n > 65535) {
    return makeError(ErrorCode::Usage, fmt::format("mesh {} has {} vertices; Spore's u16 indices address 1 to 65535", meshIndex, n));
  }
  if (!mesh.skinned() && mesh.attachBone >= 0) {
    return makeError(ErrorCode::Usage, fmt::format("mesh {} rides bone {}; Spore's meshes are skinned (bind it with fitToLimits first)",
                                                   meshIndex, mesh.attachBone));
  }
  const size_t shapes = mesh.morphTargets.size();
  for (size_t t = 0; t < shapes; ++t) {
    const MorphTarget& target = mesh.morphTargets[t];
    if (target.positionDeltas.size() != n || (!target.normalDeltas.empty() && target.normalDeltas.size() != n)) {
      return makeError(ErrorCode::Usage, fmt::format("mesh {} morph target {}: {} position and {} normal deltas for {} vertices", meshIndex, t,
                                                     target.positionDeltas.size(), target.normalDeltas.size(), n));
    }
  }
  SporeBlendShapeBytes out;
  out.mesh.vertexCount = static_cast<uint32_t>(n);
  out.mesh.description = descriptionBytes(layoutOf(mesh, false));
  out.mesh.indices = indexBytes(mesh);
  out.blendShapeId = sporeNameId(mesh.name);
  for (size_t t = 0; t < shapes; ++t) {
    const std::string& name = mesh.morphTargets[t].name;
    out.shapeIds.push_back(sporeNameId(name.empty() ? fmt::format("shape_{}", t) : name));
  }

  // The streams after the 64-byte header, in the add-on's order: position, normal, tangent, texcoord,
  // blend indices, blend weights.
  ByteWriter d(Endian::Little);
  std::array<uint32_t, kStreams> offsets{};
  auto vector = [&](const glm::vec3& x) {
    for (int k = 0; k < 3; ++k) d.f32(x[k]);
    d.u32(0);
  };
  offsets[kPositionStream] = static_cast<uint32_t>(kHeaderSize + d.size());
  for (const glm::vec3& p : mesh.positions) vector(p);
  for (const MorphTarget& t : mesh.morphTargets)
    for (const glm::vec3& delta : t.positionDeltas) vector(delta);
  if (!mesh.normals.empty()) {  // each shape's own normals at weight 1: base + delta
    offsets[kNormalStream] = static_cast<uint32_t>(kHeaderSize + d.size());
    for (const glm::vec3& nrm : mesh.normals) vector(nrm);
    for (const MorphTarget& t : mesh.morphTargets)
      for (size_t v = 0; v < n; ++v) vector(t.normalDeltas.empty() ? mesh.normals[v] : mesh.normals[v] + t.normalDeltas[v]);
  }
  if (!mesh.uvs.empty()) {  // tangents of the base and of each shape (its positions and normals), then UVs
    offsets[kTangentStream] = static_cast<uint32_t>(kHeaderSize + d.size());
    for (const glm::vec3& t : tangents(mesh)) vector(t);
    Mesh shape = mesh;
    for (const MorphTarget& t : mesh.morphTargets) {
      for (size_t v = 0; v < n; ++v) {
        shape.positions[v] = mesh.positions[v] + t.positionDeltas[v];
        if (!mesh.normals.empty() && !t.normalDeltas.empty()) shape.normals[v] = mesh.normals[v] + t.normalDeltas[v];
      }
      for (const glm::vec3& x : tangents(shape)) vector(x);
    }
    offsets[kTexcoordStream] = static_cast<uint32_t>(kHeaderSize + d.size());
    for (const glm::vec2& uv : mesh.uvs) {
      d.f32(uv.x);
      d.f32(uv.y);
      d.u32(0);
      d.u32(1);
    }
  }
  // Blend indices u16 × 4 (3 × bone) and f32 weights × 4, normalised to sum 1.
  std::vector<std::vector<Influence>> skin(n);
  for (size_t v = 0; v < n; ++v) skin[v] = largestInfluences(mesh, v);
  offsets[kBlendIndicesStream] = static_cast<uint32_t>(kHeaderSize + d.size());
  for (size_t v = 0; v < n; ++v) {
    for (size_t k = 0; k < kMaxInfluences; ++k) {
      const uint32_t index = k < skin[v].size() ? skin[v][k].bone * kPaletteRowsPerBone : 0;
      if (index > 0xFFFF) {
        return makeError(ErrorCode::Usage, fmt::format("mesh {} vertex {}: bone {}; u16 blend indices (3 × the bone) reach bone {}", meshIndex,
                                                       v, skin[v][k].bone, 0xFFFF / kPaletteRowsPerBone));
      }
      d.u16(static_cast<uint16_t>(index));
    }
  }
  offsets[kBlendWeightsStream] = static_cast<uint32_t>(kHeaderSize + d.size());
  for (size_t v = 0; v < n; ++v) {
    float sum = 0.0f;
    for (const Influence& i : skin[v]) sum += i.weight;
    for (size_t k = 0; k < kMaxInfluences; ++k) d.f32(k < skin[v].size() ? skin[v][k].weight / sum : 0.0f);
  }
  ByteWriter b(Endian::Little);
  b.u32(kType);
  for (uint32_t o : offsets) b.u32(o);
  b.u32(static_cast<uint32_t>(shapes));
  b.u32(static_cast<uint32_t>(n));
  b.u32(0);  // unknown; the add-on writes 0
  b.u32(static_cast<uint32_t>(kMaxInfluences));
  b.raw(d.take());
  out.buffer = b.take();
  return out;
}

void writeSporeBlendShape(ByteWriter& w, const SporeBlendShapeBytes& b, uint32_t timesSubreference, uint32_t idsSubreference) {
  const auto count = static_cast<uint32_t>(b.shapeIds.size());
  for (uint32_t x : {0u, 0u, timesSubreference, count, idsSubreference, count, b.blendShapeId}) w.u32(x);
  w.zeros(4 * size_t{count});  // the shape times, filled in by the game
  for (uint32_t id : b.shapeIds) w.u32(id);
}

}  // namespace rigport::rw4
