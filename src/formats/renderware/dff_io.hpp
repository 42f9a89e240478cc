// RenderWare 3 DFF (clump) reader and writer: frames, HAnim hierarchy, geometry, Skin PLG.
// Format note: shared/formats/renderware.md §1.1–1.9.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"

namespace rigport::renderware {

bool probeDff(std::span<const uint8_t> bytes);
// Every count is charged to ctx.budget before anything is allocated.
Result<Rig> readDff(std::span<const uint8_t> bytes, ReadContext& ctx);
inline Result<Rig> readDff(std::span<const uint8_t> bytes) {
  ReadContext ctx;
  return readDff(bytes, ctx);
}

struct DffWriteOptions {
  uint32_t version = 0x36003;  // RW version to stamp; below 0x34000 the old Skin PLG layout is written
};
Result<std::vector<uint8_t>> writeDff(const Rig& rig, const DffWriteOptions& options);
inline Result<std::vector<uint8_t>> writeDff(const Rig& rig) { return writeDff(rig, DffWriteOptions{}); }

}  // namespace rigport::renderware
