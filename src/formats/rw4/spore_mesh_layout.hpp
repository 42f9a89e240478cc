// Spore's mesh objects, the old RW graphics family (rw4_arena.md §2.5: VDES 0x20004, VBUF 0x20005,
// IBUF 0x20007, Mesh 0x20009) and Spore's own Animations map (0xFF0001) and blend shapes (0x200AF,
// 0xFF0002), as docs/spore_meshes.md gives them from SporeModder-FX (RW*.java) and the SporeModder
// Blender add-ons (rw4_importer.py, rw4_exporter.py, rw4_enums.py). Little-endian (PC arenas only);
// references to other objects are dictionary indices (§2.6).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rigport::rw4::spore {

enum ObjectType : uint32_t {
  kVertexDescription = 0x00020004,
  kVertexBuffer = 0x00020005,
  kIndexBuffer = 0x00020007,
  kMesh = 0x00020009,
  kBlendShapeBuffer = 0x000200AF,
  kAnimations = 0x00FF0001,
  kBlendShape = 0x00FF0002,
};

// spore_meshes.md "VDES": u32, u32, u32 D3D declaration pointer, u16 element count, u8, u8 vertex
// size, u32 element flags, u32; then the elements (RWVertexDescription.java).
namespace vdes {
constexpr size_t kElementCount = 0x0C;
constexpr size_t kVertexSize = 0x0F;
constexpr size_t kElementFlags = 0x10;
constexpr size_t kHeaderSize = 0x18;
constexpr size_t kElementSize = 12;  // i16 stream, i16 offset, u8 type, u8 method, u8 usage, u8 usage index, u32 RW usage
constexpr size_t kMaxElements = 32;  // RW usage codes run 0..23; more elements would repeat one
// The last header word as the Blender add-on writes it (rw4_exporter.py, create_vertex_description).
constexpr uint32_t kField14 = 0x51010101;
}  // namespace vdes

// D3DDECLTYPE (rw4_enums.py): the element's storage.
enum DeclType : uint8_t {
  kFloat1 = 0,
  kFloat2 = 1,
  kFloat3 = 2,
  kFloat4 = 3,
  kD3DColor = 4,
  kUByte4 = 5,
  kShort2 = 6,
  kShort4 = 7,
  kUByte4N = 8,
  kShort2N = 9,
  kShort4N = 10,
  kUShort2N = 11,
  kUShort4N = 12,
  kFloat16x2 = 15,
  kFloat16x4 = 16,
};

// D3DDECLUSAGE (rw4_enums.py), stored beside the RW usage code.
enum DeclUsage : uint8_t {
  kUsagePosition = 0,
  kUsageBlendWeight = 1,
  kUsageBlendIndices = 2,
  kUsageNormal = 3,
  kUsageTexcoord = 5,
  kUsageTangent = 6,
};

// RW usage codes (RWVertexElement.java VERTEX_*, rw4_enums.py RWDECL_*): what readers go by.
enum RwDecl : uint32_t {
  kPosition = 0,
  kNormal = 2,
  kColor0 = 3,
  kTexcoord0 = 6,
  kBlendIndices = 14,
  kBlendWeights = 15,
  kTangent = 19,
};

// spore_meshes.md: blend indices are 3 × the bone index (three float4 palette rows a bone).
constexpr uint32_t kPaletteRowsPerBone = 3;

// spore_meshes.md "VBUF": ref VDES, u32, u32 base vertex index, u32 vertex count, u32, u32 vertex
// size, ref BaseResource.
namespace vbuf {
constexpr size_t kSize = 0x1C;
constexpr uint32_t kField10 = 8;  // as the Blender add-on writes it (export_as_vertex_buffer)
}  // namespace vbuf

