#include "formats/renderware/geometry_binmesh.hpp"

#include <algorithm>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "formats/renderware/chunk.hpp"

namespace rigport::renderware {

Status readBinMesh(ByteReader& r, std::vector<uint32_t>& out, std::vector<uint16_t>* materials) {
  RP_ASSIGN(const uint32_t flags, r.u32("flags"));
  RP_ASSIGN(const uint32_t numMeshes, r.u32("numMeshes"));
  RP_ASSIGN(const uint32_t totalIndices, r.u32("totalIndices"));
  RP_ASSIGN(const size_t meshes, r.count(numMeshes, 8, "meshes"));
  const uint64_t dataBytes = r.remaining() - 8ull * meshes;
  const uint64_t indexSize = totalIndices == 0 ? 0 : dataBytes / totalIndices;
  if (indexSize != 0 && indexSize != 2 && indexSize != 4) {
    return r.error(ErrorCode::BadValue,
                   fmt::format("{} index bytes for {} indices", dataBytes, totalIndices), "totalIndices");
  }
  for (size_t m = 0; m < meshes; ++m) {
    auto scope = r.scope(Field("meshes", static_cast<int64_t>(m)));
    RP_ASSIGN(const uint32_t numIndices, r.u32("numIndices"));
    RP_ASSIGN(const uint32_t material, r.u32("materialIndex"));
    if (indexSize == 4) {
      RP_ASSIGN(std::vector<uint32_t> idx, r.array<uint32_t>(numIndices, "indices"));
      appendPrimitives(std::span<const uint32_t>(idx), flags & 1, out);
    } else if (indexSize == 2) {
      RP_ASSIGN(std::vector<uint16_t> idx, r.array<uint16_t>(numIndices, "indices"));
      appendPrimitives(std::span<const uint16_t>(idx), flags & 1, out);
    }
    if (materials != nullptr) materials->resize(out.size() / 3, static_cast<uint16_t>(std::min<uint32_t>(material, 0xFFFF)));
  }
  return Ok{};
}

void writeBinMesh(ByteWriter& w, std::span<const uint32_t> indices, const std::vector<uint16_t>& triangleMaterials,
                  uint32_t libraryId) {
  const size_t triangles = indices.size() / 3;
  auto materialOf = [&](size_t t) { return t < triangleMaterials.size() ? triangleMaterials[t] : uint16_t{0}; };
  // One mesh per material, in material order as librw sorts them. Where every triangle has the same
  // material (most meshes) the index list is that mesh as it is, written without a copy.
  const uint16_t firstMaterial = triangles == 0 ? uint16_t{0} : materialOf(0);
  bool oneMaterial = true;
  for (size_t t = 1; t < triangles && oneMaterial; ++t) oneMaterial = materialOf(t) == firstMaterial;
  std::map<uint16_t, std::vector<uint32_t>> byMaterial;
  std::vector<std::pair<uint16_t, std::span<const uint32_t>>> meshes;
  if (oneMaterial) {
    meshes.emplace_back(firstMaterial, std::span<const uint32_t>(indices.data(), 3 * triangles));
  } else {
    for (size_t t = 0; t < triangles; ++t) {
      std::vector<uint32_t>& list = byMaterial[materialOf(t)];
      list.insert(list.end(), indices.begin() + static_cast<std::ptrdiff_t>(3 * t), indices.begin() + static_cast<std::ptrdiff_t>(3 * t + 3));
    }
    for (const auto& [material, list] : byMaterial) meshes.emplace_back(material, list);
  }
  const size_t at = beginChunk(w, kBinMeshPlg, libraryId);
  w.u32(0);
  w.u32(static_cast<uint32_t>(meshes.size()));
  w.u32(static_cast<uint32_t>(3 * triangles));
  for (const auto& [material, list] : meshes) {
    w.u32(static_cast<uint32_t>(list.size()));
    w.u32(material);
    w.records<uint32_t>(list);
  }
  endChunk(w, at);
}

}  // namespace rigport::renderware
