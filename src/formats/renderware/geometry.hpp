// Geometry 0x0F: struct, morph target 0, material list and the extension with the
// Skin PLG, Bin Mesh and native data (format note renderware.md §1.2, §1.5, §1.7).
#pragma once

#include <span>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "formats/renderware/dff_layout.hpp"
#include "formats/renderware/dff_stream.hpp"

namespace rigport::renderware {

// Reads a Geometry payload. Native geometry is decoded for Xbox and WDGL; other platforms are
// ErrorCode::Unsupported naming the platform.
Result<RwGeometry> readGeometry(ByteReader& r, const DffContext& ctx);

// librw MorphTarget::calculateBoundingSphere: centre of the bounding box, radius = half its
// diagonal (x, y, z, radius).
glm::vec4 boundingSphere(std::span<const glm::vec3> positions);

// The vertex and index arrays writeGeometry() writes, wherever they are kept: the geometry's own, or
// a mesh's that the DFF writer writes as they are (its UVs and triangles) rather than copy.
struct GeometryArrays {
  std::span<const glm::vec3> positions, normals;
  std::span<const glm::vec2> uvs;
  std::span<const uint32_t> indices;
};

// Writes a generic Geometry chunk: positions (+ normals, first UV set), triangles with their
// material ids, the MaterialList (one white material when empty), Bin Mesh and (if present) the
// Skin PLG. Its arrays are `arrays`; everything else is `geo`'s.
void writeGeometry(ByteWriter& w, const RwGeometry& geo, const GeometryArrays& arrays, uint32_t version, uint32_t libraryId);
// The same with the geometry's own arrays.
void writeGeometry(ByteWriter& w, const RwGeometry& geo, uint32_t version, uint32_t libraryId);

}  // namespace rigport::renderware
