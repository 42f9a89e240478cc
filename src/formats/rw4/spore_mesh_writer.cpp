// Mesh → Spore's VertexDescription, VertexBuffer, IndexBuffer and Mesh objects (docs/spore_meshes.md;
// the vertex layout, tangents and weight rounding as the SporeModder Blender add-on writes them,
// rw4_exporter.py).
#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "formats/rw4/spore_mesh.hpp"
#include "formats/rw4/spore_mesh_layout.hpp"

namespace rigport::rw4 {
namespace {

using namespace spore;

constexpr size_t kMaxInfluences = 4;
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
// blend indices and weights.
Layout layoutOf(const Mesh& mesh) {
  Layout l;
  l.add(kFloat3, kUsagePosition, kPosition, 12);
  if (!mesh.normals.empty()) l.add(kUByte4, kUsageNormal, spore::kNormal, 4);
  if (!mesh.uvs.empty()) {
    l.add(kUByte4, kUsageTangent, spore::kTangent, 4);
    l.add(kFloat2, kUsageTexcoord, kTexcoord0, 8);
  }
  l.add(kUByte4, kUsageBlendIndices, kBlendIndices, 4);
  l.add(kUByte4N, kUsageBlendWeight, kBlendWeights, 4);
  return l;
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

// The 4 largest influences as 3 × bone and byte weights summing to 255 (the add-on's rule: the
// rounding error goes to one weight).
Status skinBytes(const Mesh& mesh, size_t v, size_t meshIndex, uint8_t index[4], uint8_t weight[4]) {
  std::vector<Influence> inf;
  if (mesh.skinned()) inf.assign(mesh.influences.begin() + mesh.influenceOffsets[v], mesh.influences.begin() + mesh.influenceOffsets[v + 1]);
  std::erase_if(inf, [](const Influence& i) { return !(i.weight > 0.0f); });
  std::stable_sort(inf.begin(), inf.end(), [](const Influence& a, const Influence& b) { return a.weight > b.weight; });
  if (inf.size() > kMaxInfluences) inf.resize(kMaxInfluences);
  if (inf.empty()) inf.push_back(Influence{0, 1.0f});
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
  ByteWriter ix(Endian::Little);
  for (uint32_t i : mesh.indices) ix.u16(static_cast<uint16_t>(i));
  out.indices = ix.take();
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
  out.description = d.take();
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

}  // namespace rigport::rw4
