// Bin Mesh PLG 0x50E (per-material index lists of a geometry) and primitive expansion.
// Layout (librw src/mesh.cpp): u32 flags (0 triangle list, 1 strip), u32 numMeshes,
// u32 totalIndices, per mesh u32 numIndices, u32 materialIndex, then the indices: u32 for
// generic geometry, u16 for WDGL native geometry, none for Xbox/D3D native geometry.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"

namespace rigport::renderware {

// Appends triangles (v0, v1, v2) from a list or a strip (degenerate strip triangles dropped,
// every odd one flipped to keep the winding).
template <class Index>
void appendPrimitives(std::span<const Index> idx, bool strip, std::vector<uint32_t>& out) {
  if (!strip) {
    for (size_t i = 0; i + 2 < idx.size(); i += 3) out.insert(out.end(), {idx[i], idx[i + 1], idx[i + 2]});
    return;
  }
  for (size_t i = 0; i + 2 < idx.size(); ++i) {
    const uint32_t a = idx[i], b = idx[i + 1], c = idx[i + 2];
    if (a == b || b == c || a == c) continue;
    if (i % 2 == 0) {
      out.insert(out.end(), {a, b, c});
    } else {
      out.insert(out.end(), {b, a, c});
    }
  }
}
inline void appendPrimitives(const std::vector<uint16_t>& idx, bool strip, std::vector<uint32_t>& out) {
  appendPrimitives(std::span<const uint16_t>(idx), strip, out);
}

// Reads the triangles of a Bin Mesh PLG payload into `out` (empty when the meshes carry no
// indices, as for Xbox native geometry) and, per triangle, its mesh's material into `materials`.
Status readBinMesh(ByteReader& r, std::vector<uint32_t>& out, std::vector<uint16_t>* materials = nullptr);

// Writes a triangle-list Bin Mesh with u32 indices, as librw does for generic geometry: one mesh
// per material in `triangleMaterials` (per triangle; missing entries are material 0).
void writeBinMesh(ByteWriter& w, std::span<const uint32_t> indices, const std::vector<uint16_t>& triangleMaterials,
                  uint32_t libraryId);

}  // namespace rigport::renderware
