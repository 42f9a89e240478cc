// RenderOptiMeshData → Mesh (rw4_arena.md §3.1–3.3, §4.2; walkthrough §4–5).
#include "formats/rw4/opti_mesh.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/byte_swap.hpp"
#include "core/rig_storage.hpp"
#include "formats/rw4/vertex_format.hpp"

namespace rigport::rw4 {
namespace {

// Walkthrough §5 "zero tiny contributions": a weight at most this fraction of the vertex's total
// is dropped before the rest is rescaled to sum 1.
constexpr float kTinyWeight = 1e-4f;

struct MeshFields {
  uint32_t numVerts = 0;
  uint32_t vertexDescriptor = 0, indexBuffer = 0, vertexBuffer = 0;
  uint32_t numIslands = 0, drawParams = 0, numRemap = 0, remapTable = 0, numBlendShapes = 0;
};

// A field that must name a whole object of type `type` (§2.6: a dictionary index, table 0).
Result<uint32_t> objectField(const Arena& arena, ByteReader& obj, uint32_t type, const char* field) {
  const size_t at = obj.position();
  RP_ASSIGN(const uint32_t value, obj.u32(field));
  RP_ASSIGN(const auto ref, resolveRef(arena, obj, at, value, field));
  if (!ref || ref->offset != 0) {
    return obj.errorAt(at, ErrorCode::BadValue, fmt::format("0x{:08X} names no whole object", value), field);
  }
  RP_CHECK(expectType(arena, obj, at, ref->object, type, field));
  return ref->object;
}

// A VertexBuffer's or IndexBuffer's +0: the BaseResource holding its bytes (§3.2).
Result<ByteReader> bufferData(const Arena& arena, const ByteReader& root, ByteReader& buffer, const char* role) {
  RP_ASSIGN(const uint32_t row, buffer.u32("baseResource"));
  if (row >= arena.dictionary.size() || !isBaseResource(arena.dictionary[row].typeId)) {
    return buffer.errorAt(0, ErrorCode::BadValue,
                          fmt::format("object {} is not a BaseResource", row), "baseResource");
  }
  return objectReader(arena, root, row, role);
}

// §4.2 remap table (the bone palette), or the walkthrough's +0x6C rule for a one-island mesh
// whose table is empty.
Result<std::vector<uint16_t>> readPalette(const ByteReader& obj, const MeshFields& f, size_t numBones, uint32_t index,
                                          Provenance& prov) {
  if (f.numRemap > 0) {
    if (f.remapTable > obj.size() || uint64_t{f.numRemap} * 2 > obj.size() - f.remapTable) {
      return obj.errorAt(optimesh::kRemapTable, ErrorCode::BadValue,
                         fmt::format("remap table of {} entries at +0x{:X} runs past the {}-byte object", f.numRemap,
                                     f.remapTable, obj.size()),
                         "m_pRemapTable");
    }
    RP_ASSIGN(ByteReader t, obj.window(f.remapTable, size_t{f.numRemap} * 2, "m_pRemapTable"));
    return t.array<uint16_t>(f.numRemap, "remap");
  }
  if (f.numIslands > 1) {
    return obj.errorAt(optimesh::kNumRemapIndices, ErrorCode::BadValue,
                       fmt::format("no remap table for a mesh of {} islands", f.numIslands), "m_uiNumRemapIndices");
  }
  std::vector<uint16_t> palette;
  ByteReader r = obj;
  if (obj.size() >= optimesh::kOneIslandRemapTable) {
    RP_CHECK(r.seek(optimesh::kOneIslandRemapTable, "remap"));
    while (r.remaining() >= 2) {
      RP_ASSIGN(const uint16_t v, r.u16("remap"));
      if (v == optimesh::kRemapSentinel || v >= numBones) break;
      palette.push_back(v);
    }
  }
  prov.warn("rw4-palette-fallback",
            fmt::format("RenderOptiMeshData (row {}) has no remap table: its palette is read from +0x6C up to 0xFFFF or a "
                        "bone index past the {} bones ({} entries), the walkthrough's one-island rule",
                        index, numBones, palette.size()));
  return palette;
}

Status checkDrawParams(const ByteReader& obj, const MeshFields& f, size_t numIndices, uint32_t index, Provenance& prov) {
  if (f.numIslands == 0) return Ok{};
  if (f.drawParams > obj.size() || uint64_t{f.numIslands} * kDrawParamsSize > obj.size() - f.drawParams) {
    prov.warn("rw4-draw-params", fmt::format("RenderOptiMeshData (row {}): {} island draw parameters at +0x{:X} run past the "
                                             "object; every index is drawn",
                                             index, f.numIslands, f.drawParams));
    return Ok{};
  }
  RP_ASSIGN(ByteReader d, obj.window(f.drawParams, size_t{f.numIslands} * kDrawParamsSize, "m_pIslandDrawParams"));
  for (uint32_t i = 0; i < f.numIslands; ++i) {
    RP_ASSIGN(const uint32_t start, d.u32(Field("startIndex", i)));
    RP_ASSIGN(const uint32_t count, d.u32(Field("indexCount", i)));
    RP_CHECK(d.skip(4, "primType"));
    if (uint64_t{start} + count > numIndices) {
      prov.warn("rw4-draw-params", fmt::format("RenderOptiMeshData (row {}) island {}: indices {}..{} past the {} indices",
                                               index, i, start, uint64_t{start} + count, numIndices));
    }
  }
  return Ok{};
}

const VertexElement* findUsage(const std::vector<VertexElement>& elements, uint8_t stream, uint8_t usage) {
  for (const VertexElement& e : elements)
    if (e.stream == stream && e.usage == usage) return &e;
  return nullptr;
}

// Palette slot → rig bone (the global bone of the remap table, in the rig's order), kNoBone for a
// slot past the remap table or naming a bone past the skeleton; at least 256 entries so a byte
// slot needs no range check. fileToRig is a permutation, so merging by rig bone is merging by
// global bone.
constexpr uint32_t kNoBone = UINT32_MAX;
std::vector<uint32_t> slotBones(const std::vector<uint16_t>& palette, const std::vector<uint32_t>& fileToRig) {
  std::vector<uint32_t> bones(std::max<size_t>(palette.size(), 256), kNoBone);
  for (size_t s = 0; s < palette.size(); ++s)
    if (palette[s] < fileToRig.size()) bones[s] = fileToRig[palette[s]];
  return bones;
}

// One vertex's (slot, weight) pairs → (global bone, weight) pairs, merged, tiny ones dropped,
// rescaled to sum 1 (walkthrough §5). Writes at most kMaxInfluences at `out`, returns how many
// (0: no usable weight). A slot of -1 or one naming kNoBone counts in `badSlots`.
size_t mergeVertex(const int32_t slot[4], const float weight[4], size_t components, const uint32_t* bonesOfSlot,
                   Influence* out, size_t& badSlots) {
  std::array<Influence, kMaxInfluences> pairs;
  size_t count = 0;
  float sum = 0.0f;
  for (size_t c = 0; c < components; ++c) {
    const float w = weight[c];
    if (!(w > 0.0f)) continue;
    const uint32_t bone = slot[c] < 0 ? kNoBone : bonesOfSlot[slot[c]];
    if (bone == kNoBone) {
      ++badSlots;
      continue;
    }
    size_t k = 0;
    while (k < count && pairs[k].bone != bone) ++k;
    if (k == count) pairs[count++] = Influence{bone, 0.0f};
    pairs[k].weight += w;
    sum += w;
  }
  float kept = 0.0f;
  size_t used = 0;
  for (size_t k = 0; k < count; ++k) {
    if (pairs[k].weight > kTinyWeight * sum) {
      pairs[used++] = pairs[k];
      kept += pairs[k].weight;
    }
  }
  const float scale = 1.0f / kept;
  for (size_t k = 0; k < used; ++k) out[k] = Influence{pairs[k].bone, pairs[k].weight * scale};
  return used;
}

// The usual skinned vertex: four positive weights on four different bones, none tiny. The same
// float operations in the same order as mergeVertex (so the same results), without its merge
// loop; false leaves the vertex to mergeVertex.
inline bool fourDistinct(const uint32_t bone[4], const float weight[4], Influence* out) {
  const bool positive = (weight[0] > 0.0f) & (weight[1] > 0.0f) & (weight[2] > 0.0f) & (weight[3] > 0.0f);
  const bool valid = (bone[0] != kNoBone) & (bone[1] != kNoBone) & (bone[2] != kNoBone) & (bone[3] != kNoBone);
  const bool distinct = (bone[0] != bone[1]) & (bone[0] != bone[2]) & (bone[0] != bone[3]) & (bone[1] != bone[2]) &
                        (bone[1] != bone[3]) & (bone[2] != bone[3]);
  const float sum = ((weight[0] + weight[1]) + weight[2]) + weight[3];
  const float tiny = kTinyWeight * sum;
  const bool noneTiny = (weight[0] > tiny) & (weight[1] > tiny) & (weight[2] > tiny) & (weight[3] > tiny);
  if (!(positive & valid & distinct & noneTiny)) return false;
  const float scale = 1.0f / sum;
  for (size_t k = 0; k < 4; ++k) out[k] = Influence{bone[k], weight[k] * scale};
  return true;
}

// Per vertex: palette slots and weights → influences, decoded straight from the vertex bytes.
class InfluenceBuilder {
 public:
  InfluenceBuilder(const VertexElement& indices, const VertexElement* weights, const std::vector<uint16_t>& palette,
                   const std::vector<uint32_t>& fileToRig, Endian endian)
      : indices_(indices), weights_(weights), paletteSize_(palette.size()), bonesOfSlot_(slotBones(palette, fileToRig)),
        swap_(needsSwap(endian)),
        components_(weights == nullptr ? elementComponents(indices)
                                       : std::min(elementComponents(indices), elementComponents(*weights))) {
    for (uint16_t g : palette) {
      if (g < fileToRig.size()) {
        fallbackBone_ = g;
        break;
      }
    }
    fallbackRigBone_ = fileToRig.empty() ? 0 : fileToRig[fallbackBone_];
    for (size_t b = 0; b < 256; ++b) unorm8_[b] = static_cast<float>(b) / 255.0f;
  }

