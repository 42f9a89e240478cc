// Spore's meshes (docs/spore_meshes.md; layouts in spore_mesh_layout.hpp): Mesh objects 0x20009,
// each a range of triangles of an IndexBuffer 0x20007 over a VertexBuffer 0x20005 whose
// VertexDescription 0x20004 says where positions, normals, UVs and blend indices / weights lie.
// Read into the model's skinned meshes; written back in the same layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/byte_writer.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/rw4/arena.hpp"
#include "formats/rw4/arena_places.hpp"

namespace rigport::rw4 {

struct SporeMesh {
  Mesh mesh;
  std::vector<uint32_t> rows;  // the Mesh, VertexBuffer, IndexBuffer and VertexDescription rows it came from
  SporeMeshPlace place;        // where its vertices' elements lie (for --base)
};

// Every Mesh object of the arena, one Mesh per vertex buffer (its triangles the Mesh objects'
// ranges in dictionary order). Blend index i names file bone i / 3 of the arena's skeleton, which
// `fileToRig` maps to the rig's bones. A damaged Mesh, buffer or element is skipped with a warning
// naming its row and field; an index that is no multiple of 3 or names no bone is dropped and
// counted. Blend-shape meshes (a BlendShapeBuffer in place of the vertex buffer) are not read: a
// warning counts them and their shapes.
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

}  // namespace rigport::rw4
