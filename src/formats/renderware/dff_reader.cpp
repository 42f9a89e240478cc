// DFF (Clump 0x10) → Rig (format note renderware.md §1.2–1.9, §5 pitfalls).
#include <fmt/format.h>

#include "core/validate.hpp"
#include "formats/renderware/clump_rig.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/renderware/frame_list.hpp"
#include "formats/renderware/geometry.hpp"
#include "formats/renderware/axes.hpp"

namespace rigport::renderware {
namespace {

constexpr uint32_t kGeometryListSince = 0x30400;  // §1.2: before it Geometry sits inside Atomic
constexpr uint32_t kClumpLightsCamerasAfter = 0x33000;  // §1.2: Clump struct 12 bytes above it

struct ClumpData {
  std::vector<RwFrame> frames;
  std::vector<RwGeometry> geometries;
  std::vector<RwAtomic> atomics;
  uint64_t frameListOffset = 0;
  // A mesh-by-mesh read (ReadOptions::meshBuilt): each Geometry chunk, to read it again at its
  // first use, and whether geometries[i] holds its arrays now.
  bool byMesh = false;
  std::vector<ByteReader> geometryChunks;
  std::vector<bool> loaded;
  std::function<void(std::span<const uint8_t>)> releaseBytes;
};

// What a mesh-by-mesh read keeps of a geometry between its uses: all but the arrays, and none of
// the file's pages under it.
void releaseGeometry(ClumpData& clump, size_t i) {
  RwGeometry& geo = clump.geometries[i];
  // Swapped with empty vectors: `= {}` would keep the capacity.
  std::vector<glm::vec3>().swap(geo.positions);
  std::vector<glm::vec3>().swap(geo.normals);
  std::vector<glm::vec2>().swap(geo.uvs);
  std::vector<uint32_t>().swap(geo.indices);
  std::vector<uint16_t>().swap(geo.triangleMaterials);
  if (geo.skin) {
    std::vector<std::array<uint8_t, 4>>().swap(geo.skin->indices);
    std::vector<std::array<float, 4>>().swap(geo.skin->weights);
    geo.skin->fileIndices = {};
    geo.skin->fileWeights = {};
  }
  clump.loaded[i] = false;
  if (clump.releaseBytes) clump.releaseBytes(clump.geometryChunks[i].data());
}

// Reads a Geometry chunk. A mesh-by-mesh read checks it whole here, so that its warnings and
// errors come where an ordinary read has them, then releases it until buildRig needs it.
Status addGeometry(ByteReader g, const DffContext& ctx, ClumpData& clump) {
  const ByteReader chunk = g;
  RP_ASSIGN(clump.geometries.emplace_back(), readGeometry(g, ctx));
  if (clump.byMesh) {
    clump.geometryChunks.push_back(chunk);
    clump.loaded.push_back(true);
    releaseGeometry(clump, clump.geometries.size() - 1);
  }
  return Ok{};
}

Result<RwAtomic> readAtomic(ByteReader& r, const DffContext& ctx, size_t numFrames, ClumpData& clump) {
  RwAtomic atomic;
  atomic.offset = r.fileOffsetOfStart();
  {
    RP_ASSIGN(ByteReader st, readChunk(r, kStruct, "Struct"));
    // §1.2: 12 bytes before 0x30400 (no geometry index meaning), 16 after.
    RP_ASSIGN(atomic.frameIndex, st.u32("frameIndex"));
    RP_ASSIGN(atomic.geometryIndex, st.u32("geometryIndex"));
    if (atomic.frameIndex >= numFrames) {
      return st.errorAt(0, ErrorCode::BadValue, fmt::format("frame {} of {}", atomic.frameIndex, numFrames), "frameIndex");
    }
  }
  if (ctx.version < kGeometryListSince) {
    RP_ASSIGN(ByteReader g, readChunk(r, kGeometry, "Geometry"));
    RP_CHECK(addGeometry(g, ctx, clump));
    atomic.geometryIndex = static_cast<uint32_t>(clump.geometries.size() - 1);
  } else if (atomic.geometryIndex >= clump.geometries.size()) {
    return r.errorAt(0, ErrorCode::BadValue,
                     fmt::format("geometry {} of {}", atomic.geometryIndex, clump.geometries.size()), "geometryIndex");
  }
  while (!r.atEnd()) {
    ChunkHeader h;
    RP_ASSIGN(ByteReader c, readChunk(r, kExtension, "Extension", &h));
    RP_CHECK(forEachChunk(c, "chunk", [&](const ChunkHeader& ch, ByteReader& payload) -> Status {
      if (ch.type == kSkinPlg && ctx.provenance != nullptr) {
        // §1.6: pre-3.3 atomic-level skin (Zanzarah and other early titles).
        ctx.provenance->warn("legacy-skin", fmt::format("atomic-level (legacy) Skin PLG at 0x{:X} is not read",
                                                        payload.fileOffsetOfStart() - kChunkHeaderSize));
      } else {
        noteSkippedChunk(ctx, ch, payload);
      }
      return Ok{};
    }));
  }
  return atomic;
}

Status readClump(ByteReader& r, DffContext& ctx, ClumpData& clump) {
  uint32_t numAtomics = 0;
  {
    RP_ASSIGN(ByteReader st, readChunk(r, kStruct, "Struct"));
    RP_ASSIGN(numAtomics, st.u32("numAtomics"));
    // §1.2: numLights/numCameras exist above 0x33000; the struct size tells which form this is.
    const bool hasLights = st.size() >= 12;
    if (hasLights != (ctx.version > kClumpLightsCamerasAfter) && ctx.provenance != nullptr) {
      ctx.provenance->warn("clump-struct", fmt::format("Clump struct of {} bytes in a version 0x{:X} file", st.size(),
                                                       ctx.version));
    }
  }
  {
    RP_ASSIGN(ByteReader fl, readChunk(r, kFrameList, "FrameList"));
    clump.frameListOffset = fl.fileOffsetOfStart();
    RP_ASSIGN(clump.frames, readFrameList(fl, ctx));
  }
  if (ctx.version >= kGeometryListSince) {
    RP_ASSIGN(ByteReader gl, readChunk(r, kGeometryList, "GeometryList"));
    RP_ASSIGN(ByteReader st, readChunk(gl, kStruct, "Struct"));
    RP_ASSIGN(const uint32_t numGeometries, st.u32("numGeometries"));
    RP_ASSIGN(const size_t ng, gl.count(numGeometries, kChunkHeaderSize, "Geometry"));
    clump.geometries.reserve(ng);
    for (size_t i = 0; i < ng; ++i) {
      RP_ASSIGN(ByteReader g, readChunk(gl, kGeometry, Field("Geometry", static_cast<int64_t>(i))));
      RP_CHECK(addGeometry(g, ctx, clump));
    }
  }
  RP_ASSIGN(const size_t na, r.count(numAtomics, kChunkHeaderSize, "Atomic"));
  for (size_t i = 0; i < na; ++i) {
    RP_ASSIGN(ByteReader a, readChunk(r, kAtomic, Field("Atomic", static_cast<int64_t>(i))));
    RP_ASSIGN(clump.atomics.emplace_back(), readAtomic(a, ctx, clump.frames.size(), clump));
  }
  // Lights, cameras and the clump extension are not part of a rig.
  RP_CHECK(forEachChunk(r, "chunk", [&](const ChunkHeader& h, ByteReader& c) -> Status {
    if (h.type == kExtension) {
      return forEachChunk(c, "chunk", [&](const ChunkHeader& eh, ByteReader& ec) -> Status {
        noteSkippedChunk(ctx, eh, ec);
        return Ok{};
      });
    }
    if (h.type != kStruct) noteSkippedChunk(ctx, h, c);
    return Ok{};
  }));
  return Ok{};
}

// "3.6.0.3" for 0x36003 (§1.1: the decoded stamp holds one hex digit per part, two for the last).
std::string versionString(uint32_t version) {
  return fmt::format("{}.{}.{}.{}", (version >> 16) & 0xF, (version >> 12) & 0xF, (version >> 8) & 0xF, version & 0xFF);
}

// What `rigport info` shows of the file itself: RW version and the geometry's platform.
nlohmann::json renderwareExtras(uint32_t version, const std::vector<RwGeometry>& geometries) {
  std::string platform = "generic";
  for (const RwGeometry& g : geometries) {
    if (g.platform != 0) platform = platformName(g.platform);
  }
  return {{"renderware", {{"version", versionString(version)}, {"platform", platform}}}};
}

}  // namespace

bool probeDff(std::span<const uint8_t> bytes) {
  if (bytes.size() < kChunkHeaderSize) return false;
  ByteReader r(bytes);
  auto h = readChunkHeader(r, "Clump");
  return h && h->type == kClump && h->version >= 0x30000 && h->version < 0x40000;
}

Result<Rig> readDff(std::span<const uint8_t> bytes, ReadContext& readContext) {
  ByteReader root = readContext.reader(bytes);
  Rig rig;
  rig.provenance.format = "renderware-dff";
  rig.provenance.axes = kRenderWareAxes;
  ChunkHeader h;
  RP_ASSIGN(ByteReader clumpReader, readChunk(root, kClump, "Clump", &h));
  if (h.version < 0x30000 || h.version >= 0x40000) {
    return root.errorAt(8, ErrorCode::Unsupported, fmt::format("RenderWare version 0x{:X} is not RW 3", h.version),
                        "Clump/libraryId");
  }
  DffContext ctx{h.version, h.libraryId, &rig.provenance, readContext.options.storage};
  ClumpData clump;
  clump.byMesh = readContext.options.meshBuilt != nullptr;
  clump.releaseBytes = readContext.releaseBytes;
  RP_CHECK(readClump(clumpReader, ctx, clump));
  rig.extras = renderwareExtras(h.version, clump.geometries);
  if (!clump.byMesh) {
    RP_CHECK(buildRig(clump.frames, clump.frameListOffset, clump.geometries, clump.atomics, rig, ctx.storage));
  } else {
    MeshByMesh byMesh;
    byMesh.reload = [&](size_t i) -> Status {
      if (clump.loaded[i]) return Ok{};
      ByteReader again = clump.geometryChunks[i];
      again.setBudget(nullptr);  // charged when first read
      const DffContext quiet{ctx.version, ctx.libraryId, nullptr};  // its warnings were given then too
      RP_ASSIGN(clump.geometries[i], readGeometry(again, quiet));
      clump.loaded[i] = true;
      return Ok{};
    };
    byMesh.release = [&](size_t i) { releaseGeometry(clump, i); };
    byMesh.meshBuilt = readContext.options.meshBuilt;
    RP_CHECK(buildRig(clump.frames, clump.frameListOffset, clump.geometries, clump.atomics, rig, ctx.storage, &byMesh));
  }
  // Per element, buildRig's meshes are valid as built: decodeTriangles bounds every index (and the
  // native readers theirs), influences come from the node table or the unweighted joint with
  // weights that passed the bit test. The fuzz target and corpus test check that with every check.
  RP_CHECK(validate(rig, MeshChecks::Structure));
  return rig;
}

}  // namespace rigport::renderware