  // Fills mesh.influenceOffsets / influences for n vertices of `stride` bytes.
  void build(std::span<const uint8_t> bytes, size_t stride, size_t n, Mesh& mesh) {
    mesh.influenceOffsets.resize(n + 1);
    mesh.influences.resize(n * kMaxInfluences);
    Influence* out = mesh.influences.data();
    uint32_t* offsets = mesh.influenceOffsets.data();
    offsets[0] = 0;
    size_t written = 0;
    const uint8_t* vertex = bytes.data();
    if (byteFour()) {
      // Byte slots and UB weights, four of each (Skate's skinned streams): the common vertex
      // stays in registers; any other goes through vertexInfluences.
      for (size_t v = 0; v < n; ++v, vertex += stride) {
        const uint8_t* i = vertex + indices_.offset;
        const uint8_t* w = vertex + weights_->offset;
        const uint32_t bone[4] = {bonesOfSlot_[i[0]], bonesOfSlot_[i[1]], bonesOfSlot_[i[2]], bonesOfSlot_[i[3]]};
        const float weight[4] = {unorm8_[w[0]], unorm8_[w[1]], unorm8_[w[2]], unorm8_[w[3]]};
        written += fourDistinct(bone, weight, out + written) ? 4 : vertexInfluences(vertex, out + written);
        offsets[v + 1] = static_cast<uint32_t>(written);
      }
    } else {
      for (size_t v = 0; v < n; ++v, vertex += stride) {
        written += vertexInfluences(vertex, out + written);
        offsets[v + 1] = static_cast<uint32_t>(written);
      }
    }
    mesh.influences.resize(written);
  }

