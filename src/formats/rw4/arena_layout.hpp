// RenderWare 4 arena layout: the constants and records rigport reads and writes, each citing the
// section of the format note (shared/formats/rw4_arena.md) it implements. Where the note corrects
// the walkthrough (shared/seeds/000, Ethanw05/sK8 BoneSkinning.md) the note's word is used.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"

namespace rigport::rw4 {

// §2.1: "\x89RW4", a 4-byte platform body, "\r\n\x1A\n".
constexpr std::array<uint8_t, 4> kMagicPrefix{0x89, 'R', 'W', '4'};
constexpr std::array<uint8_t, 4> kMagicSuffix{0x0D, 0x0A, 0x1A, 0x0A};
constexpr char kMajorVersion[4] = {'4', '5', '4', '\0'};  // §2.1 targarena.h "4.5.5.4"
constexpr char kMinorVersion[4] = {'0', '0', '0', '\0'};

// §2.1: the platform tag, the number N of resource descriptors (base-resource kinds), and the
// endianness the header's isBigEndian byte must agree with (ArenaFileHeader::IsValid compares it).
enum class Platform : uint8_t { Ps3, Xbox360, Wii, Pc };
struct PlatformInfo {
  Platform platform;
  std::array<char, 4> tag;
  uint32_t numResources;
  bool bigEndian;
  uint32_t alignment;  // header 0x28 (PS3/X360 16, Wii 32, sK8 Arena.cs); PC as Spore writes it
  const char* name;
};
constexpr std::array<PlatformInfo, 4> kPlatforms{{
    {Platform::Ps3, {'p', 's', '3', '\0'}, 6, true, 0x10, "PS3"},
    {Platform::Xbox360, {'x', 'b', '2', '\0'}, 5, true, 0x10, "Xbox 360"},
    {Platform::Wii, {'r', 'e', 'v', '\0'}, 4, true, 0x20, "Wii"},
    {Platform::Pc, {'w', '3', '2', '\0'}, 4, false, 0x10, "PC"},
}};
const PlatformInfo& platformInfo(Platform p);

// §2.1 ArenaFileHeader field offsets.
constexpr size_t kHeaderIsBigEndian = 0x0C;
constexpr size_t kHeaderPointerBits = 0x0D;
constexpr size_t kHeaderCounts = 0x18;          // buildNo, id, numEntries, numUsed, alignment, virt, dictStart, sections, base, unfix, fix
constexpr size_t kResourceDescriptors = 0x44;   // {u32 size, u32 align}[N], then resourcesUsed[N], resource ptrs u32[N], arenaGroup
// Where the header ends and the section manifest starts: 0xC0 on PS3 (N=6), 0xAC X360, 0x98 Wii/PC.
constexpr uint32_t headerSize(uint32_t numResources) { return static_cast<uint32_t>(kResourceDescriptors + 20 * numResources + 4); }

// §2.2 section type ids and their fixed header sizes.
enum SectionType : uint32_t {
  kSectionManifest = 0x00010004,        // {type, numEntries=4, dictOffset=0xC}, u32[4] offsets from the manifest start
  kSectionTypes = 0x00010005,           // {type, count, dictOffset=0xC}, u32 typeId[count]; entry 0 is 0
  kSectionExternalArenas = 0x00010006,  // {type, count, dictOffset, ...}
  kSectionSubreferences = 0x00010007,   // {type, numEntries, dictAfterRefix, recordsAfterRefix, dict, records, numUsed}
  kSectionAtoms = 0x00010008,           // {type, numEntries, atomTable}
};
constexpr uint32_t kManifestEntries = 4;  // types, external arenas, subreferences, atoms (in that order)

// §2.3 dictionary row, 0x18 bytes.
constexpr size_t kDictEntrySize = 0x18;
struct DictEntry {
  uint32_t ptr = 0;  // main memory: file offset; base resource: offset inside its resource (§2.4)
  uint32_t reloc = 0;
  uint32_t size = 0;
  uint32_t align = 0;
  uint32_t typeIndex = 0;
  uint32_t typeId = 0;
  // Resolved while reading the arena:
  uint64_t fileOffset = 0;  // where the object's bytes start in the file
  int32_t resource = 0;     // 0 = main memory, k+1 for base resource type 0x10030 + k (§2.4)
  bool inFile = false;      // [fileOffset, fileOffset + size) lies inside the file
};

// §2.2 subreference record {u32 objectId (dict index), u32 offset within that object}.
struct SubreferenceRecord {
  uint32_t object = 0;
  uint32_t offset = 0;
};

// §2.4 base resources: type 0x10030 + k lives in resource descriptor k + 1.
constexpr uint32_t kBaseResourceFirst = 0x00010030;
constexpr uint32_t kBaseResourceLast = 0x0001003F;
constexpr bool isBaseResource(uint32_t typeId) { return typeId >= kBaseResourceFirst && typeId <= kBaseResourceLast; }
constexpr uint32_t kPs3GraphicsResource = 0x00010034;  // §2.4: PS3 GPU data, descriptor 5 (GRAPHICS_LOCAL)
constexpr uint32_t kPcBufferResource = 0x00010030;     // §2.4: Spore PC buffers, descriptor 1

// §2.5 object type ids rigport reads or writes.
enum ObjectType : uint32_t {
  kVertexDescriptor = 0x000200E9,
  kVertexBuffer = 0x000200EA,
  kIndexBuffer = 0x000200EB,
  kMeshHelper = 0x00020081,
  kKeyframeAnim = 0x00070001,
  kSkeleton = 0x00070002,
  kAnimationSkin = 0x00070003,
  kRenderMeshData = 0x00EB0000,
  kRenderModelData = 0x00EB0001,
  kVersionData = 0x00EB0008,
  kTableOfContents = 0x00EB000B,
  kRenderOptiMeshData = 0x00EB0023,
};
// A short name for `rigport info` ("RenderModelData", "BaseResource 4", "0x00EB0042").
std::string typeName(uint32_t typeId);

// §2.6: references to other objects are dictionary indices whose top bits select a table.
constexpr uint32_t kRefTableShift = 22;
constexpr uint32_t kRefIndexMask = (1u << kRefTableShift) - 1;
enum RefTable : uint32_t { kRefObject = 0, kRefNone = 1, kRefSubreference = 2 };
constexpr uint32_t kRefNoneValue = kRefNone << kRefTableShift;
constexpr uint32_t subreference(uint32_t record) { return (kRefSubreference << kRefTableShift) | record; }

// §3.1 VertexDescriptor: 16-byte header, 8-byte elements from +0x10, 8 trailing bytes.
constexpr size_t kVertexDescriptorHeader = 0x10;
constexpr size_t kVertexElementSize = 8;
constexpr size_t kMaxVertexElements = 16;
constexpr std::array<uint8_t, 8> kVertexDescriptorTrailer{0xFF, 0x00, 0xFF, 0x00, 0, 0, 0, 0};
constexpr uint8_t kElementClassPerVertex = 1;

// §3.1 vertexType = RSX/GCM vertex base type.
enum VertexType : uint8_t {
  kS1 = 0x01,     // int16, signed normalised
  kF = 0x02,      // float32
  kSF = 0x03,     // half float
  kUB = 0x04,     // uint8 normalised to [0, 1]
  kS32K = 0x05,   // int16, not normalised
  kCMP = 0x06,    // one u32 per vector: X 11, Y 11, Z 10 bits, signed normalised, W = 1
  kUB256 = 0x07,  // uint8 0..255, not normalised
};
const char* vertexTypeName(uint8_t type);
// Bytes of one component (CMP: the whole vector); 0 for an unknown type.
constexpr size_t componentSize(uint8_t type) {
  switch (type) {
    case kUB:
    case kUB256: return 1;
    case kS1:
    case kS32K:
    case kSF: return 2;
    case kF:
    case kCMP: return 4;
    default: return 0;
  }
}

// §3.1 element type (usage) codes on PS3: the RSX attribute slots.
enum ElementUsage : uint8_t {
  kXYZ = 0,
  kWeights = 1,
  kNormal = 2,
  kVertexColor = 3,
  kSpecular = 4,
  kIndices = 7,
  kTex0 = 8,
  kTangent = 14,
  kBinormal = 15,
};

// §3.1: the weights and indices elements hold at most four components, so a vertex at most four
// influences; Spore's likewise (docs/spore_meshes.md: UBYTE4 indices, UBYTE4N weights; a
// BlendShapeBuffer that says more has the rest dropped).
constexpr size_t kMaxInfluences = 4;

// §3.1 element: u8 vertexType, u8 numComponents, u8 stream, u8 offset, u16 stride, u8 usage, u8 elementClass.
struct VertexElement {
  uint8_t vertexType = 0;
  uint8_t numComponents = 0;
  uint8_t stream = 0;
  uint8_t offset = 0;
  uint16_t stride = 0;
  uint8_t usage = 0;
  uint8_t elementClass = kElementClassPerVertex;
};

// §3.2 VertexBuffer (0x10 bytes) and IndexBuffer (0x14 bytes) field values rigport writes.
constexpr size_t kVertexBufferSize = 0x10;
constexpr size_t kIndexBufferSize = 0x14;
constexpr uint32_t kIndexBufferFlags = 2;            // +0x0C, role unverified (§9)
constexpr uint32_t kIndexBufferTrailer = 0x01000000;  // +0x10

// §3.3 PS3 island draw parameters, 12 bytes: {u32 startIndex, u32 indexCount, u8 primType + 3 pad}.
constexpr size_t kDrawParamsSize = 12;
constexpr uint8_t kPrimitiveTriangles = 5;  // CELL_GCM_PRIMITIVE_TRIANGLES

// §4.1 RenderModelData (pegasus::tRModelData): field offsets; pointers are object-relative.
namespace model {
constexpr size_t kIBPMatrices = 0x20;
constexpr size_t kMeshTable = 0x24;
constexpr size_t kBoneNameTable = 0x28;
constexpr size_t kBoneNameList = 0x2C;
constexpr size_t kNumTotalBones = 0x30;
constexpr size_t kNumMeshes = 0x32;
constexpr size_t kNumBones = 0x34;
constexpr size_t kNumIslands = 0x36;
constexpr size_t kIslandAABBs = 0x38;
constexpr size_t kIslandAreas = 0x3C;
constexpr size_t kHeaderSize = 0x40;
constexpr size_t kMatrixSize = 64;     // Matrix44, 16 floats
constexpr size_t kMeshTableEntry = 8;  // {mesh ref, material ref}
constexpr size_t kAABBSize = 32;       // Vector4 min, Vector4 max
constexpr size_t kAreaSize = 16;       // Vector4
}  // namespace model

// §4.2 RenderOptiMeshData (pegasus::tROptiMeshData).
namespace optimesh {
constexpr size_t kNumVerts = 0x20;
constexpr size_t kMaterial = 0x24;
constexpr size_t kVertexDescriptor = 0x28;
constexpr size_t kMeshHelper = 0x2C;
constexpr size_t kIndexBuffer = 0x30;
constexpr size_t kVertexBuffer = 0x34;
constexpr size_t kNumIslands = 0x38;
constexpr size_t kIslandAreas = 0x3C;
constexpr size_t kIslandAABBs = 0x40;
constexpr size_t kIslandDrawParams = 0x44;
constexpr size_t kNumRemapIndices = 0x48;
constexpr size_t kRemapTable = 0x4C;
constexpr size_t kNumBlendShapes = 0x50;
constexpr size_t kHeaderSize = 0x60;
// The walkthrough's palette rule (seed §4), right only for one island: u16s from +0x6C (after one
// 12-byte draw-param record at +0x60) until 0xFFFF or a value >= the bone count.
constexpr size_t kOneIslandRemapTable = 0x6C;
constexpr uint16_t kRemapSentinel = 0xFFFF;
}  // namespace optimesh

// §5 RW animation objects (Spore layouts). Pointers are file-absolute in PC arenas (VERIFIED,
// §2.6); elsewhere rigport takes them as object-relative, the Skate convention (no file to check).
namespace skeleton {
constexpr size_t kHeaderSize = 24;  // {pBoneFlags, pBoneParents, pBoneNames, count, skeletonID, count}
}
namespace animskin {
constexpr size_t kHeaderSize = 16;  // {pData, count, ?, ?}
constexpr size_t kBoneSize = 64;    // 3×4 rows padded to vec4, then translation vec3 + pad
}
// §5 KeyframeAnim 0x70001 (align 16). Field offsets from SporeModder-FX RWKeyframeAnim.java (the
// note's source): a 48-byte header, channel ids u32[count], channel info {u32 pos (object-relative,
// §5), u32 poseSize, u32 components}[count], then each channel's keys.
namespace keyframeanim {
constexpr size_t kChannelNames = 0x00;
constexpr size_t kChannelCount = 0x04;
constexpr size_t kSkeletonId = 0x08;
constexpr size_t kChannelData = 0x10;
constexpr size_t kPaddingEnd = 0x14;
constexpr size_t kLength = 0x20;
constexpr size_t kFlags = 0x28;
constexpr size_t kChannelInfo = 0x2C;
constexpr size_t kHeaderSize = 0x30;
constexpr size_t kChannelInfoSize = 12;
// Key kinds (§5): quaternion x,y,z,w, then location, [scale], padding, and the key's time as the
// pose's last float (LocRot is 32 bytes in the note, 36 in RWKeyframe.java: the stored poseSize decides).
constexpr uint32_t kLocRotScale = 0x601;  // 48 B: quat, vec3 loc, vec3 scale, pad, time
constexpr uint32_t kLocRot = 0x101;       // 36 B: quat, vec3 loc, pad, time
constexpr uint32_t kBlendFactor = 0x100;  // 8 B: factor, time
constexpr size_t kLocRotScaleSize = 48;
constexpr size_t kBlendFactorSize = 8;
}  // namespace keyframeanim

}  // namespace rigport::rw4
