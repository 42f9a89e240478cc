#include "formats/renderware/dff_places.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "formats/renderware/chunk.hpp"
#include "formats/renderware/dff_layout.hpp"
#include "formats/renderware/dff_stream.hpp"
#include "formats/renderware/skin_plg.hpp"

namespace rigport::renderware {
namespace {

constexpr uint32_t kGeometryListSince = 0x30400;   // §1.2: before it Geometry sits inside Atomic
constexpr uint32_t kSurfacePropsBefore = 0x34000;  // §1.2: 12 bytes of surface props below this
constexpr size_t kFrameRecordSize = 56;

ChunkSpan spanOf(const ByteReader& payload) {
  const auto start = static_cast<size_t>(payload.fileOffsetOfStart());
  return {start - kChunkHeaderSize, start + payload.size()};
}

size_t here(const ByteReader& r) { return static_cast<size_t>(r.fileOffset()); }

Result<SkinPlace> placeSkin(const ByteReader& payload, uint32_t numVertices, uint32_t version) {
  ByteReader r = payload;
  RP_ASSIGN(const SkinPlg skin, readSkinPlg(r, numVertices, DffContext{version, 0, nullptr}));
  SkinPlace s;
  s.chunk = spanOf(payload);
  s.oldLayout = skin.oldLayout;
  s.numBones = skin.numBones;
  s.numUsedBones = s.oldLayout ? 0 : skin.numUsedBones;
  s.maxWeights = skin.maxWeights;
  const size_t start = static_cast<size_t>(payload.fileOffsetOfStart());
  s.usedBonesAt = start + 4;
  s.indicesAt = s.usedBonesAt + s.numUsedBones;
  s.weightsAt = s.indicesAt + 4ull * numVertices;
  s.matricesAt = s.weightsAt + 16ull * numVertices;
  if (!s.oldLayout) {
    RP_ASSIGN(ByteReader split, payload.window(s.matricesAt - start + 64ull * s.numBones, 12, "splitData"));
    RP_CHECK(split.skip(4, "boneLimit"));
    RP_ASSIGN(s.splitMeshes, split.u32("numMeshes"));
  }
  return s;
}

Status placeGeometryStruct(ByteReader& g, uint32_t version, GeometryPlace& gp) {
  RP_ASSIGN(ByteReader st, readChunk(g, kStruct, "Struct"));
  gp.flagsAt = here(st);
  RP_ASSIGN(gp.flags, st.u32("flags"));
  RP_ASSIGN(gp.numTriangles, st.u32("numTriangles"));
  RP_ASSIGN(gp.numVertices, st.u32("numVertices"));
  RP_ASSIGN(gp.numMorphTargets, st.u32("numMorphTargets"));
  if (version < kSurfacePropsBefore) RP_CHECK(st.skip(12, "surfaceProperties"));
  gp.native = (gp.flags & kGeoNative) != 0;
  const size_t nv = gp.numVertices;
  uint32_t numUvSets = (gp.flags >> 16) & 0xFF;
  if (numUvSets == 0) numUvSets = (gp.flags & kGeoTextured2) ? 2 : (gp.flags & kGeoTextured) ? 1 : 0;
  if (gp.flags & kGeoPrelit) gp.perVertex.push_back("prelit colours");
  if (numUvSets > 1) gp.perVertex.push_back(fmt::format("{} UV sets", numUvSets));
  if (gp.numMorphTargets > 1) gp.perVertex.push_back(fmt::format("{} morph targets", gp.numMorphTargets));
  if (!gp.native) {
    if (gp.flags & kGeoPrelit) RP_CHECK(st.skip(4 * nv, "prelitColours"));
    for (uint32_t s = 0; s < numUvSets; ++s) {
      if (s == 0) gp.uvsAt = here(st);
      RP_CHECK(st.skip(8 * nv, "uvs"));
    }
    gp.trianglesAt = here(st);
    RP_CHECK(st.skip(8ull * gp.numTriangles, "triangles"));
  }
  if (gp.numMorphTargets == 0) return Ok{};
  gp.sphereAt = here(st);
  RP_CHECK(st.skip(16, "boundingSphere"));
  RP_ASSIGN(const uint32_t hasVertices, st.u32("hasVertices"));
  RP_ASSIGN(const uint32_t hasNormals, st.u32("hasNormals"));
  if (hasVertices != 0) {
    gp.positionsAt = here(st);
    RP_CHECK(st.skip(12 * nv, "vertices"));
  }
  if (hasNormals != 0) gp.normalsAt = here(st);
  return Ok{};
}

Status placeGeometry(ByteReader g, uint32_t version, DffPlaces& places) {
  places.chunks.push_back(spanOf(g));
  GeometryPlace gp;
  gp.index = places.geometries.size();
  RP_CHECK(placeGeometryStruct(g, version, gp));
  RP_CHECK(readChunk(g, kMaterialList, "MaterialList"));
  if (!g.atEnd()) {
    RP_ASSIGN(ByteReader e, readChunk(g, kExtension, "Extension"));
    places.chunks.push_back(spanOf(e));
    RP_CHECK(forEachChunk(e, "chunk", [&](const ChunkHeader& h, ByteReader& c) -> Status {
      if (h.type == kBinMeshPlg) gp.binMesh = spanOf(c);
      if (h.type != kBinMeshPlg && h.type != kSkinPlg && h.type != kNativeDataPlg && h.type != kVertexFormatPlg && h.type != kMorphPlg) {
        gp.perVertex.push_back(fmt::format("chunk 0x{:X}", h.type));
      }
      if (h.type != kSkinPlg) return Ok{};
      if (gp.native) {
        gp.nativeSkin = true;
        return Ok{};
      }
      RP_ASSIGN(gp.skin, placeSkin(c, gp.numVertices, version));
      places.chunks.push_back(gp.skin->chunk);  // its used-node list can grow
      return Ok{};
    }));
  }
  places.geometries.push_back(std::move(gp));
  return Ok{};
}

Status placeFrames(ByteReader& clump, DffPlaces& places) {
  RP_ASSIGN(ByteReader fl, readChunk(clump, kFrameList, "FrameList"));
  places.chunks.push_back(spanOf(fl));  // a frame's name can grow
  RP_ASSIGN(ByteReader st, readChunk(fl, kStruct, "Struct"));
  RP_ASSIGN(const uint32_t numFrames, st.u32("numFrames"));
  RP_ASSIGN(const size_t n, st.count(numFrames, kFrameRecordSize, "frames"));
  places.frames.resize(n);
  for (FramePlace& f : places.frames) {
    f.at = here(st);
    for (float& v : f.matrix) {
      RP_ASSIGN(v, st.f32("matrix"));
    }
    RP_ASSIGN(f.parent, st.s32("parent"));
    RP_CHECK(st.skip(4, "flags"));
  }
  for (FramePlace& f : places.frames) {
    ChunkHeader h;
    RP_ASSIGN(ByteReader e, readChunk(fl, kExtension, "Extension", &h));
    f.extension = spanOf(e);
    f.extensionLibraryId = h.libraryId;
    places.chunks.push_back(f.extension);
    RP_CHECK(forEachChunk(e, "chunk", [&](const ChunkHeader& c, ByteReader& payload) -> Status {
      if (c.type == kNodeName) f.nodeName = spanOf(payload);
      return Ok{};
    }));
    if (f.nodeName) places.chunks.push_back(*f.nodeName);  // a new name changes its length
  }
  return Ok{};
}

}  // namespace

Result<DffPlaces> findPlaces(std::span<const uint8_t> bytes) {
  DffPlaces places;
  ByteReader root(bytes);
  ChunkHeader h;
  RP_ASSIGN(ByteReader clump, readChunk(root, kClump, "Clump", &h));
  places.chunks.push_back(spanOf(clump));
  RP_CHECK(readChunk(clump, kStruct, "Struct"));
  RP_CHECK(placeFrames(clump, places));
  if (h.version >= kGeometryListSince) {
    RP_ASSIGN(ByteReader gl, readChunk(clump, kGeometryList, "GeometryList"));
    places.chunks.push_back(spanOf(gl));
    RP_ASSIGN(ByteReader st, readChunk(gl, kStruct, "Struct"));
    RP_ASSIGN(const uint32_t numGeometries, st.u32("numGeometries"));
    RP_ASSIGN(const size_t ng, gl.count(numGeometries, kChunkHeaderSize, "Geometry"));
    for (size_t i = 0; i < ng; ++i) {
      RP_ASSIGN(ByteReader g, readChunk(gl, kGeometry, "Geometry"));
      RP_CHECK(placeGeometry(g, h.version, places));
    }
  }
  RP_CHECK(forEachChunk(clump, "chunk", [&](const ChunkHeader& ch, ByteReader& a) -> Status {
    if (ch.type != kAtomic) return Ok{};
    RP_ASSIGN(ByteReader st, readChunk(a, kStruct, "Struct"));
    RP_CHECK(st.skip(4, "frameIndex"));
    RP_ASSIGN(uint32_t geometry, st.u32("geometryIndex"));
    if (h.version < kGeometryListSince) {
      places.chunks.push_back(spanOf(a));
      RP_ASSIGN(ByteReader g, readChunk(a, kGeometry, "Geometry"));
      geometry = static_cast<uint32_t>(places.geometries.size());
      RP_CHECK(placeGeometry(g, h.version, places));
    }
    places.atomicGeometry.push_back(geometry);
    return Ok{};
  }));
  return places;
}

void applySplices(std::vector<uint8_t>& file, std::vector<Splice> splices, const std::vector<ChunkSpan>& chunks) {
  // Last first, so the offsets of those still to come hold.
  std::sort(splices.begin(), splices.end(), [](const Splice& a, const Splice& b) { return a.at > b.at; });
  for (const Splice& s : splices) {
    const uint32_t grown = static_cast<uint32_t>(s.bytes.size()) - static_cast<uint32_t>(s.removed);  // mod 2^32
    for (const ChunkSpan& c : chunks) {
      if (c.header + kChunkHeaderSize > s.at || s.at + s.removed > c.end) continue;
      uint8_t* size = file.data() + c.header + 4;
      const uint32_t was = static_cast<uint32_t>(size[0] | size[1] << 8 | size[2] << 16) | static_cast<uint32_t>(size[3]) << 24;
      const uint32_t now = was + grown;
      for (int k = 0; k < 4; ++k) size[k] = static_cast<uint8_t>(now >> (8 * k));
    }
    const auto at = file.begin() + static_cast<std::ptrdiff_t>(s.at);
    file.erase(at, at + static_cast<std::ptrdiff_t>(s.removed));
    file.insert(file.begin() + static_cast<std::ptrdiff_t>(s.at), s.bytes.begin(), s.bytes.end());
  }
}

}  // namespace rigport::renderware
