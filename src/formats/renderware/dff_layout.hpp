// In-memory form of the DFF pieces rigport reads and writes, between the byte stream and the Rig.
// Each struct names the format note section (shared/formats/renderware.md) it implements.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

namespace rigport::renderware {

// Chunk ids rigport meets but does not model (§1.2): skipped without a warning.
enum IgnoredChunk : uint32_t {
  kLight = 0x12,
  kCamera = 0x05,
  kRightToRender = 0x1F,
  kMorphPlg = 0x105,
  kMatFxPlg = 0x120,
  kVertexFormatPlg = 0x511,      // Xbox native vertex format word (§1.7)
  kPipelineSet = 0x0253F2F3,
  kTwoDEffect = 0x0253F2F8,
  kExtraVertColour = 0x0253F2F9,
  kBreakable = 0x0253F2FD,
};

// Native platform ids (§1.7, DragonFF NativePlatformType).
enum Platform : uint32_t {
  kPlatformWdgl = 2,
  kPlatformPs2 = 4,
  kPlatformXbox = 5,
  kPlatformGameCube = 6,
  kPlatformD3d8 = 8,
  kPlatformD3d9 = 9,
  kPlatformPsp = 10,
};
const char* platformName(uint32_t platform);

// Geometry flags (§1.2; librw rwobjects.h Geometry::Flags).
enum GeometryFlag : uint32_t {
  kGeoTriStrip = 0x01,
  kGeoPositions = 0x02,
  kGeoTextured = 0x04,
  kGeoPrelit = 0x08,
  kGeoNormals = 0x10,
  kGeoLight = 0x20,
  kGeoModulate = 0x40,
  kGeoTextured2 = 0x80,
  kGeoNative = 0x01000000,
};

// HAnim node flags (§1.4, librw rwplugins.h HAnimHierarchy::NodeFlag).
enum HAnimNodeFlag : int32_t { kHAnimPop = 1, kHAnimPush = 2 };
constexpr int32_t kHAnimVersion = 0x100;     // §1.4: librw asserts it
constexpr int32_t kHAnimKeyFrameSize = 36;   // §1.4: standard HAnim keys

// §1.4 node record {id, index, flags}.
struct HAnimNode {
  int32_t id = -1;
  int32_t index = 0;
  int32_t flags = 0;
};

// §1.4 HAnim PLG payload. `nodes` non-empty only on the frame owning the hierarchy.
struct HAnimPlg {
  int32_t version = kHAnimVersion;
  int32_t nodeId = -1;
  int32_t hierarchyFlags = 0;
  int32_t keyFrameSize = kHAnimKeyFrameSize;
  std::vector<HAnimNode> nodes;
  uint64_t offset = 0;  // file offset of the chunk, for messages
};

// §1.2 FrameList record (56 bytes) plus its extension. `matrix` columns: right, up, at, pos
// (an RwMatrix in row-vector form is the column-major column-vector matrix, §1.9).
struct RwFrame {
  glm::mat4 matrix{1.0f};
  int32_t parent = -1;
  uint32_t flags = 0;
  std::optional<std::string> name;  // Node Name 0x0253F2FE (§1.3) or User Data "name"
  std::optional<HAnimPlg> hanim;
};

// §1.5 Skin PLG (generic), also the form native skins are decoded into (§1.7).
struct SkinPlg {
  uint32_t numBones = 0;
  uint32_t numUsedBones = 0;
  uint32_t maxWeights = 0;
  std::vector<uint8_t> usedBones;
  std::vector<std::array<uint8_t, 4>> indices;  // per vertex: HAnim node indices
  std::vector<std::array<float, 4>> weights;    // per vertex
  // The new-layout reader leaves `indices` and `weights` empty and keeps where they lie in the file
  // instead (4 bytes, then 16 bytes of little-endian f32 a vertex): the mesh is built from them
  // there, without a copy. nodeBytes()/weightBytes() give either form in that layout.
  std::span<const uint8_t> fileIndices, fileWeights;
  std::vector<glm::mat4> inverseMatrices;       // per node, pads forced to (0,0,0,1)
  bool oldLayout = false;

  const uint8_t* nodeBytes() const {
    return fileIndices.empty() ? reinterpret_cast<const uint8_t*>(indices.data()) : fileIndices.data();
  }
  const uint8_t* weightBytes() const {
    return fileWeights.empty() ? reinterpret_cast<const uint8_t*>(weights.data()) : fileWeights.data();
  }
  size_t vertexCount() const { return fileIndices.empty() ? indices.size() : fileIndices.size() / 4; }
};

// §1.2 Material (librw Material::streamRead): flags, RGBA colour, unused, textured, surface
// properties (version > 0x30400), then a Texture chunk (Struct, name String, mask String) when
// textured.
struct RwMaterial {
  std::array<uint8_t, 4> colour{255, 255, 255, 255};  // RGBA as stored (sRGB)
  std::string texture;  // empty: untextured
  std::string mask;
};

// §1.2 Geometry, reduced to what a Rig needs. Triangle list only.
struct RwGeometry {
  uint32_t flags = 0;
  uint32_t platform = 0;  // native geometry's platform id (§1.7); 0 for generic geometry
  uint32_t numVertices = 0;
  // positions.size() as read (not always numVertices: native geometry counts its own), kept when
  // a mesh-by-mesh read releases the arrays until the geometry's first use.
  size_t vertexCount = 0;
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;
  std::vector<glm::vec2> uvs;
  std::vector<uint32_t> indices;
  std::vector<uint16_t> triangleMaterials;  // per triangle: index into `materials`
  std::vector<RwMaterial> materials;        // the MaterialList, instances resolved
  std::optional<SkinPlg> skin;
};

// §1.2 Atomic: which frame carries which geometry.
struct RwAtomic {
  uint32_t frameIndex = 0;
  uint32_t geometryIndex = 0;
  uint64_t offset = 0;  // file offset of the chunk, for messages
};

}  // namespace rigport::renderware
