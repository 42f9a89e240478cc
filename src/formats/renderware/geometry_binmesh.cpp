#include "formats/renderware/geometry_binmesh.hpp"

#include <fmt/format.h>

#include "formats/renderware/chunk.hpp"

namespace rigport::renderware {

Status readBinMesh(ByteReader& r, std::vector<uint32_t>& out) {
  const uint32_t flags = RP_TRY(r.u32("flags"));
  const uint32_t numMeshes = RP_TRY(r.u32("numMeshes"));
  const uint32_t totalIndices = RP_TRY(r.u32("totalIndices"));
  const size_t meshes = RP_TRY(r.count(numMeshes, 8, "meshes"));
  const uint64_t dataBytes = r.remaining() - 8ull * meshes;
  const uint64_t indexSize = totalIndices == 0 ? 0 : dataBytes / totalIndices;
  if (indexSize != 0 && indexSize != 2 && indexSize != 4) {
    return r.error(ErrorCode::BadValue,
                   fmt::format("{} index bytes for {} indices", dataBytes, totalIndices), "totalIndices");
  }
  for (size_t m = 0; m < meshes; ++m) {
    auto scope = r.scope(Field("meshes", static_cast<int64_t>(m)));
    const uint32_t numIndices = RP_TRY(r.u32("numIndices"));
    RP_CHECK(r.u32("materialIndex"));
    if (indexSize == 4) {
      std::vector<uint32_t> idx = RP_TRY(r.array<uint32_t>(numIndices, "indices"));
      appendPrimitives(std::span<const uint32_t>(idx), flags & 1, out);
    } else if (indexSize == 2) {
      std::vector<uint16_t> idx = RP_TRY(r.array<uint16_t>(numIndices, "indices"));
      appendPrimitives(std::span<const uint16_t>(idx), flags & 1, out);
    }
  }
  return Ok{};
}

void writeBinMesh(ByteWriter& w, const std::vector<uint32_t>& indices, uint32_t libraryId) {
  const size_t at = beginChunk(w, kBinMeshPlg, libraryId);
  w.u32(0);
  w.u32(1);
  w.u32(static_cast<uint32_t>(indices.size()));
  w.u32(static_cast<uint32_t>(indices.size()));
  w.u32(0);
  for (uint32_t i : indices) w.u32(i);
  endChunk(w, at);
}

}  // namespace rigport::renderware
