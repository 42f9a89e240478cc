// GPL section → decoded arrays and triangle corners (sluggers.md §3).
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "formats/sluggers/gpl.hpp"
#include "formats/sluggers/gx_quant.hpp"
#include "formats/sluggers/model_layout.hpp"
#include "formats/sluggers/section.hpp"

namespace rigport::sluggers {
namespace {

constexpr const char* kGpl = "GPL";

struct Corner {
  uint32_t position = kNoIndex, normal = kNoIndex, uv = kNoIndex;
};

Result<AttributeHeader> readAttributeHeader(ByteReader& r) {
  AttributeHeader h;
  RP_ASSIGN(h.array, r.u32("array"));
  RP_ASSIGN(h.count, r.u16("count"));
  RP_ASSIGN(h.quantizeInfo, r.u8("quantizeInfo"));
  RP_ASSIGN(h.compCount, r.u8("compCount"));
  return h;
}

// The section offset of the array of `h` (layout-relative) and its component size, with room for
// `h.count` elements of `h.compCount` components of which the first `used` are read.
struct ArrayAt {
  size_t offset = 0;
  size_t componentSize = 0;
  size_t stride = 0;
  size_t bytes = 0;  // from offset to the end of the last component read
};
Result<ArrayAt> locateArray(ByteReader& r, size_t headerAt, const AttributeHeader& h, size_t layout, uint8_t used) {
  ArrayAt a;
  a.componentSize = gxComponentSize(h.quantizeInfo);
  if (a.componentSize == 0) {
    return r.errorAt(headerAt + 6, ErrorCode::Unsupported,
                     fmt::format("quantizeInfo 0x{:02X}: GX component type {} is not one of 0-4 (sluggers.md §3, open item 4)",
                                 h.quantizeInfo, h.quantizeInfo >> 4),
                     "quantizeInfo");
  }
  if (h.compCount < used) {
    return r.errorAt(headerAt + 7, ErrorCode::BadValue, fmt::format("compCount {} is below the {} components read", h.compCount, used),
                     "compCount");
  }
  a.stride = h.compCount * a.componentSize;
  const uint64_t need = h.count == 0 ? 0 : uint64_t(h.count - 1) * a.stride + uint64_t(used) * a.componentSize;
  RP_CHECK(r.seek(headerAt + 4, "array"));  // `follow` names the pointer just read
  RP_ASSIGN(a.offset, follow(r, h.array, layout, need, "array", kGpl));
  a.bytes = static_cast<size_t>(need);
  RP_CHECK(r.charge(uint64_t(h.count) * sizeof(glm::vec3), "count"));
  return a;
}

// `mesh` is decoded from the `size` section bytes at `at` too (GplMesh::bytesFrom).
void decodedFrom(GplMesh& mesh, size_t at, size_t size) {
  mesh.bytesFrom = std::min(mesh.bytesFrom, at);
  mesh.bytesTo = std::max(mesh.bytesTo, at + size);
}

const uint8_t* arrayData(const ByteReader& r, const ArrayAt& a, size_t firstComponent) {
  return r.data().data() + a.offset + firstComponent * a.componentSize;
}

// The position header at headerAt, in the caller's "position" scope.
Result<AttributeHeader> readPositionHeader(ByteReader& r, size_t headerAt) {
  RP_CHECK(r.seek(headerAt, "header"));
  RP_ASSIGN(const AttributeHeader h, readAttributeHeader(r));
  if (h.compCount != 3 && h.compCount != kSkinnedCompCount) {
    return r.errorAt(headerAt + 7, ErrorCode::Unsupported, fmt::format("compCount {} (3, or 6 for the skinned mesh)", h.compCount),
                     "compCount");
  }
  return h;
}

Status readPositions(ByteReader& r, size_t layout, size_t headerAt, GplMesh& mesh) {
  auto scope = r.scope("position");
  RP_ASSIGN(const AttributeHeader h, readPositionHeader(r, headerAt));
  RP_ASSIGN(const ArrayAt a, locateArray(r, headerAt, h, layout, h.compCount));
  mesh.positionArray = GplArray{a.offset, a.stride, h.count, h.quantizeInfo, 3};
  decodedFrom(mesh, a.offset, a.bytes);
  mesh.positionCompCount = h.compCount;
  mesh.positionQuantize = h.quantizeInfo;
  mesh.positions.resize(h.count);
  decodeGxArray<3>(arrayData(r, a, 0), a.stride, h.count, h.quantizeInfo, reinterpret_cast<float*>(mesh.positions.data()));
  if (h.compCount == kSkinnedCompCount) {
    mesh.interleavedNormals.resize(h.count);
    decodeGxArray<3>(arrayData(r, a, 3), a.stride, h.count, h.quantizeInfo, reinterpret_cast<float*>(mesh.interleavedNormals.data()));
  }
  return Ok{};
}

Status readNormals(ByteReader& r, size_t layout, size_t headerAt, uint32_t positionArray, bool skinned, GplMesh& mesh) {
  auto scope = r.scope("normal");
  RP_CHECK(r.seek(headerAt, "header"));
  RP_ASSIGN(const AttributeHeader h, readAttributeHeader(r));
  RP_ASSIGN(const ArrayAt a, locateArray(r, headerAt, h, layout, 3));
  mesh.normalArray = GplArray{a.offset, a.stride, h.count, h.quantizeInfo, 3};
  decodedFrom(mesh, a.offset, a.bytes);
  // §3: the skinned mesh's normal header points into the position array, one vector in.
  mesh.normalsAliasPositions = mesh.positionCompCount == kSkinnedCompCount && h.compCount == kSkinnedCompCount &&
                               h.quantizeInfo == mesh.positionQuantize && h.count == mesh.positions.size() &&
                               h.array == positionArray + 3 * a.componentSize;
  // Such normals are the interleaved ones bit for bit (the same bytes, stride and quantisation),
  // which the skin takes: the skinned submesh's are not decoded a second time.
  if (mesh.normalsAliasPositions && skinned) return Ok{};
  mesh.normals.resize(h.count);
  decodeGxArray<3>(arrayData(r, a, 0), a.stride, h.count, h.quantizeInfo, reinterpret_cast<float*>(mesh.normals.data()));
  return Ok{};
}

Status readUvs(ByteReader& r, size_t layout, size_t headerAt, GplMesh& mesh) {
  auto scope = r.scope(Field("texcoord", 0));
  RP_CHECK(r.seek(headerAt, "header"));
  RP_ASSIGN(const AttributeHeader h, readAttributeHeader(r));
  const uint8_t used = h.compCount >= 2 ? 2 : 1;
  RP_ASSIGN(const ArrayAt a, locateArray(r, headerAt, h, layout, used));
  mesh.uvArray = GplArray{a.offset, a.stride, h.count, h.quantizeInfo, used};
  decodedFrom(mesh, a.offset, a.bytes);
  mesh.uvs.resize(h.count);  // zero-filled: a one-component channel leaves v at 0
  if (used == 2) decodeGxArray<2>(arrayData(r, a, 0), a.stride, h.count, h.quantizeInfo, reinterpret_cast<float*>(mesh.uvs.data()));
  else decodeGxArray<1, 2>(arrayData(r, a, 0), a.stride, h.count, h.quantizeInfo, reinterpret_cast<float*>(mesh.uvs.data()));
  return Ok{};
}

// The index tuple a vertex descriptor gives each vertex of a primitive (§3 id 3).
struct TupleLayout {
  size_t bytes = 0;
  std::array<uint8_t, kVcdSlots> size{};  // bytes per slot
  std::array<uint8_t, kVcdSlots> at{};    // where each slot's index starts in the tuple
};

Result<TupleLayout> tupleLayout(const ByteReader& r, size_t stateAt, uint32_t vcd) {
  TupleLayout t;
  for (uint8_t slot = 0; slot < kVcdSlots; ++slot) {
    const uint8_t type = (vcd >> (2 * slot)) & 3;
    if (type == kVcdNone) continue;
    if (slot == kVcdPnMtx ? type != kVcdDirect : type == kVcdDirect) {
      return r.errorAt(stateAt + 4, ErrorCode::Unsupported,
                       fmt::format("vertex descriptor 0x{:08X}: attribute {} has type {} (rigport reads a direct matrix index "
                                   "and indexed attributes)",
                                   vcd, slot, type),
                       "setting");
    }
    t.size[slot] = slot == kVcdPnMtx ? 1 : (type == kVcdIndex8 ? 1 : 2);
    t.at[slot] = static_cast<uint8_t>(t.bytes);
    t.bytes += t.size[slot];
  }
  if (t.size[kVcdPos] == 0) {
    return r.errorAt(stateAt + 4, ErrorCode::BadValue, fmt::format("vertex descriptor 0x{:08X} has no position", vcd), "setting");
  }
  return t;
}

// Appends triangles as corners: `emit(a, b, c)` for each, in the order they are given. `normal`
// and `uv`: whether the corners have those indices; `shared`: whether every corner they are made of
// has its position index for them.
class CornerSink {
 public:
  CornerSink(GplMesh& mesh, size_t maxTriangles, bool normal, bool uv, bool shared)
      : mesh_(mesh), first_(mesh.cornerPosition.size()), size_(first_) {
    if (!mesh.cornerIndicesStored) {
      // Once some corner's normal or uv index is not its position index, the mesh's are stored
      // (GplMesh::cornerRuns).
      if (shared) {
        if (mesh.cornerRuns.empty() || mesh.cornerRuns.back().normal != normal || mesh.cornerRuns.back().uv != uv) {
          mesh.cornerRuns.push_back({first_, normal, uv});
        }
        normal_ = normal;
        uv_ = uv;
      } else {
        mesh.storeCornerIndices();
      }
    }
    store_ = mesh.cornerIndicesStored;
    const size_t capacity = size_ + 3 * maxTriangles;
    mesh.cornerPosition.resize(capacity);
    if (store_) {
      mesh.cornerNormal.resize(capacity);
      mesh.cornerUv.resize(capacity);
    }
  }
  ~CornerSink() {
    mesh_.cornerPosition.resize(size_);
    if (!store_) {  // every corner's indices are shared
      mesh_.anyCornerNormal |= normal_ && size_ > first_;
      mesh_.anyCornerUv |= uv_ && size_ > first_;
      return;
    }
    // The mesh's summaries of the corners added (gpl.hpp), in one pass over them while they are in
    // cache, which the compiler runs in vector lanes (kept corner by corner, they were a third of
    // the sink's instructions).
    const uint32_t *position = mesh_.cornerPosition.data(), *normal = mesh_.cornerNormal.data(), *uv = mesh_.cornerUv.data();
    uint32_t anyNormal = 0, anyUv = 0, shareIndex = 1;
    for (size_t c = first_; c < size_; ++c) {
      anyNormal |= normal[c] != kNoIndex;
      anyUv |= uv[c] != kNoIndex;
      shareIndex &= ((normal[c] == kNoIndex) | (normal[c] == position[c])) & ((uv[c] == kNoIndex) | (uv[c] == position[c]));
    }
    mesh_.anyCornerNormal |= anyNormal != 0;
    mesh_.anyCornerUv |= anyUv != 0;
    mesh_.cornersShareIndex &= shareIndex != 0;
    mesh_.cornerNormal.resize(size_);
    mesh_.cornerUv.resize(size_);
  }
  CornerSink(const CornerSink&) = delete;
  CornerSink& operator=(const CornerSink&) = delete;

