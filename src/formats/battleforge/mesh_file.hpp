// CDspMeshFile (battleforge_drs.md §7): BattleforgeMeshes (one per material) with their vertex
// streams and material blocks. Streams of unknown revisions are skipped by size, as the C# reader
// does (the add-on would desync), with a warning.
#pragma once

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/battleforge/drs_layout.hpp"

namespace rigport::battleforge {

Result<CDspMeshFile> readMeshFile(ByteReader& r, Provenance* provenance);
// Streams 133121 (position, normal, uv), 12288 (tangents, written as zeros) and, for a mesh with
// weights, 12; material_parameters 0xFADED001 with the mesh's textures.
void writeMeshFile(ByteWriter& w, const CDspMeshFile& file);

}  // namespace rigport::battleforge
