// Spore's meshes (docs/spore_meshes.md; layouts in spore_mesh_layout.hpp): Mesh objects 0x20009,
// each a range of triangles of an IndexBuffer 0x20007 over a VertexBuffer 0x20005 whose
// VertexDescription 0x20004 says where positions, normals, UVs and blend indices / weights lie.
// Read into the model's skinned meshes; written back in the same layout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/byte_writer.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/rw4/arena.hpp"
#include "formats/rw4/arena_places.hpp"

namespace rigport::rw4 {

// A blend-shape mesh's shapes as the clips that key them name them: the BlendShape object (0xFF0002)
// paired with its BlendShapeBuffer (docs/spore_meshes.md).
struct SporeMorphMesh {
  std::string mesh;                     // the rig mesh's name
  std::optional<uint32_t> blendShapeId;  // the BlendShape's id (BlendFactor clips give it as their skeleton id)
  std::vector<uint32_t> shapeIds;       // its shape ids, one per morph target in order
};

struct SporeMesh {
  Mesh mesh;
  std::optional<SporeMorphMesh> morph;  // a BlendShapeBuffer mesh
  std::vector<uint32_t> rows;  // the Mesh, VertexBuffer, IndexBuffer and VertexDescription rows it came from
  SporeMeshPlace place;        // where its vertices' elements lie (for --base)
};

// Every Mesh object of the arena, one Mesh per vertex buffer (its triangles the Mesh objects'
// ranges in dictionary order). Blend index i names file bone i / 3 of the arena's skeleton, which
// `fileToRig` maps to the rig's bones. A damaged Mesh, buffer or element is skipped with a warning
// naming its row and field; an index that is no multiple of 3 or names no bone is dropped and
// counted. A BlendShapeBuffer (0x200AF) in place of the vertex buffer gives the mesh's base
// positions, normals, UVs and skin and one morph target per shape (position deltas as stored, normal
// deltas from the shape's own normals), named by the shape ids of the BlendShape object (0xFF0002)
// of as many shapes, paired in dictionary order (rigport's rule: no decoder says how Spore pairs them).
std::vector<SporeMesh> readSporeMeshes(const Arena& arena, const ByteReader& root, const std::vector<uint32_t>& fileToRig,
                                       Provenance& prov);

// Whether the arena holds any Spore Mesh object.
bool hasSporeMeshes(const Arena& arena);

// One mesh in Spore's layout (the Blender add-on's 36-byte vertex: float3 position, packed normal,
// packed tangent, float2 UV, UBYTE4 blend indices as 3 × the bone, UBYTE4N weights; no normal,
// UV or tangent when the mesh has none). Blend index 3 × b names rig bone b: the writer's Skeleton
// object lists the rig's bones in its own order.
struct SporeMeshBytes {
  std::vector<uint8_t> description;  // the VertexDescription object
  std::vector<uint8_t> vertices;     // the vertex bytes (a BaseResource)
  std::vector<uint8_t> indices;      // u16 triangle list (a BaseResource)
  uint32_t stride = 0;
  uint32_t vertexCount = 0;
};
// Influences beyond 4 keep the 4 largest; an unskinned mesh rides bone 0. Refused: more than 65535
// vertices, or an influence on a bone past 85 (3 × 85 is the largest byte blend index).
Result<SporeMeshBytes> encodeSporeMesh(const Mesh& mesh, size_t meshIndex);

// The VertexBuffer, IndexBuffer and Mesh objects over rows of the VertexDescription and buffers.
void writeSporeVertexBuffer(ByteWriter& w, const SporeMeshBytes& m, uint32_t descriptionRow, uint32_t vertexBytesRow);
void writeSporeIndexBuffer(ByteWriter& w, const SporeMeshBytes& m, uint32_t indexBytesRow);
void writeSporeMeshObject(ByteWriter& w, const SporeMeshBytes& m, uint32_t indexBufferRow, uint32_t vertexBufferRow);

// A mesh with morph targets as the Blender add-on writes one (rw4_exporter.py export_as_blend_shape,
// docs/spore_meshes.md): the BlendShapeBuffer object (header, then position base and deltas, normals
// base and each shape's own (base + normal delta), tangents likewise with UVs, texcoords, u16 blend
// indices 3 × bone and f32 weights) beside a u16 index list and the VertexDescription the add-on
// writes for it (no blend indices). Refused: more than 65535 vertices or a delta count that is not
// the vertex count.
struct SporeBlendShapeBytes {
  SporeMeshBytes mesh;               // description, indices, vertexCount (vertices and stride unused)
  std::vector<uint8_t> buffer;       // the BlendShapeBuffer object
  std::vector<uint32_t> shapeIds;    // one per morph target: sporeNameId of its name (shape_<i> when it has none)
  uint32_t blendShapeId = 0;         // sporeNameId of the mesh's name (the add-on: of the Blender object's)
};
Result<SporeBlendShapeBytes> encodeSporeBlendShapeMesh(const Mesh& mesh, size_t meshIndex);
// The BlendShape object 0xFF0002 over its two subreferences (shape times at +0x1C, ids after them).
void writeSporeBlendShape(ByteWriter& w, const SporeBlendShapeBytes& b, uint32_t timesSubreference, uint32_t idsSubreference);

// The id a Spore arena names a bone, clip, shape or blend shape by: the name when it is 0x<8 hex
// digits> (as rigport reads ids), else FNV-1 (32-bit) of it lower-cased, as the Blender add-on's
// file_io.get_hash hashes names (which also reads "#<hex>" and gives an empty name 0).
uint32_t sporeNameId(const std::string& name);

}  // namespace rigport::rw4