  void emit(const Corner& a, const Corner& b, const Corner& c) {
    if (a.position == b.position || b.position == c.position || a.position == c.position) return;  // strip stitching
    // §3: GX winds the other way round; community readers reverse it, as glTF needs.
    put(a);
    put(c);
    put(b);
  }

 private:
  void put(const Corner& k) {
    mesh_.cornerPosition[size_] = k.position;
    if (store_) {
      mesh_.cornerNormal[size_] = k.normal;
      mesh_.cornerUv[size_] = k.uv;
    }
    ++size_;
  }
  GplMesh& mesh_;
  const size_t first_;  // the first corner this sink adds
  size_t size_;
  bool store_ = true;                 // the normal and uv indices too
  bool normal_ = false, uv_ = false;  // the corners' indices, while not stored
};

// One attribute's index in a tuple: its offset and width (0 = the descriptor leaves it out), and
// the size of the array it indexes.
struct IndexSlot {
  uint8_t at = 0, size = 0;
  size_t limit = 0;
  const char* field = "";
  // The index in `tuple`, kNoIndex when the slot is absent.
  uint32_t read(const uint8_t* tuple) const {
    const uint8_t* p = tuple + at;
    return size == 0 ? kNoIndex : size == 1 ? p[0] : (uint32_t(p[0]) << 8) | p[1];
  }
};

// The triangles a primitive of `count` vertices gives at most (lines, points and unknown opcodes:
// none).
size_t primitiveTriangles(uint8_t primitive, size_t count) {
  switch (primitive) {
    case kTriangles: return count / 3;
    case kQuads: return count / 4 * 2;
    case kTriangleStrip:
    case kTriangleFan: return count;
    default: return 0;
  }
}

// The triangles a primitive list can give at most, from its opcodes and counts alone (a walk that
// skips the vertex data and stops where the list stops making sense; readPrimitiveList reports
// why), so the corner arrays are sized once instead of growing primitive by primitive.
size_t maxTriangles(ByteReader list, const TupleLayout& t) {
  size_t triangles = 0;
  while (list.remaining() >= 3) {
    const auto op = list.u8("opcode");
    if (!op || *op == 0) break;
    const auto n = list.u16("vertexCount");
    if (!n || !list.skip(size_t{*n} * t.bytes, "vertices")) break;
    triangles += primitiveTriangles(*op & kPrimitiveMask, *n);
  }
  return triangles;
}

// Reads `count` tuples' position, normal and uv indices (three named reads, not a loop over a local
// array: GCC merged such an array's stores into wide loads that stalled store forwarding) and
// returns the first corner with an index past its array, or count; `shared` ends false if some
// corner's normal or uv index is not its position index. kWide: every index present is 16-bit (the
// usual layout), read without a test of its size per corner.
template <bool kWide, bool kNormal, bool kUv>
size_t readCornersAs(const IndexSlot slots[3], const uint8_t* tuples, size_t bytes, size_t count, Corner* corners, bool& shared) {
  auto read = [&](const IndexSlot& slot, const uint8_t* tuple) -> uint32_t {
    if constexpr (kWide) return (uint32_t(tuple[slot.at]) << 8) | tuple[slot.at + 1];
    else return slot.read(tuple);
  };
  for (size_t k = 0; k < count; ++k) {
    const uint8_t* tuple = tuples + k * bytes;
    const uint32_t position = read(slots[0], tuple);
    const uint32_t normal = kNormal ? read(slots[1], tuple) : kNoIndex;
    const uint32_t uv = kUv ? read(slots[2], tuple) : kNoIndex;
    corners[k] = Corner{position, normal, uv};
    shared &= (!kNormal || normal == position) & (!kUv || uv == position);
    if (position >= slots[0].limit || (kNormal && normal >= slots[1].limit) || (kUv && uv >= slots[2].limit)) return k;
  }
  return count;
}

// Not inlined into readPrimitiveList: GCC inlines it there once the submeshes are decoded one at a
// time (GplMeshes), and its loops then took 0.6 M more instructions on the benchmark's block.
[[gnu::noinline]] size_t readCorners(const IndexSlot slots[3], const uint8_t* tuples, size_t bytes, size_t count, Corner* corners,
                                     bool& shared) {
  const bool normal = slots[1].size != 0, uv = slots[2].size != 0;
  const bool wide = slots[0].size == 2 && (!normal || slots[1].size == 2) && (!uv || slots[2].size == 2);
  if (!wide) {
    return normal ? (uv ? readCornersAs<false, true, true>(slots, tuples, bytes, count, corners, shared)
                        : readCornersAs<false, true, false>(slots, tuples, bytes, count, corners, shared))
                  : (uv ? readCornersAs<false, false, true>(slots, tuples, bytes, count, corners, shared)
                        : readCornersAs<false, false, false>(slots, tuples, bytes, count, corners, shared));
  }
  return normal ? (uv ? readCornersAs<true, true, true>(slots, tuples, bytes, count, corners, shared)
                      : readCornersAs<true, true, false>(slots, tuples, bytes, count, corners, shared))
                : (uv ? readCornersAs<true, false, true>(slots, tuples, bytes, count, corners, shared)
                      : readCornersAs<true, false, false>(slots, tuples, bytes, count, corners, shared));
}

Status readPrimitiveList(ByteReader& list, const TupleLayout& t, GplMesh& mesh, Provenance& provenance) {
  {
    const size_t more = 3 * maxTriangles(list, t);
    RP_CHECK(list.charge(uint64_t(more) * 3 * sizeof(uint32_t), "primitiveList"));
    const size_t needed = mesh.cornerPosition.size() + more;
    if (needed > mesh.cornerPosition.capacity()) {  // geometric, for meshes of several lists
      const size_t corners = std::max(needed, 2 * mesh.cornerPosition.capacity());
      mesh.cornerPosition.reserve(corners);
      if (mesh.cornerIndicesStored) {
        mesh.cornerNormal.reserve(corners);
        mesh.cornerUv.reserve(corners);
      }
    }
  }
  const IndexSlot slots[3] = {
      {t.at[kVcdPos], t.size[kVcdPos], mesh.positions.size(), "positionIndex"},
      {t.at[kVcdNrm], t.size[kVcdNrm], mesh.normalArray.count, "normalIndex"},
      {t.at[kVcdTex0], t.size[kVcdTex0], mesh.uvs.size(), "uvIndex"},
  };
  std::vector<Corner> corners;
  while (!list.atEnd()) {
    const size_t at = list.position();
    RP_ASSIGN(const uint8_t op, list.u8("opcode"));
    if (op == 0) break;  // §3: the list ends at a 0 byte (then padding)
    RP_ASSIGN(const uint16_t n, list.u16("vertexCount"));
    RP_ASSIGN(const size_t count, list.count(n, t.bytes, "vertexCount"));
    RP_CHECK(list.charge(uint64_t(count) * 3 * sizeof(Corner), "vertexCount"));
    // count() checked that count tuples follow: read the position, normal and uv indices straight
    // from the bytes, each checked against its array (matrix indices, colours and further
    // channels are skipped).
    const uint8_t* tuples = list.data().data() + list.position();
    corners.resize(count);
    bool shared = true;
    const size_t badCorner = readCorners(slots, tuples, t.bytes, count, corners.data(), shared);
    if (badCorner != count) {
      const uint8_t* bad = tuples + badCorner * t.bytes;
      const size_t badSlot = slots[0].read(bad) >= slots[0].limit ? 0 : slots[1].size != 0 && slots[1].read(bad) >= slots[1].limit ? 1 : 2;
      const IndexSlot& slot = slots[badSlot];
      return list.errorAt(static_cast<size_t>(bad + slot.at - list.data().data()), ErrorCode::BadValue,
                          fmt::format("index {} of {}", slot.read(bad), slot.limit),
                          Field(slot.field, static_cast<int64_t>(badCorner)));
    }
    RP_CHECK(list.skip(count * t.bytes, "vertices"));
    const uint8_t primitive = op & kPrimitiveMask;
    CornerSink sink(mesh, primitiveTriangles(primitive, count), slots[1].size != 0, slots[2].size != 0, shared);
    switch (primitive) {
      case kTriangles:
        for (size_t i = 0; i + 2 < count; i += 3) sink.emit(corners[i], corners[i + 1], corners[i + 2]);
        break;
      case kTriangleStrip:
        for (size_t i = 0; i + 2 < count; ++i) {
          if (i % 2 == 0) sink.emit(corners[i], corners[i + 1], corners[i + 2]);
          else sink.emit(corners[i + 1], corners[i], corners[i + 2]);
        }
        break;
      case kTriangleFan:
        for (size_t i = 1; i + 1 < count; ++i) sink.emit(corners[0], corners[i], corners[i + 1]);
        break;
      case kQuads:
        for (size_t i = 0; i + 3 < count; i += 4) {
          sink.emit(corners[i], corners[i + 1], corners[i + 2]);
          sink.emit(corners[i], corners[i + 2], corners[i + 3]);
        }
        break;
      case kLines:
      case kLineStrip:
      case kPoints:
        provenance.warn("gx-lines-points", fmt::format("{}: lines and points are not meshes; skipped", list.path()));
        break;
      default:
        return list.errorAt(at, ErrorCode::BadValue, fmt::format("opcode 0x{:02X} is not a GX primitive", op), "opcode");
    }
  }
  return Ok{};
}

Status readDisplay(ByteReader& r, size_t layout, size_t headerAt, GplMesh& mesh, Provenance& provenance, const ReleaseBytes& releaseBytes) {
  auto scope = r.scope("display");
  RP_CHECK(r.seek(headerAt + 4, "header"));
  RP_ASSIGN(const uint32_t statesPtr, r.u32("stateList"));
  RP_ASSIGN(const uint16_t numStates, r.u16("numStates"));
  RP_CHECK(r.seek(headerAt + 8, "stateList"));
  RP_ASSIGN(const size_t states, follow(r, statesPtr, layout, uint64_t(numStates) * kDisplayStateSize, "stateList", kGpl));
  uint32_t vcd = 0;
  for (size_t s = 0; s < numStates; ++s) {
    auto stateScope = r.scope(Field("state", static_cast<int64_t>(s)));
    const size_t at = states + s * kDisplayStateSize;
    RP_CHECK(r.seek(at, "id"));
    RP_ASSIGN(const uint8_t id, r.u8("id"));
    RP_CHECK(r.skip(3, "params"));
    RP_ASSIGN(const uint32_t setting, r.u32("setting"));
    RP_ASSIGN(const uint32_t listPtr, r.u32("primitiveList"));
    RP_ASSIGN(const uint32_t listSize, r.u32("listSize"));
    if (id == kStateVcd) vcd = setting;
    // A bind holds until the next bind of its layer; only layer 0 (the base texture) is a material's.
    if (id == kStateTexture && ((setting >> 13) & 7) == 0) mesh.textureBinds.push_back({mesh.cornerPosition.size(), setting});
    if (listPtr == 0) continue;
    RP_CHECK(r.seek(at + 12, "primitiveList"));
    RP_ASSIGN(const size_t listAt, follow(r, listPtr, layout, listSize, "primitiveList", kGpl));
    RP_ASSIGN(const TupleLayout t, tupleLayout(r, at, vcd));
    if ((t.size[kVcdNrm] != 0 && mesh.normalArray.count == 0) || (t.size[kVcdTex0] != 0 && mesh.uvs.empty())) {
      return r.errorAt(at + 4, ErrorCode::BadValue, fmt::format("vertex descriptor 0x{:08X} indexes an array the layout lacks", vcd),
                       "setting");
    }
    RP_ASSIGN(ByteReader list, r.window(listAt, listSize, "primitiveList"));
    decodedFrom(mesh, listAt, listSize);
    RP_CHECK(readPrimitiveList(list, t, mesh, provenance));
    if (releaseBytes) releaseBytes(list.data());
    // A vertex takes at least one byte and yields at most one triangle: more corners than 3 per
    // byte of the section means states share their lists, which could multiply a small file.
    if (mesh.cornerPosition.size() > 3 * r.size()) {
      return r.errorAt(at + 12, ErrorCode::BadValue,
                       fmt::format("display states so far give {} triangle corners from a 0x{:X}-byte section (states share their "
                                   "primitive lists)",
                                   mesh.cornerPosition.size(), r.size()),
                       "primitiveList");
    }
  }
  return Ok{};
}

constexpr const char* kLayoutFields[5] = {"positionHeader", "colorHeader", "texcoordHeaders", "normalHeader", "displayHeader"};

// A submesh's DOLayout (§3): its five header pointers and texture channel count.
struct Layout {
  size_t at = 0;
  std::array<uint32_t, 5> ptr{};  // position, colour, texcoords, normal, display
  uint8_t texChannels = 0;
  size_t positionAt = 0;  // the position header (a layout has one)

