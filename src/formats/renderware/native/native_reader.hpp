// Native (platform-instanced) geometry and skin data (format note renderware.md §1.7).
// Each platform lives in its own file, as in librw (src/d3d/xbox*.cpp, src/gl/wdgl.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/byte_reader.hpp"
#include "formats/renderware/dff_layout.hpp"
#include "formats/renderware/dff_stream.hpp"

namespace rigport::renderware {

// Per-vertex skin attributes some platforms keep in the vertex data rather than the Skin PLG.
struct NativeSkinVertices {
  std::vector<std::array<uint8_t, 4>> indices;
  std::vector<std::array<float, 4>> weights;
};

// Xbox (platform 5): Native Data PLG 0x510 = Struct{platform, header, index buffers, vertex
// buffer}; the vertex layout comes from the Vertex Format PLG 0x511 word. Fills positions,
// normals, the first UV set and triangle indices of `geo`.
Status readXboxNativeData(ByteReader& r, uint32_t vertexFormat, RwGeometry& geo, const DffContext& ctx);
// Xbox native Skin PLG Struct payload (after the platform word): numBones, table1[256],
// table2[256], numUsedBones, numWeights, pointer, stride, per-vertex byte weights + u16 palette
// indices ×3, matrices, split data.
Result<SkinPlg> readXboxSkin(ByteReader& r, uint32_t numVertices);

// OpenGL/WDGL (platform 2): Native Data PLG = numAttribs, AttribDesc[numAttribs] (24 bytes),
// interleaved vertex data. Fills positions/normals/UVs of `geo` and the skin attributes.
Status readWdglNativeData(ByteReader& r, RwGeometry& geo, NativeSkinVertices& skinVertices);
// WDGL native Skin PLG Struct payload (after the platform word): numBones, matrices.
Result<SkinPlg> readWdglSkin(ByteReader& r);

}  // namespace rigport::renderware