// spore_meshes.md "IBUF": u32 D3D pointer, u32 start index (added to every index), u32 primitive
// count (the index count, as rw4_exporter.py writes it), u32 D3DUSAGE, u32 D3DFORMAT, u32
// D3DPRIMITIVETYPE, ref BaseResource.
namespace ibuf {
constexpr size_t kSize = 0x1C;
constexpr uint32_t kUsageWriteOnly = 8;  // D3DUSAGE_WRITEONLY
constexpr uint32_t kIndex16 = 101;       // D3DFMT_INDEX16, the only one Spore uses
constexpr uint32_t kIndex32 = 102;       // D3DFMT_INDEX32
}  // namespace ibuf
constexpr uint32_t kTriangleList = 4;  // D3DPT_TRIANGLELIST

// spore_meshes.md "MESH": u32, u32 primitive type, ref IBUF, u32 triangle count, u32 vertex buffer
// count, u32 first index, u32 primitive count, u32 first vertex, u32 vertex count, then the refs to
// VBUF (or a BlendShapeBuffer).
namespace mesh {
constexpr size_t kHeaderSize = 0x24;
constexpr uint32_t kField0 = 40;  // rw4_exporter.py: "I have no idea of what this is"
}  // namespace mesh

// spore_meshes.md "Animations": u32 (a subreference to itself), u32 count, count × (u32 id, ref KeyframeAnim).
namespace animations {
constexpr size_t kHeaderSize = 8;
constexpr size_t kEntrySize = 8;
}  // namespace animations

// spore_meshes.md "BlendShapeBuffer, checked against both decoders" (RWBlendShapeBuffer.java, the
// Blender add-on's rw4_base.py BlendShapeBuffer and rw4_exporter.py export_as_blend_shape): a 64-byte
// header {u32 type 1, u32 offsets[11], u32 shape count, u32 vertex count, u32, u32 blend indices a
// vertex}, then the streams, each offset counted from the object's start (0 = absent). Position and
// normal streams hold the base, then shape i at offset + 16 · (i + 1) · vertex count: positions as
// deltas, normals (and tangents) as the shape's own at weight 1.
namespace blendshapebuffer {
constexpr uint32_t kType = 1;  // FX: "other type is 0x40"; both decoders refuse it
constexpr size_t kOffsets = 0x04;
constexpr size_t kStreams = 11;
constexpr size_t kShapeCount = 0x30;
constexpr size_t kVertexCount = 0x34;
constexpr size_t kField38 = 0x38;  // unknown; the add-on writes 0
constexpr size_t kIndicesPerVertex = 0x3C;
constexpr size_t kHeaderSize = 0x40;
enum Stream : size_t {
  kPositionStream = 0,
  kNormalStream = 1,
  kTangentStream = 2,
  kTexcoordStream = 3,
  kBlendIndicesStream = 9,
  kBlendWeightsStream = 10,
};
constexpr size_t kVectorSize = 16;    // f32 x, y, z and 4 bytes of padding
constexpr size_t kTexcoordSize = 16;  // f32 u, v, then u32 0 and u32 1 as the add-on writes them
constexpr uint32_t kMaxIndicesPerVertex = 16;  // the add-on writes 4; more is no skin rigport reads
}  // namespace blendshapebuffer

// spore_meshes.md "BlendShape 0xFF0002" (rw4_base.py BlendShape): u32, u32 (runtime), u32 subreference
// to the shape times, u32 shape count, u32 subreference to the shape ids, u32 shape count again, u32
// id (the one BlendFactor KeyframeAnims give as their skeleton id), shape count × u32 times (runtime),
// shape count × u32 shape ids (hashes of the shape key names).
namespace blendshape {
constexpr size_t kTimesRef = 0x08;
constexpr size_t kShapeCount = 0x0C;
constexpr size_t kIdsRef = 0x10;
constexpr size_t kShapeCountAgain = 0x14;
constexpr size_t kId = 0x18;
constexpr size_t kHeaderSize = 0x1C;
}  // namespace blendshape

}  // namespace rigport::rw4::spore
