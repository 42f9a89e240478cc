// FrameList 0x0E: the frame records and their extensions (Node Name, HAnim PLG, User Data name)
// (format note renderware.md §1.2–1.4).
#pragma once

#include <vector>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "formats/renderware/dff_layout.hpp"
#include "formats/renderware/dff_stream.hpp"

namespace rigport::renderware {

// Reads a FrameList payload. Parent indices are range-checked here; their order is not (the
// clump reader reorders frames whose parent follows them).
Result<std::vector<RwFrame>> readFrameList(ByteReader& r, const DffContext& ctx);

// Writes the FrameList chunk: Struct, then one Extension per frame holding its HAnim PLG and
// Node Name in that order (DragonFF #221: the game expects HAnim first).
void writeFrameList(ByteWriter& w, const std::vector<RwFrame>& frames, uint32_t libraryId);

}  // namespace rigport::renderware
