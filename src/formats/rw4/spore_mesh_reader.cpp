// Spore Mesh objects → Mesh (docs/spore_meshes.md; spore_mesh_layout.hpp).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "formats/rw4/spore_mesh.hpp"
#include "formats/rw4/spore_mesh_layout.hpp"

namespace rigport::rw4 {
namespace {

using namespace spore;

struct Element {
  int16_t stream = 0;
  uint16_t offset = 0;
  uint8_t type = 0;
  uint32_t rwDecl = 0;
};

struct MeshObject {
  uint32_t row = 0;
  uint32_t indexBuffer = 0;
  uint32_t firstIndex = 0, triangleCount = 0;
  uint32_t vertexBuffer = 0;
};

// Bytes of one element of the type; 0 for D3DDECLTYPEs the add-ons do not read (UDEC3, DEC3N).
size_t declBytes(uint8_t type) {
  switch (type) {
    case kFloat1: return 4;
    case kFloat2: return 8;
    case kFloat3: return 12;
    case kFloat4: return 16;
    case kD3DColor:
    case kUByte4:
    case kUByte4N:
    case kShort2:
    case kShort2N:
    case kUShort2N:
    case kFloat16x2: return 4;
    case kShort4:
    case kShort4N:
    case kUShort4N:
    case kFloat16x4: return 8;
    default: return 0;
  }
}

size_t declComponents(uint8_t type) {
  switch (type) {
    case kFloat1: return 1;
    case kFloat2:
    case kShort2:
    case kShort2N:
    case kUShort2N:
    case kFloat16x2: return 2;
    case kFloat3: return 3;
    default: return declBytes(type) == 0 ? 0 : 4;
  }
}

// Little-endian whatever the machine (PC arenas only).
uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// An element as Direct3D 9 gives it to a shader (normalised types scaled to [0, 1] or [-1, 1]);
// returns how many components.
size_t decodeDecl(uint8_t type, const uint8_t* p, float out[4]) {
  switch (type) {
    case kFloat1:
    case kFloat2:
    case kFloat3:
    case kFloat4: {
      const size_t n = size_t{type} + 1;
      for (size_t c = 0; c < n; ++c) out[c] = std::bit_cast<float>(le32(p + 4 * c));
      return n;
    }
    case kD3DColor:  // an ARGB u32: the bytes are B, G, R, A
      for (size_t c = 0; c < 4; ++c) out[c] = static_cast<float>(p[c == 3 ? 3 : 2 - c]) / 255.0f;
      return 4;
    case kUByte4:
    case kUByte4N:
      for (size_t c = 0; c < 4; ++c) out[c] = type == kUByte4 ? static_cast<float>(p[c]) : static_cast<float>(p[c]) / 255.0f;
      return 4;
    case kShort2:
    case kShort4:
    case kShort2N:
    case kShort4N: {
      const size_t n = type == kShort2 || type == kShort2N ? 2 : 4;
      const bool normalised = type == kShort2N || type == kShort4N;
      for (size_t c = 0; c < n; ++c) {
        const float v = static_cast<float>(static_cast<int16_t>(le16(p + 2 * c)));
        out[c] = normalised ? std::max(v / 32767.0f, -1.0f) : v;
      }
      return n;
    }
    case kUShort2N:
    case kUShort4N: {
      const size_t n = type == kUShort2N ? 2 : 4;
      for (size_t c = 0; c < n; ++c) out[c] = static_cast<float>(le16(p + 2 * c)) / 65535.0f;
      return n;
    }
    case kFloat16x2:
    case kFloat16x4: {
      const size_t n = type == kFloat16x2 ? 2 : 4;
      for (size_t c = 0; c < n; ++c) out[c] = halfToFloat(le16(p + 2 * c));
      return n;
    }
    default: return 0;
  }
}

// A reference field that must name an object of `type` (§2.6, table 0).
Result<uint32_t> objectRef(const Arena& arena, ByteReader& obj, uint32_t type, const char* field) {
  const size_t at = obj.position();
  RP_ASSIGN(const uint32_t value, obj.u32(field));
  RP_CHECK(expectType(arena, obj, at, value, type, field));
  return value;
}

// A buffer's bytes: a BaseResource row.
Result<ByteReader> baseResource(const Arena& arena, const ByteReader& root, ByteReader& obj, const char* field) {
  const size_t at = obj.position();
  RP_ASSIGN(const uint32_t row, obj.u32(field));
  if (row >= arena.dictionary.size() || !isBaseResource(arena.dictionary[row].typeId)) {
    return obj.errorAt(at, ErrorCode::BadValue, fmt::format("object {} is not a BaseResource", row), field);
  }
  return objectReader(arena, root, row, field);
}

Result<std::vector<Element>> readDescription(ByteReader vd) {
  RP_CHECK(vd.seek(vdes::kElementCount, "elementCount"));
  RP_ASSIGN(const uint16_t count, vd.u16("elementCount"));
  if (count > vdes::kMaxElements) {
    return vd.errorAt(vdes::kElementCount, ErrorCode::BadValue, fmt::format("{} elements, at most {}", count, vdes::kMaxElements),
                      "elementCount");
  }
  RP_CHECK(vd.seek(vdes::kHeaderSize, "elements"));
  RP_ASSIGN(const size_t n, vd.count(count, vdes::kElementSize, "elementCount"));
  std::vector<Element> elements(n);
  for (size_t i = 0; i < n; ++i) {
    auto scope = vd.scope(Field("element", static_cast<int64_t>(i)));
    Element& e = elements[i];
    RP_ASSIGN(e.stream, vd.s16("stream"));
    RP_ASSIGN(e.offset, vd.u16("offset"));
    RP_ASSIGN(e.type, vd.u8("type"));
    RP_CHECK(vd.skip(3, "method"));  // method, D3D usage, usage index: the RW usage code says the same
    RP_ASSIGN(e.rwDecl, vd.u32("typeCode"));
  }
  return elements;
}

const Element* findDecl(const std::vector<Element>& elements, uint32_t rwDecl) {
  for (const Element& e : elements)
    if (e.stream == 0 && e.rwDecl == rwDecl) return &e;
  return nullptr;
}

// Blend index → rig bone, counting what cannot be used (spore_meshes.md: index = 3 × bone).
struct SkinCounts {
  size_t notMultiple = 0, pastSkeleton = 0, unweighted = 0;
};

void addInfluences(const float index[4], const float weight[4], size_t components, const std::vector<uint32_t>& fileToRig,
                   Mesh& mesh, SkinCounts& counts) {
  std::array<Influence, kMaxInfluences> pairs;
  size_t n = 0;
  float sum = 0.0f;
  for (size_t c = 0; c < components; ++c) {
    if (!(weight[c] > 0.0f)) continue;  // the add-on skips a zero weight
    if (!(index[c] < 16777216.0f)) {  // a float index past any bone (or NaN): no conversion to an integer
      ++counts.pastSkeleton;
      continue;
    }
    const auto stored = static_cast<uint32_t>(index[c] < 0.0f ? 0.0f : index[c] + 0.5f);
    if (stored % kPaletteRowsPerBone != 0) {
      ++counts.notMultiple;
      continue;
    }
    const uint32_t fileBone = stored / kPaletteRowsPerBone;
    if (fileBone >= fileToRig.size()) {
      ++counts.pastSkeleton;
      continue;
    }
    const uint32_t bone = fileToRig[fileBone];
    size_t k = 0;
    while (k < n && pairs[k].bone != bone) ++k;
    if (k == n) pairs[n++] = Influence{bone, 0.0f};
    pairs[k].weight += weight[c];
    sum += weight[c];
  }
  if (n == 0) {
    ++counts.unweighted;
    pairs[n++] = Influence{fileToRig.empty() ? 0 : fileToRig[0], 1.0f};
    sum = 1.0f;
  }
  for (size_t k = 0; k < n; ++k) mesh.influences.push_back(Influence{pairs[k].bone, pairs[k].weight / sum});
  mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
}

void warnSkin(const SkinCounts& c, const char* object, uint32_t row, size_t bones, Provenance& prov) {
  if (c.notMultiple > 0) {
    prov.warn("rw4-spore-blend-index", fmt::format("{} (row {}) blendIndices: {} influence(s) whose index is no multiple "
                                                   "of 3 (3 palette rows a bone); dropped",
                                                   object, row, c.notMultiple));
  }
  if (c.pastSkeleton > 0) {
    prov.warn("rw4-spore-blend-index", fmt::format("{} (row {}) blendIndices: {} influence(s) name a bone past the "
                                                   "skeleton's {}; dropped",
                                                   object, row, c.pastSkeleton, bones));
  }
  if (c.unweighted > 0) {
    prov.warn("rw4-unweighted", fmt::format("{} (row {}) blendWeights: {} vertex(es) have no usable weight; bound fully "
                                            "to the skeleton's first bone",
                                            object, row, c.unweighted));
  }
}

// One vertex buffer's vertices (no triangles yet).
Result<Mesh> readVertexBuffer(const Arena& arena, const ByteReader& root, uint32_t row, const std::vector<uint32_t>& fileToRig,
                              Provenance& prov, SporeMeshPlace& place) {
  RP_ASSIGN(ByteReader vb, objectReader(arena, root, row, "VertexBuffer"));
  RP_ASSIGN(const uint32_t vdRow, objectRef(arena, vb, spore::kVertexDescription, "vertexDescription"));
  RP_CHECK(vb.skip(4, "field_4"));
  RP_ASSIGN(const uint32_t baseVertex, vb.u32("baseVertexIndex"));
  RP_ASSIGN(const uint32_t storedCount, vb.u32("vertexCount"));
  RP_CHECK(vb.skip(4, "field_10"));
  RP_ASSIGN(const uint32_t stride, vb.u32("vertexSize"));
  RP_ASSIGN(ByteReader data, baseResource(arena, root, vb, "vertexData"));
  RP_ASSIGN(ByteReader vd, objectReader(arena, root, vdRow, "VertexDescription"));
  RP_ASSIGN(const std::vector<Element> elements, readDescription(vd));
  if (stride == 0) return vb.errorAt(0x14, ErrorCode::BadValue, "a vertex size of 0", "vertexSize");
  for (size_t i = 0; i < elements.size(); ++i) {
    const Element& e = elements[i];
    if (e.stream != 0) continue;
    if (declBytes(e.type) == 0 && (e.rwDecl == kPosition || e.rwDecl == spore::kNormal || e.rwDecl == kTexcoord0 ||
                                   e.rwDecl == kBlendIndices || e.rwDecl == kBlendWeights)) {
      return vd.errorAt(vdes::kHeaderSize + i * vdes::kElementSize + 4, ErrorCode::Unsupported,
                        fmt::format("D3DDECLTYPE {} is not read", e.type), Field("element", static_cast<int64_t>(i)));
    }
    if (e.offset + declBytes(e.type) > stride) {
      return vd.errorAt(vdes::kHeaderSize + i * vdes::kElementSize + 2, ErrorCode::BadValue,
                        fmt::format("a {}-byte element at offset {} overruns the {}-byte vertex", declBytes(e.type), e.offset, stride),
                        Field("element", static_cast<int64_t>(i)));
    }
  }
  const Element* position = findDecl(elements, kPosition);
  if (position == nullptr || declComponents(position->type) < 3) {
    return vd.errorAt(vdes::kHeaderSize, ErrorCode::BadValue, "no three-component position element", "elements");
  }
  if (baseVertex != 0) {
    prov.warn("rw4-spore-base-vertex", fmt::format("VertexBuffer (row {}) baseVertexIndex {} is not applied", row, baseVertex));
  }
  const size_t held = data.size() / stride;
  size_t n = storedCount;
  if (n == 0 || n > held) {
    prov.warn("rw4-vertex-count", fmt::format("VertexBuffer (row {}) vertexCount {}: its vertex data holds {} of {} bytes; {} are read",
                                              row, storedCount, held, stride, held));
    n = held;
  }
  if (n == 0) return vb.errorAt(0x0C, ErrorCode::BadValue, "no whole vertex in the vertex data", "vertexCount");
  // Decoded attributes and influences: charged before allocating.
  RP_CHECK(data.charge(uint64_t{n} * 96, "vertexCount"));

  Mesh mesh;
  const uint8_t* bytes = data.data().data();
  const Element* normal = findDecl(elements, spore::kNormal);
  const Element* uv = findDecl(elements, kTexcoord0);
  // A skeleton of no bones skins nothing: the mesh is read unskinned, on the model's root.
  const Element* indices = fileToRig.empty() ? nullptr : findDecl(elements, kBlendIndices);
  const Element* weights = fileToRig.empty() ? nullptr : findDecl(elements, kBlendWeights);
  if (fileToRig.empty() && findDecl(elements, kBlendIndices) != nullptr) {
    prov.warn("rw4-spore-mesh", fmt::format("VertexBuffer (row {}): the skeleton has no bones; its blend indices are not read and the "
                                            "mesh is unskinned",
                                            row));
  }
  mesh.positions.resize(n);
  if (normal != nullptr) mesh.normals.resize(n);
  if (uv != nullptr) mesh.uvs.resize(n);
  if (indices != nullptr) {
    mesh.influenceOffsets.reserve(n + 1);
    mesh.influenceOffsets.push_back(0);
    mesh.influences.reserve(n * kMaxInfluences);
  }
  SkinCounts counts;
  for (size_t v = 0; v < n; ++v) {
    const uint8_t* vertex = bytes + v * stride;
    float f[4] = {0, 0, 0, 0};
    decodeDecl(position->type, vertex + position->offset, f);
    mesh.positions[v] = glm::vec3(f[0], f[1], f[2]);
    if (normal != nullptr) {
      const uint8_t* p = vertex + normal->offset;
      if (normal->type == kUByte4) {  // packed as b = n × 127.5 + 127.5 (rw4_enums.py unpack_normal)
        mesh.normals[v] = (glm::vec3(p[0], p[1], p[2]) - 127.5f) / 127.5f;
      } else {
        float g[4] = {0, 0, 0, 0};
        decodeDecl(normal->type, p, g);
        mesh.normals[v] = glm::vec3(g[0], g[1], g[2]);
      }
    }
    if (uv != nullptr) {
      float g[4] = {0, 0, 0, 0};
      decodeDecl(uv->type, vertex + uv->offset, g);
      mesh.uvs[v] = glm::vec2(g[0], g[1]);  // D3D's v, which is glTF's (spore_meshes.md)
    }
    if (indices != nullptr) {
      float index[4] = {0, 0, 0, 0}, weight[4] = {1, 0, 0, 0};
      size_t components = std::min<size_t>(decodeDecl(indices->type, vertex + indices->offset, index), kMaxInfluences);
      if (weights != nullptr) components = std::min(components, decodeDecl(weights->type, vertex + weights->offset, weight));
      addInfluences(index, weight, components, fileToRig, mesh, counts);
    }
  }
  warnSkin(counts, "VertexBuffer", row, fileToRig.size(), prov);
  auto placed = [](const Element* e) {
    return e != nullptr ? std::optional<SporeMeshPlace::Element>(SporeMeshPlace::Element{e->offset, e->type}) : std::nullopt;
  };
  place = SporeMeshPlace{row, static_cast<size_t>(bytes - root.data().data()), stride, n, placed(position), placed(normal), placed(uv),
                         placed(indices), placed(weights)};
  if (indices != nullptr && weights == nullptr) {
    prov.warn("rw4-no-weights", fmt::format("VertexBuffer (row {}): blend indices without weights; each vertex follows its first "
                                            "index fully",
                                            row));
  }
  return mesh;
}

Result<MeshObject> readMeshObject(const Arena& arena, const ByteReader& root, uint32_t row) {
  MeshObject m;
  m.row = row;
  RP_ASSIGN(ByteReader obj, objectReader(arena, root, row, "Mesh"));
  RP_CHECK(obj.skip(4, "field_0"));
  RP_ASSIGN(const uint32_t primitiveType, obj.u32("primitiveType"));
  if (primitiveType != kTriangleList) {
    return obj.errorAt(4, ErrorCode::Unsupported, fmt::format("primitive type {} (triangle lists, 4, are read)", primitiveType),
                       "primitiveType");
  }
  RP_ASSIGN(m.indexBuffer, objectRef(arena, obj, spore::kIndexBuffer, "indexBuffer"));
  RP_ASSIGN(m.triangleCount, obj.u32("triangleCount"));
  RP_ASSIGN(const uint32_t buffers, obj.u32("vertexBufferCount"));
  RP_ASSIGN(m.firstIndex, obj.u32("firstIndex"));
  RP_CHECK(obj.seek(mesh::kHeaderSize, "vertexBuffers"));
  if (buffers == 0) return obj.errorAt(0x10, ErrorCode::BadValue, "no vertex buffer", "vertexBufferCount");
  const size_t at = obj.position();
  RP_ASSIGN(m.vertexBuffer, obj.u32(Field("vertexBuffers", 0)));
  if (m.vertexBuffer >= arena.dictionary.size()) {
    return obj.errorAt(at, ErrorCode::BadValue, fmt::format("object {} of {}", m.vertexBuffer, arena.dictionary.size()),
                       Field("vertexBuffers", 0));
  }
  return m;
}

// The IndexBuffer's indices (u16 or u32, plus its start index).
Result<std::vector<uint32_t>> readIndexBuffer(const Arena& arena, const ByteReader& root, uint32_t row) {
  RP_ASSIGN(ByteReader ib, objectReader(arena, root, row, "IndexBuffer"));
  RP_CHECK(ib.skip(4, "dxIndexBuffer"));
  RP_ASSIGN(const uint32_t startIndex, ib.u32("startIndex"));
  RP_ASSIGN(const uint32_t count, ib.u32("primitiveCount"));
  RP_CHECK(ib.skip(4, "usage"));
  RP_ASSIGN(const uint32_t format, ib.u32("format"));
  RP_ASSIGN(const uint32_t primitiveType, ib.u32("primitiveType"));
  if (format != ibuf::kIndex16 && format != ibuf::kIndex32) {
    return ib.errorAt(0x10, ErrorCode::Unsupported, fmt::format("index format {} (D3DFMT_INDEX16 101, INDEX32 102)", format), "format");
  }
  if (primitiveType != kTriangleList) {
    return ib.errorAt(0x14, ErrorCode::Unsupported, fmt::format("primitive type {} (triangle lists, 4, are read)", primitiveType),
                      "primitiveType");
  }
  RP_ASSIGN(ByteReader data, baseResource(arena, root, ib, "indexData"));
  const size_t size = format == ibuf::kIndex16 ? 2 : 4;
  RP_ASSIGN(const size_t n, data.count(count, size, "primitiveCount"));
  std::vector<uint32_t> out(n);
  const uint8_t* p = data.data().data();
  for (size_t i = 0; i < n; ++i) out[i] = startIndex + (size == 2 ? le16(p + 2 * i) : le32(p + 4 * i));
  return out;
}

// The triangles of the Mesh objects over one vertex buffer, each range once, in dictionary order.
Status addTriangles(const Arena& arena, const ByteReader& root, const std::vector<MeshObject>& objects, Mesh& mesh,
                    Provenance& prov) {
  std::map<uint32_t, std::vector<uint32_t>> buffers;
  std::set<std::pair<uint32_t, uint32_t>> seen;
  size_t dropped = 0;
  for (const MeshObject& m : objects) {
    if (!seen.insert({m.indexBuffer, m.firstIndex}).second) continue;
    auto it = buffers.find(m.indexBuffer);
    if (it == buffers.end()) {
      RP_ASSIGN(std::vector<uint32_t> indices, readIndexBuffer(arena, root, m.indexBuffer));
      it = buffers.emplace(m.indexBuffer, std::move(indices)).first;
    }
    const std::vector<uint32_t>& indices = it->second;
    const uint64_t end = uint64_t{m.firstIndex} + uint64_t{m.triangleCount} * 3;
    if (end > indices.size()) {
      prov.warn("rw4-index-range", fmt::format("Mesh (row {}) firstIndex {} triangleCount {}: past the {} indices of IndexBuffer "
                                               "(row {}); skipped",
                                               m.row, m.firstIndex, m.triangleCount, indices.size(), m.indexBuffer));
      continue;
    }
    for (uint64_t t = m.firstIndex; t < end; t += 3) {
      const uint32_t a = indices[t], b = indices[t + 1], c = indices[t + 2];
      if (a >= mesh.vertexCount() || b >= mesh.vertexCount() || c >= mesh.vertexCount()) {
        ++dropped;
        continue;
      }
      mesh.indices.insert(mesh.indices.end(), {a, b, c});
    }
  }
  if (dropped > 0) {
    prov.warn("rw4-index-range", fmt::format("VertexBuffer (row {}): {} triangle(s) index past its {} vertices; dropped",
                                             objects.front().vertexBuffer, dropped, mesh.vertexCount()));
  }
  return Ok{};
}

// The BlendShape objects (0xFF0002) of the arena in dictionary order; a damaged one is skipped with a
// warning naming its row and field.
std::vector<SporeMorphMesh> readBlendShapes(const Arena& arena, const ByteReader& root, Provenance& prov) {
  std::vector<SporeMorphMesh> out;
  for (uint32_t row = 0; row < arena.dictionary.size(); ++row) {
    if (arena.dictionary[row].typeId != kBlendShape) continue;
    SporeMorphMesh shape;
    const Status read = [&]() -> Status {
      RP_ASSIGN(ByteReader obj, objectReader(arena, root, row, "BlendShape"));
      RP_CHECK(obj.seek(blendshape::kShapeCount, "shapeCount"));
      RP_ASSIGN(const uint32_t count, obj.u32("shapeCount"));
      RP_CHECK(obj.seek(blendshape::kShapeCountAgain, "shapeCountAgain"));
      RP_ASSIGN(const uint32_t again, obj.u32("shapeCountAgain"));
      if (again != count) {
        return obj.errorAt(blendshape::kShapeCountAgain, ErrorCode::BadValue, fmt::format("{} shapes, {} at +0x0C", again, count),
                           "shapeCountAgain");
      }
      RP_ASSIGN(shape.blendShapeId, obj.u32("id"));
      RP_ASSIGN(const size_t n, obj.count(count, 8, "shapeCount"));  // a time and an id a shape
      RP_CHECK(obj.skip(4 * n, "shapeTimes"));
      RP_ASSIGN(shape.shapeIds, obj.array<uint32_t>(n, "shapeIds"));
      return Ok{};
    }();
    if (!read) {
      prov.warn("rw4-blend-shape", fmt::format("BlendShape (row {}) is not read: {}", row, read.error().describe()));
      continue;
    }
    out.push_back(std::move(shape));
  }
  return out;
}

// A BlendShapeBuffer's vertices and shapes (spore_mesh_layout.hpp blendshapebuffer): every stream's
// count checked against the bytes from its offset to the object's end, and the decoded mesh charged to
// the memory budget, before anything is allocated.
Result<Mesh> readBlendShapeBuffer(const Arena& arena, const ByteReader& root, uint32_t row, const std::vector<uint32_t>& fileToRig,
                                  Provenance& prov) {
  using namespace blendshapebuffer;
  RP_ASSIGN(ByteReader obj, objectReader(arena, root, row, "BlendShapeBuffer"));
  RP_ASSIGN(const uint32_t type, obj.u32("type"));
  if (type != kType) {
    return obj.errorAt(0, ErrorCode::Unsupported, fmt::format("type {} (1 is read; both public decoders refuse others)", type), "type");
  }
  std::array<uint32_t, kStreams> offsets{};
  for (size_t i = 0; i < kStreams; ++i) {
    RP_ASSIGN(offsets[i], obj.u32(Field("offsets", static_cast<int64_t>(i))));
    if (offsets[i] != 0 && (offsets[i] < kHeaderSize || offsets[i] > obj.size())) {
      return obj.errorAt(kOffsets + 4 * i, ErrorCode::BadValue,
                         fmt::format("a stream at +0x{:X}, outside the {}-byte object's data (from +0x{:X})", offsets[i], obj.size(), kHeaderSize),
                         Field("offsets", static_cast<int64_t>(i)));
    }
  }
  RP_ASSIGN(const uint32_t shapeCount, obj.u32("shapeCount"));
  RP_ASSIGN(const uint32_t vertexCount, obj.u32("vertexCount"));
  RP_CHECK(obj.skip(4, "field_38"));
  RP_ASSIGN(const uint32_t perVertex, obj.u32("blendIndicesPerVertex"));
  if (vertexCount == 0) return obj.errorAt(kVertexCount, ErrorCode::BadValue, "no vertices", "vertexCount");
  if (offsets[kPositionStream] == 0) return obj.errorAt(kOffsets, ErrorCode::BadValue, "no position stream", Field("offsets", 0));
  if (perVertex > kMaxIndicesPerVertex) {
    return obj.errorAt(kIndicesPerVertex, ErrorCode::BadValue, fmt::format("{} blend indices a vertex, at most {}", perVertex, kMaxIndicesPerVertex),
                       "blendIndicesPerVertex");
  }
  // A stream runs to the next stream's offset or the object's end (as SporeModder-FX sizes them).
  auto streamAt = [&](size_t i) {
    size_t end = obj.size();
    for (uint32_t o : offsets)
      if (o > offsets[i] && o < end) end = o;
    return obj.window(offsets[i], end - offsets[i], Field("offsets", static_cast<int64_t>(i)));
  };
  // The position stream: the base and every shape, (shapeCount + 1) × vertexCount × 16 bytes.
  RP_ASSIGN(ByteReader positions, streamAt(kPositionStream));
  RP_ASSIGN(const size_t n, positions.count(vertexCount, kVectorSize, "vertexCount"));
  if (uint64_t{shapeCount} + 1 > positions.size() / (n * kVectorSize)) {
    return obj.errorAt(kShapeCount, ErrorCode::BadValue,
                       fmt::format("shapeCount {} shapes and the base, of vertexCount {} vertices ({} bytes each), overrun the {}-byte "
                                   "position stream",
                                   shapeCount, n, n * kVectorSize, positions.size()),
                       "shapeCount");
  }
  RP_ASSIGN(const size_t blocks, positions.count(uint64_t{shapeCount} + 1, n * kVectorSize, "shapeCount"));
  const size_t shapes = blocks - 1;
  std::optional<ByteReader> normals, texcoords, indices, weights;
  if (offsets[kNormalStream] != 0) {
    RP_ASSIGN(normals, streamAt(kNormalStream));
    RP_CHECK(normals->count(uint64_t{shapes} + 1, n * kVectorSize, "shapeCount"));
  }
  if (offsets[kTexcoordStream] != 0) {
    RP_ASSIGN(texcoords, streamAt(kTexcoordStream));
    RP_CHECK(texcoords->count(n, kTexcoordSize, "vertexCount"));
  }
  const size_t components = std::min<size_t>(perVertex, kMaxInfluences);
  if (offsets[kBlendIndicesStream] != 0 && perVertex > 0 && fileToRig.empty()) {
    prov.warn("rw4-spore-mesh", fmt::format("BlendShapeBuffer (row {}): the skeleton has no bones; its blend indices are not read and "
                                            "the mesh is unskinned",
                                            row));
  }
  if (offsets[kBlendIndicesStream] != 0 && perVertex > 0 && !fileToRig.empty()) {
    RP_ASSIGN(indices, streamAt(kBlendIndicesStream));
    RP_CHECK(indices->count(n, 2 * size_t{perVertex}, "vertexCount"));
    if (offsets[kBlendWeightsStream] != 0) {
      RP_ASSIGN(weights, streamAt(kBlendWeightsStream));
      RP_CHECK(weights->count(n, 4 * size_t{perVertex}, "vertexCount"));
    }
  }
  // The decoded mesh: a position and a normal, their deltas for every shape, a UV and influences.
  RP_CHECK(obj.charge(uint64_t{n} * (96 + uint64_t{shapes} * 2 * sizeof(glm::vec3)), "shapeCount"));

  auto vector = [](const ByteReader& s, size_t at) {
    const uint8_t* p = s.data().data() + at;
    return glm::vec3(std::bit_cast<float>(le32(p)), std::bit_cast<float>(le32(p + 4)), std::bit_cast<float>(le32(p + 8)));
  };
  Mesh mesh;
  mesh.positions.resize(n);
  for (size_t v = 0; v < n; ++v) mesh.positions[v] = vector(positions, v * kVectorSize);
  if (normals) {
    mesh.normals.resize(n);
    for (size_t v = 0; v < n; ++v) mesh.normals[v] = vector(*normals, v * kVectorSize);
  }
  mesh.morphTargets.resize(shapes);
  for (size_t s = 0; s < shapes; ++s) {
    MorphTarget& t = mesh.morphTargets[s];
    t.name = fmt::format("shape_{}", s);
    const size_t block = (s + 1) * n * kVectorSize;
    t.positionDeltas.resize(n);
    for (size_t v = 0; v < n; ++v) t.positionDeltas[v] = vector(positions, block + v * kVectorSize);  // stored as deltas
    if (!normals) continue;
    t.normalDeltas.resize(n);  // stored as the shape's own normals at weight 1
    for (size_t v = 0; v < n; ++v) t.normalDeltas[v] = vector(*normals, block + v * kVectorSize) - mesh.normals[v];
  }
  if (texcoords) {
    mesh.uvs.resize(n);
    const uint8_t* p = texcoords->data().data();
    for (size_t v = 0; v < n; ++v) {
      mesh.uvs[v] = glm::vec2(std::bit_cast<float>(le32(p + v * kTexcoordSize)), std::bit_cast<float>(le32(p + v * kTexcoordSize + 4)));
    }
  }
  if (indices) {
    mesh.influenceOffsets.reserve(n + 1);
    mesh.influenceOffsets.push_back(0);
    mesh.influences.reserve(n * components);
    SkinCounts counts;
    const uint8_t* pi = indices->data().data();
    const uint8_t* pw = weights ? weights->data().data() : nullptr;
    for (size_t v = 0; v < n; ++v) {
      float index[4] = {0, 0, 0, 0}, weight[4] = {1, 0, 0, 0};
      for (size_t c = 0; c < components; ++c) {
        index[c] = static_cast<float>(le16(pi + (v * perVertex + c) * 2));
        if (pw != nullptr) weight[c] = std::bit_cast<float>(le32(pw + (v * perVertex + c) * 4));
        if (!std::isfinite(weight[c])) weight[c] = 0.0f;  // no weight (an infinite one would make the others NaN)
      }
      addInfluences(index, weight, pw != nullptr ? components : 1, fileToRig, mesh, counts);
    }
    warnSkin(counts, "BlendShapeBuffer", row, fileToRig.size(), prov);
    if (perVertex > kMaxInfluences) {
      prov.warn("rw4-influences", fmt::format("BlendShapeBuffer (row {}): {} blend indices a vertex; the first {} are read", row, perVertex,
                                              kMaxInfluences));
    }
    if (pw == nullptr) {
      prov.warn("rw4-no-weights", fmt::format("BlendShapeBuffer (row {}): blend indices without weights; each vertex follows its first "
                                              "index fully",
                                              row));
    }
  }
  return mesh;
}

}  // namespace

bool hasSporeMeshes(const Arena& arena) {
  return std::any_of(arena.dictionary.begin(), arena.dictionary.end(), [](const DictEntry& e) { return e.typeId == spore::kMesh; });
}

std::vector<SporeMesh> readSporeMeshes(const Arena& arena, const ByteReader& root, const std::vector<uint32_t>& fileToRig,
                                       Provenance& prov) {
  // Mesh objects by vertex buffer, in the order the buffers are first drawn.
  std::vector<uint32_t> order;
  std::map<uint32_t, std::vector<MeshObject>> byBuffer;
  for (uint32_t row = 0; row < arena.dictionary.size(); ++row) {
    if (arena.dictionary[row].typeId != spore::kMesh) continue;
    auto m = readMeshObject(arena, root, row);
    if (!m) {
      prov.warn("rw4-spore-mesh", fmt::format("Mesh (row {}) is skipped: {}", row, m.error().describe()));
      continue;
    }
    const uint32_t type = arena.dictionary[m->vertexBuffer].typeId;
    if (type != spore::kVertexBuffer && type != kBlendShapeBuffer) {
      prov.warn("rw4-spore-mesh", fmt::format("Mesh (row {}) vertexBuffers[0]: object {} is a {}, not a VertexBuffer or "
                                              "BlendShapeBuffer; skipped",
                                              row,
                                              m->vertexBuffer, typeName(type)));
      continue;
    }
    auto& list = byBuffer[m->vertexBuffer];
    if (list.empty()) order.push_back(m->vertexBuffer);
    list.push_back(*m);
  }
  std::vector<SporeMorphMesh> blendShapes;
  std::vector<bool> paired;
  bool blendShapesRead = false;
  std::vector<SporeMesh> out;
  for (uint32_t vbRow : order) {
    const std::vector<MeshObject>& objects = byBuffer[vbRow];
    const bool shapes = arena.dictionary[vbRow].typeId == kBlendShapeBuffer;
    if (shapes && !blendShapesRead) {
      blendShapes = readBlendShapes(arena, root, prov);
      paired.assign(blendShapes.size(), false);
      blendShapesRead = true;
    }
    SporeMeshPlace place;
    auto mesh = shapes ? readBlendShapeBuffer(arena, root, vbRow, fileToRig, prov) : readVertexBuffer(arena, root, vbRow, fileToRig, prov, place);
    Status triangles = mesh ? addTriangles(arena, root, objects, *mesh, prov) : Status(mesh.error());
    const char* what = shapes ? "BlendShapeBuffer" : "VertexBuffer";
    if (!triangles) {
      prov.warn("rw4-spore-mesh", fmt::format("{} (row {}) and its {} Mesh object(s) are skipped: {}", what, vbRow, objects.size(),
                                              triangles.error().describe()));
      continue;
    }
    SporeMesh s;
    s.place = place;
    s.mesh = std::move(*mesh);
    s.mesh.name = fmt::format("mesh_{}", vbRow);
    if (shapes) {
      s.place = SporeMeshPlace{};
      s.place.row = vbRow;
      s.place.blendShapeBuffer = true;
      s.place.count = s.mesh.vertexCount();
      // The first BlendShape object not yet paired that names as many shapes (rigport's rule).
      SporeMorphMesh morph;
      morph.mesh = s.mesh.name;
      for (size_t b = 0; b < blendShapes.size(); ++b) {
        if (paired[b] || blendShapes[b].shapeIds.size() != s.mesh.morphTargets.size()) continue;
        paired[b] = true;
        morph.blendShapeId = blendShapes[b].blendShapeId;
        morph.shapeIds = blendShapes[b].shapeIds;
        for (size_t t = 0; t < morph.shapeIds.size(); ++t) s.mesh.morphTargets[t].name = fmt::format("0x{:08X}", morph.shapeIds[t]);
        break;
      }
      if (!morph.blendShapeId) {
        prov.warn("rw4-blend-shape", fmt::format("BlendShapeBuffer (row {}): no BlendShape object (0x00FF0002) of its {} shape(s); "
                                                 "they are named shape_<i> and no BlendFactor clip is bound to them by id",
                                                 vbRow, s.mesh.morphTargets.size()));
      }
      s.morph = std::move(morph);
    }
    s.rows.push_back(vbRow);
    for (const MeshObject& m : objects) s.rows.insert(s.rows.end(), {m.row, m.indexBuffer});
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace rigport::rw4
