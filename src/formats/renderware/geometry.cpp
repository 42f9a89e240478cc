#include "formats/renderware/geometry.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <span>
#include <string>


#include <fmt/format.h>

#include "core/vertex_lanes.hpp"
#include "formats/renderware/geometry_binmesh.hpp"
#include "formats/renderware/material_list.hpp"
#include "formats/renderware/native/native_reader.hpp"
#include "formats/renderware/skin_plg.hpp"

namespace rigport::renderware {
namespace {

constexpr uint32_t kSurfacePropsBefore = 0x34000;  // §1.2: 12 bytes of surface props below this

struct GeometryExtension {
  std::optional<ByteReader> skin, nativeData, binMesh;
  uint32_t vertexFormat = 0;
};

uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

// §1.2: u16 sequence v1, v0, matId, v2 per triangle, decoded where they lie (no temporary array):
// one pass writes the indices and material ids and keeps the largest index; only a triangle list
// that names a vertex beyond `nv` is walked again, to name the first such triangle.
template <class ErrorAt>
Status decodeTriangles(std::span<const uint8_t> bytes, size_t nv, RwGeometry& geo, ErrorAt errorAt) {
  const size_t nt = bytes.size() / 8;
  geo.indices.resize(3 * nt);
  geo.triangleMaterials.resize(nt);
  const uint8_t* in = bytes.data();
  uint32_t* indices = geo.indices.data();
  uint16_t* materials = geo.triangleMaterials.data();
  uint32_t largest = 0;
  for (size_t t = 0; t < nt; ++t) {
    const uint8_t* p = in + 8 * t;
    const uint32_t v1 = le16(p), v0 = le16(p + 2), v2 = le16(p + 6);
    materials[t] = le16(p + 4);
    indices[3 * t] = v0;
    indices[3 * t + 1] = v1;
    indices[3 * t + 2] = v2;
    largest = std::max(largest, std::max(v0, std::max(v1, v2)));
  }
  if (nt == 0 || largest < nv) return Ok{};
  for (size_t t = 0;; ++t) {
    const uint32_t* v = indices + 3 * t;
    if (v[0] >= nv || v[1] >= nv || v[2] >= nv) {
      return errorAt(t, fmt::format("triangle ({}, {}, {}) beyond {} vertices", v[0], v[1], v[2], nv));
    }
  }
}

// Native skin = Struct{u32 platform, ...} inside the Skin PLG (§1.7).
Result<SkinPlg> readNativeSkin(ByteReader& r, RwGeometry& geo, const NativeSkinVertices& wdglVertices) {
  RP_ASSIGN(ByteReader st, readChunk(r, kStruct, "Struct"));
  const size_t at = st.position();
  RP_ASSIGN(const uint32_t platform, st.u32("platform"));
  if (platform == kPlatformXbox) return readXboxSkin(st, geo.numVertices);
  if (platform == kPlatformWdgl) {
    RP_ASSIGN(SkinPlg skin, readWdglSkin(st));
    if (wdglVertices.weights.size() != geo.numVertices || wdglVertices.indices.size() != geo.numVertices) {
      return st.errorAt(at, ErrorCode::BadValue, "WDGL native data has no skin weight/index attributes", "platform");
    }
    skin.indices = wdglVertices.indices;
    skin.weights = wdglVertices.weights;
    // librw's WDGL uninstance renormalises the byte weights by their sum (§1.7, §1.8).
    for (auto& w : skin.weights) {
      const float sum = w[0] + w[1] + w[2] + w[3];
      if (sum > 0.0f) {
        for (float& f : w) f /= sum;
      }
    }
    recomputeSkinSummary(skin);
    return skin;
  }
  return st.errorAt(at, ErrorCode::Unsupported,
                    fmt::format("native skin for platform {} ({}) is not supported", platformName(platform), platform),
                    "platform");
}

// ext.nativeData is present: the caller checks it, where the geometry's offset is known.
Status readNativeGeometry(GeometryExtension& ext, RwGeometry& geo, const DffContext& ctx,
                          NativeSkinVertices& wdglVertices) {
  ByteReader& nd = *ext.nativeData;
  auto scope = nd.scope("NativeDataPlg");
  // Xbox (and D3D) wrap the data in a Struct that starts with the platform; WDGL does not.
  uint32_t first = 0, platform = kPlatformWdgl;
  if (auto head = nd.window(0, 16, "head")) {
    RP_ASSIGN(first, head->u32("type"));
    if (first == kStruct) {
      RP_CHECK(head->skip(8, "sizeAndVersion"));
      RP_ASSIGN(platform, head->u32("platform"));
    }
  }
  geo.platform = platform;
  if (first == kStruct && platform == kPlatformXbox) {
    RP_CHECK(readXboxNativeData(nd, ext.vertexFormat, geo, ctx));
  } else if (first != kStruct) {
    RP_CHECK(readWdglNativeData(nd, geo, wdglVertices));
    if (ext.binMesh) {
      auto bs = ext.binMesh->scope("BinMeshPlg");
      RP_CHECK(readBinMesh(*ext.binMesh, geo.indices, &geo.triangleMaterials));
    }
  } else {
    return nd.error(ErrorCode::Unsupported,
                    fmt::format("native geometry for platform {} ({}) is not supported", platformName(platform),
                                platform),
                    "platform");
  }
  return Ok{};
}

}  // namespace

const char* platformName(uint32_t platform) {
  switch (platform) {
    case kPlatformWdgl: return "OpenGL/WDGL";
    case kPlatformPs2: return "PS2";
    case kPlatformXbox: return "Xbox";
    case kPlatformGameCube: return "GameCube";
    case kPlatformD3d8: return "D3D8";
    case kPlatformD3d9: return "D3D9";
    case kPlatformPsp: return "PSP";
    default: return "unknown";
  }
}

Result<RwGeometry> readGeometry(ByteReader& r, const DffContext& ctx) {
  RwGeometry geo;
  {
    RP_ASSIGN(ByteReader st, readChunk(r, kStruct, "Struct"));
    RP_ASSIGN(geo.flags, st.u32("flags"));
    RP_ASSIGN(const int32_t numTriangles, st.s32("numTriangles"));
    RP_ASSIGN(const int32_t numVertices, st.s32("numVertices"));
    RP_ASSIGN(const int32_t numMorphTargets, st.s32("numMorphTargets"));
    if (numTriangles < 0 || numVertices < 0 || numMorphTargets < 0) {
      return st.error(ErrorCode::BadValue,
                      fmt::format("negative count (triangles {}, vertices {}, morph targets {})", numTriangles,
                                  numVertices, numMorphTargets),
                      "counts");
    }
    geo.numVertices = static_cast<uint32_t>(numVertices);
    if (ctx.version < kSurfacePropsBefore) RP_CHECK(st.skip(12, "surfaceProperties"));
    const bool native = geo.flags & kGeoNative;
    // §1.2: bits 16–23 = number of UV sets; 0 means "1 if TEXTURED, 2 if TEXTURED2".
    uint32_t numUvSets = (geo.flags >> 16) & 0xFF;
    if (numUvSets == 0) numUvSets = (geo.flags & kGeoTextured2) ? 2 : (geo.flags & kGeoTextured) ? 1 : 0;
    if (!native) {
      RP_ASSIGN(const size_t nv, st.count(geo.numVertices, 0, "vertices"));
      if (geo.flags & kGeoPrelit) {
        RP_CHECK(st.count(nv, 4, "prelitColours"));
        RP_CHECK(st.skip(4 * nv, "prelitColours"));
      }
      for (uint32_t s = 0; s < numUvSets; ++s) {
        auto scope = st.scope(Field("uvSets", s));
        RP_CHECK(st.count(nv, 8, "uvs"));
        if (s == 0) {
          takeFrom(ctx.storage, geo.uvs, nv);
          RP_CHECK((st.recordsInto<glm::vec2, float>(geo.uvs, nv, "uvs")));
        } else {
          RP_CHECK(st.skip(8 * nv, "uvs"));
        }
      }
      RP_ASSIGN(const size_t nt, st.count(static_cast<uint32_t>(numTriangles), 8, "triangles"));
      const size_t trianglesAt = st.position();
      RP_ASSIGN(const std::span<const uint8_t> triangles, st.bytes(8 * nt, "triangles"));
      takeFrom(ctx.storage, geo.indices, 3 * nt);
      RP_CHECK(decodeTriangles(triangles, nv, geo, [&](size_t t, std::string message) {
        return st.errorAt(trianglesAt + 8 * t, ErrorCode::BadValue, std::move(message), Field("triangles", static_cast<int64_t>(t)));
      }));
    }
    RP_ASSIGN(const size_t nm, st.count(static_cast<uint32_t>(numMorphTargets), 24, "morphTargets"));
    for (size_t m = 0; m < nm; ++m) {
      auto scope = st.scope(Field("morphTargets", static_cast<int64_t>(m)));
      RP_CHECK(st.skip(16, "boundingSphere"));
      RP_ASSIGN(const uint32_t hasVertices, st.u32("hasVertices"));
      RP_ASSIGN(const uint32_t hasNormals, st.u32("hasNormals"));
      for (int arr = 0; arr < 2; ++arr) {
        if ((arr == 0 ? hasVertices : hasNormals) == 0) continue;
        const char* name = arr == 0 ? "vertices" : "normals";
        RP_ASSIGN(const size_t nv, st.count(geo.numVertices, 12, name));
        if (m != 0) {
          RP_CHECK(st.skip(12 * nv, name));
          continue;
        }
        std::vector<glm::vec3>& out = arr == 0 ? geo.positions : geo.normals;
        takeFrom(ctx.storage, out, nv);
        RP_CHECK((st.recordsInto<glm::vec3, float>(out, nv, name)));
      }
    }
    if (!native && geo.positions.size() != geo.numVertices) {
      return st.error(ErrorCode::BadValue, "geometry has no vertex positions", "hasVertices");
    }
  }
  {
    RP_ASSIGN(ByteReader ml, readChunk(r, kMaterialList, "MaterialList"));
    // Materials only colour the model: a list rigport cannot read costs them, not the model.
    auto materials = readMaterialList(ml);
    if (materials) {
      geo.materials = std::move(*materials);
    } else if (ctx.provenance != nullptr) {
      ctx.provenance->warn("material-list", fmt::format("{}; the geometry gets the default material",
                                                        materials.error().describe()));
    }
  }
  GeometryExtension ext;
  if (!r.atEnd()) {
    RP_ASSIGN(ByteReader e, readChunk(r, kExtension, "Extension"));
    RP_CHECK(forEachChunk(e, "chunk", [&](const ChunkHeader& h, ByteReader& c) -> Status {
      if (h.type == kSkinPlg) {
        ext.skin = c;
      } else if (h.type == kNativeDataPlg) {
        ext.nativeData = c;
      } else if (h.type == kBinMeshPlg) {
        ext.binMesh = c;
      } else if (h.type == kVertexFormatPlg) {
        RP_ASSIGN(ext.vertexFormat, c.u32("vertexFormat"));
      } else {
        noteSkippedChunk(ctx, h, c);
      }
      return Ok{};
    }));
  }
  NativeSkinVertices wdglVertices;
  if (geo.flags & kGeoNative) {
    if (!ext.nativeData) return r.errorAt(0, ErrorCode::BadValue, "native geometry (flag 0x01000000) without a Native Data PLG", "Extension");
    RP_CHECK(readNativeGeometry(ext, geo, ctx, wdglVertices));
    for (uint32_t i : geo.indices) {
      if (i >= geo.positions.size()) {
        return r.errorAt(0, ErrorCode::BadValue,
                         fmt::format("native index {} beyond {} vertices", i, geo.positions.size()), "Extension");
      }
    }
  }
  if (ext.skin) {
    ByteReader& s = *ext.skin;
    auto scope = s.scope("SkinPlg");
    if (geo.flags & kGeoNative) {
      RP_ASSIGN(geo.skin, readNativeSkin(s, geo, wdglVertices));
    } else {
      RP_ASSIGN(geo.skin, readSkinPlg(s, geo.numVertices, ctx));
    }
  }
  geo.vertexCount = geo.positions.size();
  return geo;
}

glm::vec4 boundingSphere(std::span<const glm::vec3> p) {
  if (p.empty()) return glm::vec4(0.0f);
  glm::vec3 lo = p[0], hi = p[0];
#if RIGPORT_SSE2_LANES
  lanes::growBox<false>(p.data(), p.size(), lo, hi);  // the loop below, bit for bit
#else
  for (const glm::vec3& v : p) {
    lo = glm::min(lo, v);
    hi = glm::max(hi, v);
  }
#endif
  const glm::vec3 c = (lo + hi) * 0.5f;
  return glm::vec4(c, glm::length(hi - c));
}

void writeGeometry(ByteWriter& w, const RwGeometry& geo, uint32_t version, uint32_t libraryId) {
  writeGeometry(w, geo, GeometryArrays{geo.positions, geo.normals, geo.uvs, geo.indices}, version, libraryId);
}

void writeGeometry(ByteWriter& w, const RwGeometry& geo, const GeometryArrays& arrays, uint32_t version, uint32_t libraryId) {
  const size_t at = beginChunk(w, kGeometry, libraryId);
  const size_t st = beginChunk(w, kStruct, libraryId);
  const bool hasUvs = !arrays.uvs.empty();
  const bool hasNormals = !arrays.normals.empty();
  const uint32_t flags = kGeoPositions | kGeoLight | (hasNormals ? kGeoNormals : 0u) |
                         (hasUvs ? (kGeoTextured | (1u << 16)) : 0u);
  w.u32(flags);
  w.s32(static_cast<int32_t>(arrays.indices.size() / 3));
  w.s32(static_cast<int32_t>(arrays.positions.size()));
  w.s32(1);
  if (version < kSurfacePropsBefore) {
    for (int i = 0; i < 3; ++i) w.f32(1.0f);
  }
  w.records<float>(arrays.uvs);
  std::vector<std::array<uint16_t, 4>> triangles(arrays.indices.size() / 3);  // §1.2: v1, v0, matId, v2
  const uint32_t* indices = arrays.indices.data();
  const uint16_t* materials = geo.triangleMaterials.data();
  const size_t materialCount = geo.triangleMaterials.size();
  for (size_t t = 0; t < triangles.size(); ++t) {
    triangles[t] = {static_cast<uint16_t>(indices[3 * t + 1]), static_cast<uint16_t>(indices[3 * t]),
                    t < materialCount ? materials[t] : uint16_t{0}, static_cast<uint16_t>(indices[3 * t + 2])};
  }
  w.records<uint16_t>(triangles);
  const glm::vec4 sphere = boundingSphere(arrays.positions);
  for (int k = 0; k < 4; ++k) w.f32(sphere[k]);
  w.u32(1);
  w.u32(hasNormals ? 1 : 0);
  w.records<float>(arrays.positions);
  w.records<float>(arrays.normals);
  endChunk(w, st);
  writeMaterialList(w, geo.materials, version, libraryId);
  const size_t ext = beginChunk(w, kExtension, libraryId);
  writeBinMesh(w, arrays.indices, geo.triangleMaterials, libraryId);
  if (geo.skin) writeSkinPlg(w, *geo.skin, version, libraryId);
  endChunk(w, ext);
  endChunk(w, at);
}

}  // namespace rigport::renderware
