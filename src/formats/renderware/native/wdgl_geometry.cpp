// OpenGL/WDGL native geometry (format note renderware.md §1.7; librw src/gl/wdgl.cpp
// readNativeData/unpackattrib/uninstance). Payload: u32 numAttribs, AttribDesc[numAttribs]
// {u32 index, i32 type, bool32 normalized, i32 size, u32 stride, u32 offset}, then
// stride(attrib 0) × numVertices interleaved bytes. Attribute index: 0 position, 1 UV (shorts
// /512 when not normalised), 2 normal, 3 colour, 4 skin weights, 5 skin indices.
// Types: 0 float, 1 byte, 2 ubyte, 3 short, 4 ushort.
#include <algorithm>

#include <fmt/format.h>

#include "formats/renderware/native/native_reader.hpp"

namespace rigport::renderware {
namespace {

constexpr size_t kAttribDescSize = 24;
constexpr size_t kMaxAttribs = 16;

struct AttribDesc {
  uint32_t index = 0;
  int32_t type = 0;
  bool normalized = false;
  int32_t size = 0;
  uint32_t stride = 0;
  uint32_t offset = 0;
};

size_t typeBytes(int32_t type) {
  static constexpr size_t kSizes[] = {4, 1, 1, 2, 2};
  return (type >= 0 && type < 5) ? kSizes[type] : 0;
}

// librw unpackattrib: normalised integers divide by the type's maximum, others by `scale`.
Result<float> unpackComponent(ByteReader& r, const AttribDesc& a, float scale) {
  switch (a.type) {
    case 0: return r.f32("float");
    case 1: { RP_ASSIGN(const int8_t v, r.s8("byte")); return a.normalized ? v / 127.0f : v / scale; }
    case 2: { RP_ASSIGN(const uint8_t v, r.u8("ubyte")); return a.normalized ? v / 255.0f : v / scale; }
    case 3: { RP_ASSIGN(const int16_t v, r.s16("short")); return a.normalized ? v / 32767.0f : v / scale; }
    default: { RP_ASSIGN(const uint16_t v, r.u16("ushort")); return a.normalized ? v / 65535.0f : v / scale; }
  }
}

}  // namespace

Status readWdglNativeData(ByteReader& r, RwGeometry& geo, NativeSkinVertices& skinVertices) {
  RP_ASSIGN(const uint32_t numAttribs, r.u32("numAttribs"));
  RP_ASSIGN(const size_t na, r.count(numAttribs, kAttribDescSize, "attribs"));
  // librw writes at most 7 (position, UV, normal, colour, weights, indices, extra colour); every
  // attribute is decoded over all vertices, so a bound keeps the work linear in the file size.
  if (na == 0 || na > kMaxAttribs) {
    return r.error(ErrorCode::BadValue, fmt::format("{} vertex attributes (1..{} expected)", na, kMaxAttribs), "numAttribs");
  }
  std::vector<AttribDesc> attribs(na);
  for (size_t i = 0; i < na; ++i) {
    auto scope = r.scope(Field("attribs", static_cast<int64_t>(i)));
    AttribDesc& a = attribs[i];
    RP_ASSIGN(a.index, r.u32("index"));
    RP_ASSIGN(a.type, r.s32("type"));
    RP_ASSIGN(const uint32_t normalized, r.u32("normalized"));
    a.normalized = normalized != 0;
    RP_ASSIGN(a.size, r.s32("size"));
    RP_ASSIGN(a.stride, r.u32("stride"));
    RP_ASSIGN(a.offset, r.u32("offset"));
    if (typeBytes(a.type) == 0 || a.size < 1 || a.size > 4 ||
        uint64_t{a.offset} + typeBytes(a.type) * static_cast<uint32_t>(a.size) > attribs[0].stride) {
      return r.error(ErrorCode::BadValue,
                     fmt::format("attribute type {} size {} at offset {} does not fit stride {}", a.type, a.size,
                                 a.offset, attribs[0].stride),
                     "offset");
    }
  }
  const uint32_t stride = attribs[0].stride;
  RP_ASSIGN(const size_t nv, r.count(geo.numVertices, stride, "data"));
  RP_ASSIGN(ByteReader data, r.sub(nv * stride, "data"));
  for (const AttribDesc& a : attribs) {
    const float scale = a.index == 1 ? 512.0f : 1.0f;
    // Skin indices are integers whatever the normalized flag says (§1.7): scaling them by 1/255
    // would turn every index into 0.
    AttribDesc unpack = a;
    if (a.index == 5) unpack.normalized = false;
    float* dst = nullptr;
    for (size_t v = 0; v < nv; ++v) {
      RP_ASSIGN(ByteReader vr, data.window(v * stride + a.offset, typeBytes(a.type) * static_cast<uint32_t>(a.size), Field("vertex", static_cast<int64_t>(v))));
      float c[4] = {0, 0, 0, 0};
      for (int32_t k = 0; k < a.size; ++k) { RP_ASSIGN(c[k], unpackComponent(vr, unpack, scale)); }
      switch (a.index) {
        case 0: geo.positions.resize(nv); dst = &geo.positions[v].x; std::copy(c, c + 3, dst); break;
        case 1: geo.uvs.resize(nv); dst = &geo.uvs[v].x; std::copy(c, c + 2, dst); break;
        case 2: geo.normals.resize(nv); dst = &geo.normals[v].x; std::copy(c, c + 3, dst); break;
        case 4:
          skinVertices.weights.resize(nv);
          std::copy(c, c + 4, skinVertices.weights[v].begin());
          break;
        case 5: {
          skinVertices.indices.resize(nv);
          for (int k = 0; k < 4; ++k) {
            skinVertices.indices[v][k] = (c[k] >= 0.0f && c[k] <= 255.0f) ? static_cast<uint8_t>(c[k]) : 0;
          }
          break;
        }
        default: break;  // 3 colours, 6 extra colours: not part of a rig
      }
    }
  }
  if (geo.positions.size() != nv) return r.error(ErrorCode::BadValue, "no position attribute", "attribs");
  return Ok{};
}

}  // namespace rigport::renderware
