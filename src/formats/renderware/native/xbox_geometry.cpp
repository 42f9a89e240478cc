// Xbox native geometry (format note renderware.md §1.7; librw src/d3d/xbox.cpp readNativeData,
// defaultUninstanceCB). Struct payload: u32 platform (5), i32 size, then `size - 4` bytes of
// header {u16 serial, u16 numMeshes, u32 primType, u32 numVertices, u32 stride, 4 pointer words},
// numMeshes × 24-byte mesh records {minVert, numVertices, numIndices, indexBufferOffset,
// 2 pointers} and the 16-aligned u16 index buffers; then stride × numVertices vertex bytes.
// Index buffer offsets count from a 0x18-byte resource header that precedes `size` in memory.
#include <fmt/format.h>

#include "formats/renderware/geometry_binmesh.hpp"
#include "formats/renderware/native/native_reader.hpp"

namespace rigport::renderware {
namespace {

constexpr uint32_t kResourceHeaderSize = 0x18;
constexpr uint32_t kPrimTriangleList = 5;
constexpr uint32_t kPrimTriangleStrip = 6;
// Vertex format selectors (librw xbox.cpp v3dFormatMap/v2dFormatMap): 1 byte, 2 short,
// 3 normalised short, 4 packed 11:11:10 normal, 5 float.
constexpr uint32_t kFmtCompNorm = 4;
constexpr uint32_t kFmtFloat = 5;

size_t attribBytes(uint32_t sel, uint32_t components) {
  static constexpr size_t kComponentSize[] = {0, 1, 2, 2, 4, 4};
  if (sel == kFmtCompNorm) return 4;
  return sel < 6 ? kComponentSize[sel] * components : 0;
}

glm::vec3 unpackCompNorm(uint32_t c) {
  const int32_t x = static_cast<int32_t>(c << 21) >> 21;
  const int32_t y = static_cast<int32_t>(c << 10) >> 21;
  const int32_t z = static_cast<int32_t>(c) >> 22;
  return {x / 1023.0f, y / 1023.0f, z / 511.0f};
}

}  // namespace

Status readXboxNativeData(ByteReader& r, uint32_t vertexFormat, RwGeometry& geo, const DffContext& ctx) {
  RP_ASSIGN(ByteReader st, readChunk(r, kStruct, "Struct"));
  RP_ASSIGN(const uint32_t platform, st.u32("platform"));
  if (platform != kPlatformXbox) {
    return st.error(ErrorCode::BadValue, fmt::format("platform {} in Xbox native data", platform), "platform");
  }
  const size_t headerStart = st.position();
  RP_ASSIGN(const uint32_t size, st.u32("size"));
  if (size < 0x24 || size > st.remaining() + 4) {
    return st.error(ErrorCode::BadValue, fmt::format("native header size {} out of range", size), "size");
  }
  RP_ASSIGN(ByteReader hdr, st.window(headerStart, size, "header"));
  RP_CHECK(hdr.skip(4, "size"));
  RP_CHECK(hdr.u16("serialNumber"));
  RP_ASSIGN(const uint16_t numMeshes, hdr.u16("numMeshes"));
  RP_ASSIGN(const uint32_t primType, hdr.u32("primType"));
  RP_ASSIGN(const uint32_t numVertices, hdr.u32("numVertices"));
  RP_ASSIGN(const uint32_t stride, hdr.u32("stride"));
  RP_CHECK(hdr.skip(16, "pointers"));
  if (numVertices != geo.numVertices) {
    return hdr.error(ErrorCode::BadValue,
                     fmt::format("{} native vertices, geometry says {}", numVertices, geo.numVertices), "numVertices");
  }
  if (primType != kPrimTriangleList && primType != kPrimTriangleStrip) {
    return hdr.error(ErrorCode::Unsupported, fmt::format("Xbox primitive type {}", primType), "primType");
  }
  RP_ASSIGN(const size_t meshes, hdr.count(numMeshes, 24, "meshes"));
  uint64_t indexBytes = 0;  // index buffers are disjoint parts of the header block
  for (size_t m = 0; m < meshes; ++m) {
    auto scope = hdr.scope(Field("meshes", static_cast<int64_t>(m)));
    RP_CHECK(hdr.skip(8, "minVert"));
    RP_ASSIGN(const int32_t numIndices, hdr.s32("numIndices"));
    RP_ASSIGN(const uint32_t bufferOffset, hdr.u32("indexBuffer"));
    RP_CHECK(hdr.skip(8, "pointers"));
    if (numIndices < 0 || bufferOffset < kResourceHeaderSize) {
      return hdr.error(ErrorCode::BadValue, fmt::format("index buffer {} at {}", numIndices, bufferOffset), "indexBuffer");
    }
    indexBytes += 2ull * static_cast<uint32_t>(numIndices);
    if (indexBytes > size) {
      return hdr.error(ErrorCode::BadValue, fmt::format("index buffers total {} bytes, more than the {}-byte header block",
                                                        indexBytes, size), "numIndices");
    }
    RP_ASSIGN(ByteReader ib, hdr.window(bufferOffset - kResourceHeaderSize, 2ull * static_cast<uint32_t>(numIndices), Field("indexBuffer", static_cast<int64_t>(m))));
    RP_ASSIGN(std::vector<uint16_t> idx, ib.array<uint16_t>(static_cast<uint32_t>(numIndices), "indices"));
    appendPrimitives(idx, primType == kPrimTriangleStrip, geo.indices);
  }
  RP_CHECK(st.seek(headerStart + size, "vertexBuffer"));
  const uint32_t posSel = vertexFormat & 0xF, nrmSel = (vertexFormat >> 4) & 0xF, uvSel = (vertexFormat >> 8) & 0xF;
  if (posSel != kFmtFloat) {
    return st.error(ErrorCode::Unsupported, fmt::format("Xbox vertex format 0x{:X} (positions not float)", vertexFormat),
                    "vertexFormat");
  }
  RP_ASSIGN(const size_t nv, st.count(numVertices, stride == 0 ? 1 : stride, "vertexBuffer"));
  const size_t nrmAt = 12, colAt = nrmAt + attribBytes(nrmSel, 3);
  const size_t uvAt = colAt + ((vertexFormat & 0x1000000) ? 4 : 0);
  if (uvAt + attribBytes(uvSel, 2) > stride) {
    return st.error(ErrorCode::BadValue, fmt::format("vertex format 0x{:X} needs more than stride {}", vertexFormat, stride),
                    "stride");
  }
  const bool normals = nrmSel == kFmtFloat || nrmSel == kFmtCompNorm;
  const bool uvs = uvSel == kFmtFloat;
  if ((nrmSel != 0 && !normals) || (uvSel != 0 && !uvs)) {
    if (ctx.provenance != nullptr) {
      ctx.provenance->warn("native-attribute",
                           fmt::format("Xbox vertex format 0x{:X}: integer normals/UVs not decoded", vertexFormat));
    }
  }
  geo.positions.resize(nv);
  if (normals) geo.normals.resize(nv);
  if (uvs) geo.uvs.resize(nv);
  for (size_t v = 0; v < nv; ++v) {
    RP_ASSIGN(ByteReader vr, st.sub(stride, Field("vertexBuffer", static_cast<int64_t>(v))));
    for (int k = 0; k < 3; ++k) { RP_ASSIGN(geo.positions[v][k], vr.f32("position")); }
    if (nrmSel == kFmtFloat) {
      for (int k = 0; k < 3; ++k) { RP_ASSIGN(geo.normals[v][k], vr.f32("normal")); }
    } else if (nrmSel == kFmtCompNorm) {
      RP_ASSIGN(const uint32_t packed, vr.u32("normal"));
      geo.normals[v] = unpackCompNorm(packed);
    }
    if (uvs) {
      RP_CHECK(vr.seek(uvAt, "uv"));
      for (int k = 0; k < 2; ++k) { RP_ASSIGN(geo.uvs[v][k], vr.f32("uv")); }
    }
  }
  return Ok{};
}

}  // namespace rigport::renderware
