// Skin PLG 0x116, generic (non-native) layout, both the old (≤ 3.3) and new form
// (format note renderware.md §1.5).
#pragma once

#include <cstdint>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "formats/renderware/dff_layout.hpp"
#include "formats/renderware/dff_stream.hpp"

namespace rigport::renderware {

// Reads a generic Skin PLG payload for a geometry of `numVertices` vertices. Old or new layout
// is decided by the chunk size (§1.5 recommendation); when the size fits neither, librw's rule
// (numUsedBones == 0 → old) decides and a "skin-layout" warning is recorded.
Result<SkinPlg> readSkinPlg(ByteReader& r, uint32_t numVertices, const DffContext& ctx);

// Writes the chunk: new layout with empty split data, or for version < 0x34000 the old layout
// (header counts 0, a 0xDEADDEAD word before each matrix, no split data) as librw/DragonFF do.
void writeSkinPlg(ByteWriter& w, const SkinPlg& skin, uint32_t version, uint32_t libraryId);

// §1.5 after an old-format read librw recomputes these: the largest number of non-zero weights
// of a vertex, and every node index that carries a non-zero weight (ascending).
void recomputeSkinSummary(SkinPlg& skin);

}  // namespace rigport::renderware
