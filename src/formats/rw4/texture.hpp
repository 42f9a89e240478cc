// The textures an arena holds (texture_layout.hpp): Skate's PS3 Texture objects and Spore's PC
// Raster objects, decoded through the image room, each named by the TableOfContents entry that
// names its row.
#pragma once

#include <vector>

#include "core/byte_reader.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "core/texture.hpp"
#include "formats/rw4/arena.hpp"

namespace rigport::rw4 {

// Every Texture and Raster object of the arena. One whose format, shape or bytes rigport does not
// read is skipped with a warning naming its row and the reason; a size the budget refuses
// (TooLarge) refuses the file, as a TXD's does.
Result<std::vector<Texture>> readArenaTextures(const Arena& arena, const ByteReader& root, Provenance& prov);

}  // namespace rigport::rw4
