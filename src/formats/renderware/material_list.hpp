// MaterialList 0x08 and Material 0x07 (format note renderware.md §1.2; librw Geometry::streamRead
// → MaterialList::streamRead, Material::streamRead, Texture::streamRead): the material colours and
// texture names a rig's materials are made from.
#pragma once

#include <vector>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "formats/renderware/dff_layout.hpp"
#include "formats/renderware/dff_stream.hpp"

namespace rigport::renderware {

// Struct {i32 numMaterials, i32 index[numMaterials]} (-1: a Material chunk follows; otherwise an
// instance of an earlier entry), then the Material chunks. Extensions (MatFX, Rockstar plugins)
// carry nothing a rig uses and are skipped by size.
Result<std::vector<RwMaterial>> readMaterialList(ByteReader& r);

// Writes every material as a new one (index -1); an empty list writes one white, untextured
// material so that triangles with material 0 stay valid.
void writeMaterialList(ByteWriter& w, const std::vector<RwMaterial>& materials, uint32_t version, uint32_t libraryId);

}  // namespace rigport::renderware