  size_t badSlots() const { return badSlots_; }
  size_t unweighted() const { return unweighted_; }
  uint32_t fallbackBone() const { return fallbackBone_; }  // in the file's order, as warnings name bones

 private:
  // Byte blend indices (UB, UB256: the stored integer) with four UB weights (/255).
  bool byteFour() const {
    return (indices_.vertexType == kUB || indices_.vertexType == kUB256) && weights_ != nullptr &&
           weights_->vertexType == kUB && components_ == 4;
  }

  // Any vertex: decode, mergeVertex, and the fallback bone when no weight is usable. Returns the
  // influences written at `out` (at least 1).
  [[gnu::noinline]] size_t vertexInfluences(const uint8_t* vertex, Influence* out) {
    int32_t slot[4] = {-1, -1, -1, -1};
    float weight[4] = {1, 0, 0, 0};
    float slotValue[4] = {0, 0, 0, 0};
    decodeVertexFast(indices_, Meaning::Integer, vertex + indices_.offset, swap_, slotValue);
    if (weights_ != nullptr) decodeVertexFast(*weights_, Meaning::Value, vertex + weights_->offset, swap_, weight);
    for (size_t c = 0; c < components_; ++c) {
      const float s = slotValue[c] + 0.5f;
      slot[c] = s >= 0.0f && s < static_cast<float>(paletteSize_) ? static_cast<int32_t>(s) : -1;
    }
    const size_t used = mergeVertex(slot, weight, components_, bonesOfSlot_.data(), out, badSlots_);
    if (used > 0) return used;
    ++unweighted_;
    out[0] = Influence{fallbackRigBone_, 1.0f};
    return 1;
  }

