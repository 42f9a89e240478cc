// RenderWare animations: Anim Animation chunks 0x1B (.anm, interpolator types 1 and 2) and GTA IFP
// packages (ANPK, ANP3). Format note: shared/formats/renderware.md §1.10 and §4.
// These files carry no skeleton: tracks hold BoneRefs (node position for .anm, bone id + name for
// IFP) and bindAnimations() (core/bind.hpp) attaches them to a skeleton from a DFF.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"

namespace rigport::renderware {

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

bool probeIfp(std::span<const uint8_t> bytes);
Result<ClipSet> readIfp(std::span<const uint8_t> bytes, ReadContext& ctx);
inline Result<ClipSet> readIfp(std::span<const uint8_t> bytes) {
  ReadContext ctx;
  return readIfp(bytes, ctx);
}

}  // namespace rigport::renderware