  // Where header i lies, with room for `need` bytes.
  Result<size_t> headerAt(ByteReader& r, size_t i, size_t need) const {
    RP_CHECK(r.seek(at + 4 * (i + 1), kLayoutFields[i]));
    return follow(r, ptr[i], at, need, kLayoutFields[i], kGpl);
  }
};

Result<Layout> readLayoutHeader(ByteReader& r, size_t at) {
  Layout l;
  l.at = at;
  RP_CHECK(r.seek(at, "layout"));
  for (size_t i = 0; i < l.ptr.size(); ++i) { RP_ASSIGN(l.ptr[i], r.u32(kLayoutFields[i])); }
  RP_ASSIGN(l.texChannels, r.u8("numTextureChannels"));
  if (l.ptr[0] == 0) return r.errorAt(at, ErrorCode::BadValue, "no position header", kLayoutFields[0]);
  RP_ASSIGN(l.positionAt, l.headerAt(r, 0, kAttributeHeaderSize));
  return l;
}

Result<GplMesh> readLayout(ByteReader& r, const Layout& l, bool skinned, Provenance& provenance, const ReleaseBytes& releaseBytes) {
  GplMesh mesh;
  RP_CHECK(readPositions(r, l.at, l.positionAt, mesh));
  RP_CHECK(r.seek(l.positionAt, "positionHeader"));
  RP_ASSIGN(const uint32_t positionArray, r.u32("array"));
  if (l.ptr[3] != 0) {
    RP_ASSIGN(const size_t normalAt, l.headerAt(r, 3, kNormalHeaderSize));
    RP_CHECK(readNormals(r, l.at, normalAt, positionArray, skinned, mesh));
  }
  if (l.ptr[2] != 0 && l.texChannels > 0) {
    RP_ASSIGN(const size_t uvAt, l.headerAt(r, 2, uint64_t(l.texChannels) * kTexcoordHeaderSize));
    RP_CHECK(readUvs(r, l.at, uvAt, mesh));
  }
  // The arrays' bytes (the position array's read twice where the normals alias it) go back
  // before the lists are decoded, as each list's once it is (GplMeshes::next).
  if (releaseBytes) releaseBytes(r.data().subspan(mesh.bytesFrom, mesh.bytesTo - mesh.bytesFrom));
  // Colours (ptr[1]) are not part of the rig model; their indices are skipped in the lists.
  if (l.ptr[4] != 0) {
    RP_ASSIGN(const size_t displayAt, l.headerAt(r, 4, kDisplayHeaderSize));
    RP_CHECK(readDisplay(r, l.at, displayAt, mesh, provenance, releaseBytes));
  }
  return mesh;
}

}  // namespace

void GplMesh::storeCornerIndices() {
  if (cornerIndicesStored) return;
  cornerIndicesStored = true;
  const size_t n = cornerPosition.size();
  cornerNormal.resize(n);
  cornerUv.resize(n);
  for (size_t r = 0; r < cornerRuns.size(); ++r) {
    const size_t end = r + 1 < cornerRuns.size() ? cornerRuns[r + 1].firstCorner : n;
    for (size_t c = cornerRuns[r].firstCorner; c < end; ++c) {
      cornerNormal[c] = cornerRuns[r].normal ? cornerPosition[c] : kNoIndex;
      cornerUv[c] = cornerRuns[r].uv ? cornerPosition[c] : kNoIndex;
    }
  }
  cornerRuns.clear();
}

Result<GplMeshes> GplMeshes::open(ByteReader r) {
  GplMeshes g(std::move(r));
  RP_CHECK(g.r_.seek(0, "magic"));
  RP_ASSIGN(const uint32_t magic, g.r_.u32("magic"));
  if (magic != kGplMagic) {
    return g.r_.errorAt(0, ErrorCode::BadValue, fmt::format("magic 0x{:08X}, not the GPL version 0x{:08X}", magic, kGplMagic), "magic");
  }
  RP_CHECK(g.r_.skip(8, "userData"));  // §3: opaque on player models
  RP_ASSIGN(g.count_, g.r_.u32("numMeshes"));
  RP_ASSIGN(const uint32_t descriptorsPtr, g.r_.u32("descriptors"));
  RP_ASSIGN(g.descriptors_, follow(g.r_, descriptorsPtr, 0, uint64_t(g.count_) * kGplDescriptorSize, "descriptors", kGpl));
  RP_CHECK(g.r_.charge(uint64_t(g.count_) * sizeof(GplMesh), "numMeshes"));
  return g;
}

Result<std::string> GplMeshes::readDescriptor(size_t i, size_t& layout) {
  RP_CHECK(r_.seek(descriptors_ + i * kGplDescriptorSize, "descriptor"));
  RP_ASSIGN(const uint32_t layoutPtr, r_.u32("layout"));
  RP_ASSIGN(layout, follow(r_, layoutPtr, 0, kLayoutSize, "layout", kGpl));
  RP_ASSIGN(const uint32_t namePtr, r_.u32("name"));
  std::string name;
  if (namePtr != 0) {
    RP_ASSIGN(const size_t nameAt, follow(r_, namePtr, 0, 1, "name", kGpl));
    RP_CHECK(r_.seek(nameAt, "name"));
    RP_ASSIGN(name, r_.cString("name"));
  }
  return name;
}

Result<uint8_t> GplMeshes::positionCompCount(size_t i) {
  auto scope = r_.scope(Field("mesh", static_cast<int64_t>(i)));
  size_t layoutAt = 0;
  RP_CHECK(readDescriptor(i, layoutAt));
  RP_ASSIGN(const Layout l, readLayoutHeader(r_, layoutAt));
  auto positionScope = r_.scope("position");
  RP_ASSIGN(const AttributeHeader h, readPositionHeader(r_, l.positionAt));
  return h.compCount;
}

Result<GplMesh> GplMeshes::next(Provenance& provenance, const ReleaseBytes& releaseBytes, bool skinned) {
  const size_t i = decoded_;
  auto scope = r_.scope(Field("mesh", static_cast<int64_t>(i)));
  size_t layoutAt = 0;
  RP_ASSIGN(std::string name, readDescriptor(i, layoutAt));
  RP_ASSIGN(const Layout l, readLayoutHeader(r_, layoutAt));
  RP_ASSIGN(GplMesh mesh, readLayout(r_, l, skinned, provenance, releaseBytes));
  mesh.name = std::move(name);
  // As for display states: descriptors sharing one layout must not multiply the section.
  corners_ += mesh.cornerPosition.size();
  elements_ += mesh.positions.size() + mesh.interleavedNormals.size() + mesh.normalArray.count + mesh.uvs.size();
  if (corners_ > 3 * r_.size() || elements_ > 4 * r_.size()) {
    return r_.errorAt(descriptors_ + i * kGplDescriptorSize, ErrorCode::BadValue,
                      fmt::format("{} submeshes give {} vertices and {} triangle corners from a 0x{:X}-byte section "
                                  "(descriptors share their layouts)",
                                  i + 1, elements_, corners_, r_.size()),
                      "layout");
  }
  ++decoded_;  // not before: decodeRest() must give a submesh's error that ended the read again
  return mesh;
}

Status GplMeshes::decodeRest() {
  Provenance unused;  // the read fails either way: its warnings are not given
  while (decoded_ < count_) RP_CHECK(next(unused));
  return Ok{};
}

}  // namespace rigport::sluggers