  const VertexElement& indices_;
  const VertexElement* weights_;
  size_t paletteSize_;
  std::vector<uint32_t> bonesOfSlot_;
  bool swap_;
  size_t components_;
  uint32_t fallbackBone_ = 0, fallbackRigBone_ = 0;  // the palette's first valid bone, in file and rig order
  std::array<float, 256> unorm8_;
  size_t badSlots_ = 0, unweighted_ = 0;
};

void buildInfluences(std::span<const uint8_t> bytes, size_t stride, size_t n, Endian endian, const VertexElement& indices,
                     const VertexElement* weights, const std::vector<uint16_t>& palette,
                     const std::vector<uint32_t>& fileToRig, Mesh& mesh, uint32_t index, Provenance& prov) {
  const size_t numBones = fileToRig.size();
  InfluenceBuilder builder(indices, weights, palette, fileToRig, endian);
  builder.build(bytes, stride, n, mesh);
  const size_t badSlots = builder.badSlots(), unweighted = builder.unweighted();
  const uint32_t fallbackBone = builder.fallbackBone();
  if (badSlots > 0) {
    prov.warn("rw4-palette-slot", fmt::format("RenderOptiMeshData (row {}): {} influence(s) name a palette slot past the {}-entry "
                                              "remap table or a bone past the {} bones; dropped",
                                              index, badSlots, palette.size(), numBones));
  }
  if (unweighted > 0) {
    prov.warn("rw4-unweighted", fmt::format("RenderOptiMeshData (row {}): {} vertex(es) have no usable weight; bound fully to "
                                            "bone {}",
                                            index, unweighted, fallbackBone));
  }
}

// n u16 indices at raw → out, byte-swapped when kSwap; returns the largest.
template <bool kSwap>
uint16_t widenIndices(const uint8_t* raw, size_t n, uint32_t* out) {
  uint16_t largest = 0;
  for (size_t i = 0; i < n; ++i) {
    uint16_t x;
    std::memcpy(&x, raw + 2 * i, 2);
    if constexpr (kSwap) x = byteSwap(x);
    out[i] = x;
    largest = std::max(largest, x);
  }
  return largest;
}

Status readTriangles(const Arena& arena, const ByteReader& root, uint32_t ibRow, size_t vertexCount, Mesh& mesh,
                     size_t* numIndices, uint32_t index, Provenance& prov, RigStorage* storage) {
  RP_ASSIGN(ByteReader ib, objectReader(arena, root, ibRow, "IndexBuffer"));
  RP_ASSIGN(ByteReader data, bufferData(arena, root, ib, "index data"));
  RP_CHECK(ib.skip(4, "reserved"));
  RP_ASSIGN(const uint32_t count, ib.u32("numIndices"));
  // §3.2: u16 triangle lists in the arena's byte order (big-endian on PS3).
  RP_CHECK(data.count(count, 2, "numIndices"));
  const uint8_t* raw = data.data().data();
  const bool swap = needsSwap(data.endian());
  *numIndices = count;
  if (count % 3 != 0) {
    prov.warn("rw4-index-count", fmt::format("IndexBuffer (row {}): {} indices is not a whole number of triangles; the last {} "
                                             "are ignored",
                                             ibRow, count, count % 3));
  }
  // One pass that the compiler vectorises (swap, widen, running maximum); triangles are filtered
  // in a second pass only when some index is out of range.
  const size_t kept = count - count % 3;
  takeFrom(storage, mesh.indices, kept);
  mesh.indices.resize(kept);
  uint32_t* out = mesh.indices.data();
  uint16_t largest = 0;
  if (swap) largest = widenIndices<true>(raw, kept, out);
  else largest = widenIndices<false>(raw, kept, out);
  size_t dropped = 0;
  if (largest >= vertexCount) {
    size_t written = 0;
    for (size_t t = 0; t < kept; t += 3) {
      if (out[t] >= vertexCount || out[t + 1] >= vertexCount || out[t + 2] >= vertexCount) {
        ++dropped;
        continue;
      }
      out[written++] = out[t];
      out[written++] = out[t + 1];
      out[written++] = out[t + 2];
    }
    mesh.indices.resize(written);
  }
  if (dropped > 0) {
    prov.warn("rw4-index-range", fmt::format("RenderOptiMeshData (row {}): {} triangle(s) index past the {} vertices; dropped",
                                             index, dropped, vertexCount));
  }
  return Ok{};
}

}  // namespace

Result<std::vector<VertexElement>> readVertexDescriptor(ByteReader obj) {
  RP_CHECK(obj.skip(8, "m_refCount"));  // refCount, typesFlags
  RP_CHECK(obj.skip(2, "m_numStreams"));
  RP_ASSIGN(const uint16_t numElements, obj.u16("m_numElements"));
  if (numElements > kMaxVertexElements) {
    return obj.errorAt(0x0A, ErrorCode::BadValue, fmt::format("{} elements, at most {}", numElements, kMaxVertexElements),
                       "m_numElements");
  }
  RP_CHECK(obj.seek(kVertexDescriptorHeader, "elements"));
  std::vector<VertexElement> elements(numElements);
  for (size_t i = 0; i < numElements; ++i) {
    auto scope = obj.scope(Field("element", static_cast<int64_t>(i)));
    VertexElement& e = elements[i];
    RP_ASSIGN(e.vertexType, obj.u8("vertexType"));
    RP_ASSIGN(e.numComponents, obj.u8("numComponents"));
    RP_ASSIGN(e.stream, obj.u8("stream"));
    RP_ASSIGN(e.offset, obj.u8("offset"));
    RP_ASSIGN(e.stride, obj.u16("stride"));
    RP_ASSIGN(e.usage, obj.u8("type"));
    RP_ASSIGN(e.elementClass, obj.u8("elementClass"));
    if (componentSize(e.vertexType) == 0) {
      return obj.errorAt(obj.position() - kVertexElementSize, ErrorCode::Unsupported,
                         fmt::format("vertex type 0x{:02X} is not one of S1, F, SF, UB, S32K, CMP, UB256", e.vertexType),
                         "vertexType");
    }
    if (e.numComponents == 0 || e.numComponents > 4) {
      return obj.errorAt(obj.position() - kVertexElementSize + 1, ErrorCode::BadValue,
                         fmt::format("{} components, 1 to 4 expected", e.numComponents), "numComponents");
    }
  }
  return elements;
}

Result<std::optional<Mesh>> readOptiMesh(const Arena& arena, const ByteReader& root, uint32_t index,
                                         const std::vector<uint32_t>& fileToRig, Provenance& prov, OptiMeshPlace* place,
                                         RigStorage* storage) {
  const size_t numBones = fileToRig.size();
  RP_ASSIGN(ByteReader obj, objectReader(arena, root, index, "RenderOptiMeshData"));
  MeshFields f;
  RP_CHECK(obj.seek(optimesh::kNumVerts, "m_uiNumVerts"));
  RP_ASSIGN(f.numVerts, obj.u32("m_uiNumVerts"));
  RP_CHECK(obj.skip(4, "m_pMaterial"));
  RP_ASSIGN(f.vertexDescriptor, objectField(arena, obj, kVertexDescriptor, "m_pVertexDescriptor"));
  RP_CHECK(obj.skip(4, "m_pMeshHelper"));
  RP_ASSIGN(f.indexBuffer, objectField(arena, obj, kIndexBuffer, "m_pIndexBuffer"));
  RP_ASSIGN(f.vertexBuffer, objectField(arena, obj, kVertexBuffer, "m_pVertexBuffer"));
  RP_ASSIGN(f.numIslands, obj.u32("m_uiNumIslands"));
  RP_CHECK(obj.skip(8, "m_pIslandAreas"));  // areas, AABBs: subreferences into RenderModelData
  RP_ASSIGN(f.drawParams, obj.u32("m_pIslandDrawParams"));
  RP_ASSIGN(f.numRemap, obj.u32("m_uiNumRemapIndices"));
  RP_ASSIGN(f.remapTable, obj.u32("m_pRemapTable"));
  RP_ASSIGN(f.numBlendShapes, obj.u32("m_uiNumBlendShapes"));

  RP_ASSIGN(ByteReader descriptor, objectReader(arena, root, f.vertexDescriptor, "VertexDescriptor"));
  RP_ASSIGN(const std::vector<VertexElement> elements, readVertexDescriptor(descriptor));
  // Walkthrough §5: the skin stream is the one with blend indices, and streams beside it are morph
  // streams. A mesh with no blend indices at all is static: the public Skate model arena
  // (docs/rw4_materials.md, REAL) draws its sky from one stream of XYZ and TEX0 only. It is read
  // unskinned, on the model's root, from the stream holding its positions.
  const VertexElement* blendIndices = nullptr;
  const VertexElement* positions = nullptr;
  for (const VertexElement& e : elements) {
    if (e.usage == kIndices && blendIndices == nullptr) blendIndices = &e;
    if (e.usage == kXYZ && positions == nullptr) positions = &e;
  }
  if (blendIndices == nullptr && positions == nullptr) {
    prov.warn("rw4-no-positions", fmt::format("RenderOptiMeshData (row {}): its vertex descriptor (row {}) has neither blend indices "
                                              "nor positions; skipped",
                                              index, f.vertexDescriptor));
    return std::optional<Mesh>{};
  }
  const uint8_t stream = blendIndices != nullptr ? blendIndices->stream : positions->stream;
  size_t stride = 0, otherStreams = 0;
  for (const VertexElement& e : elements) {
    if (e.stream == stream) stride = std::max<size_t>(stride, e.stride);
    else ++otherStreams;
  }
  if (otherStreams > 0) {
    prov.warn("rw4-morph-stream", fmt::format("RenderOptiMeshData (row {}): {} element(s) outside the skin stream {} (morph "
                                              "streams) are not read",
                                              index, otherStreams, stream));
  }
  RP_ASSIGN(ByteReader vd, objectReader(arena, root, f.vertexDescriptor, "VertexDescriptor"));
  for (size_t i = 0; i < elements.size(); ++i) {
    const VertexElement& e = elements[i];
    if (e.stream == stream && e.offset + elementBytes(e) > stride) {
      return vd.errorAt(kVertexDescriptorHeader + i * kVertexElementSize + 3, ErrorCode::BadValue,
                        fmt::format("a {}×{} element at offset {} overruns the {}-byte stride", e.numComponents,
                                    vertexTypeName(e.vertexType), e.offset, stride),
                        Field("element", static_cast<int64_t>(i)));
    }
  }
  const VertexElement* xyz = findUsage(elements, stream, kXYZ);
  if (xyz == nullptr) {
    return vd.errorAt(kVertexDescriptorHeader, ErrorCode::BadValue, "the skin stream has no XYZ element", "elements");
  }

  RP_ASSIGN(ByteReader vb, objectReader(arena, root, f.vertexBuffer, "VertexBuffer"));
  RP_ASSIGN(ByteReader vertexData, bufferData(arena, root, vb, "vertex data"));
  const size_t vertexCount = vertexData.size() / stride;
  // 0 is "not stored": the public Skate model arena's mesh says 0 over 230 vertices
  // (docs/rw4_materials.md, REAL).
  if (vertexCount != f.numVerts && f.numVerts != 0) {
    prov.warn("rw4-vertex-count", fmt::format("RenderOptiMeshData (row {}) says {} vertices, its vertex data holds {} of {} bytes; "
                                              "{} are read",
                                              index, f.numVerts, vertexCount, stride, vertexCount));
  }
  if (vertexCount == 0) {
    prov.warn("rw4-no-vertices", fmt::format("RenderOptiMeshData (row {}): its vertex data holds no whole vertex; skipped", index));
    return std::optional<Mesh>{};
  }
  std::vector<uint16_t> palette;
  if (blendIndices != nullptr) { RP_ASSIGN(palette, readPalette(obj, f, numBones, index, prov)); }
  // Decoded attributes (16 B each, up to 5) and the model's vectors: charged before allocating.
  RP_CHECK(vertexData.charge(uint64_t{vertexCount} * 160, "vertex data"));

  Mesh mesh;
  const Endian endian = arena.endian();
  const std::span<const uint8_t> bytes = vertexData.data();
  takeFrom(storage, mesh.positions, vertexCount);
  mesh.positions.resize(vertexCount);
  decodeElement(*xyz, Meaning::Position, bytes, stride, vertexCount, endian, &mesh.positions.data()->x, 3, 3);
  if (const VertexElement* e = findUsage(elements, stream, kNormal)) {
    takeFrom(storage, mesh.normals, vertexCount);
    mesh.normals.resize(vertexCount);
    decodeElement(*e, Meaning::Value, bytes, stride, vertexCount, endian, &mesh.normals.data()->x, 3, 3);
  }
  if (const VertexElement* e = findUsage(elements, stream, kTex0)) {
    takeFrom(storage, mesh.uvs, vertexCount);
    mesh.uvs.resize(vertexCount);
    decodeElement(*e, Meaning::Value, bytes, stride, vertexCount, endian, &mesh.uvs.data()->x, 2, 2);
  }
  const VertexElement* weightElement = findUsage(elements, stream, kWeights);
  if (blendIndices != nullptr && weightElement == nullptr) {
    prov.warn("rw4-no-weights", fmt::format("RenderOptiMeshData (row {}): blend indices without weights; each vertex follows its "
                                            "first index fully",
                                            index));
  }
  if (blendIndices != nullptr) {
    takeFrom(storage, mesh.influenceOffsets, vertexCount + 1);
    takeFrom(storage, mesh.influences, vertexCount * kMaxInfluences);
    buildInfluences(bytes, stride, vertexCount, endian, *blendIndices, weightElement, palette, fileToRig, mesh, index, prov);
  }

  size_t numIndices = 0;
  RP_CHECK(readTriangles(arena, root, f.indexBuffer, vertexCount, mesh, &numIndices, index, prov, storage));
  RP_CHECK(checkDrawParams(obj, f, numIndices, index, prov));
  if (f.numBlendShapes > 0) {
    prov.warn("rw4-blend-shapes", fmt::format("RenderOptiMeshData (row {}): {} blend shape(s) are not read", index, f.numBlendShapes));
  }
  if (place != nullptr) {
    auto elementOf = [&](uint8_t usage) {
      const VertexElement* e = findUsage(elements, stream, usage);
      return e != nullptr ? std::optional<VertexElement>(*e) : std::nullopt;
    };
    *place = OptiMeshPlace{index,       f.indexBuffer, static_cast<size_t>(bytes.data() - root.data().data()), stride,
                           vertexCount, *xyz,          elementOf(kNormal), elementOf(kTex0), elementOf(kWeights),
                           elementOf(kIndices), std::move(palette)};
  }
  return std::optional<Mesh>{std::move(mesh)};
}

}  // namespace rigport::rw4
