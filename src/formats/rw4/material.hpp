// Skate's materials (docs/rw4_materials.md): each RenderMaterialData's tRMaterials as rig materials
// whose diffuse and normal channels name textures by their TableOfContents GUID, and which material
// each RenderOptiMeshData draws with.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "core/rig.hpp"
#include "formats/rw4/arena.hpp"

namespace rigport::rw4 {

// How a material channel, and the texture arena's TOC entry it matches, name a texture: "0x" and
// the GUID in 16 lower-case hex digits (rw4_materials.md §3, §5).
std::string textureGuidName(uint64_t guid);

struct ArenaMaterials {
  std::vector<Material> materials;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> byRef;  // {RenderMaterialData row, tRMaterial offset} -> index
};

// Every RenderMaterialData of the arena. An object whose header or tables do not fit it is skipped,
// a material or channel that does not read costs that material's or channel's binding: each an
// `rw4-material` warning naming the row and the field.
ArenaMaterials readArenaMaterials(const Arena& arena, const ByteReader& root, Provenance& prov);

// The material RenderOptiMeshData `row` draws with (its m_pMaterial subreference, §4), if any of
// `materials`; a reference that resolves to none is an `rw4-material` warning.
std::optional<uint32_t> meshMaterial(const Arena& arena, const ByteReader& root, uint32_t row, const ArenaMaterials& materials,
                                     Provenance& prov);

// Writes one RenderMaterialData (§1–§3) holding `materials` in order, tRMaterial i at
// material::kHeaderSize + i · kMaterialSize. A material's channels are those it was read with
// (extras.rw4.channels), else a Name channel (its name), a diffuse channel (its colour map) and a
// normal channel (its normal map), each texture written only when its name is a "0x<guid>".
void writeMaterialData(ByteWriter& w, const std::vector<Material>& materials);

}  // namespace rigport::rw4
