// RenderWare 3 and the games on it: the DFF clump (frames, HAnim hierarchy, geometry, Skin PLG;
// renderware.md §1.1–1.9), the .anm Anim Animation (§2), GTA's IFP packages (§4) and texture dictionaries.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"
#include "core/source.hpp"

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
// The rig written into a copy of `base`, a DFF (`convert --base`, dff_onto.cpp): what the edit
// changed of frames, geometry and skin replaced, every other byte kept; an edit the original's other
// chunks cannot follow (another bone, mesh, vertex or triangle count, native geometry) is refused.
Result<std::vector<uint8_t>> writeDffOnto(const Rig& rig, const Source& base, ReadContext& ctx);

bool probeAnm(std::span<const uint8_t> bytes);
Result<ClipSet> readAnm(std::span<const uint8_t> bytes, ReadContext& ctx);
inline Result<ClipSet> readAnm(std::span<const uint8_t> bytes) {
  ReadContext ctx;
  return readAnm(bytes, ctx);
}
// Writes every animation of the rig as a type-1 (uncompressed) Anim Animation chunk, tracks
// ordered by the rig's joint order (HAnim node order).
Result<std::vector<uint8_t>> writeAnm(const Rig& rig);
// Writes clips read from an .anm back by the node positions they were read with.
Result<std::vector<uint8_t>> writeAnm(const ClipSet& clips);

// Texture dictionaries (.txd, txd_layout.hpp): PC D3D8/D3D9 rasters decoded to RGBA8 with their mips.
bool probeTxd(std::span<const uint8_t> bytes);
// The textures in Asset::textures; a damaged texture native is skipped with a `texture-skipped`
// warning, another platform's raster and a size beyond the bytes or the budget refuse the file.
Result<Asset> readTxd(std::span<const uint8_t> bytes, ReadContext& ctx);
// One item per texture native (its name where the platform's layout is known), without decoding.
Result<std::vector<ItemInfo>> listTxd(std::span<const uint8_t> bytes, ReadContext& ctx);

bool probeIfp(std::span<const uint8_t> bytes);
Result<ClipSet> readIfp(std::span<const uint8_t> bytes, ReadContext& ctx);
inline Result<ClipSet> readIfp(std::span<const uint8_t> bytes) {
  ReadContext ctx;
  return readIfp(bytes, ctx);
}

}  // namespace rigport::renderware
