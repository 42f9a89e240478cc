// RenderWare animations: Anim Animation chunks 0x1B (.anm, interpolator types 1 and 2) and GTA IFP
// packages (ANPK, ANP3). Format note: shared/formats/renderware.md §1.10 and §4.
// These files carry no skeleton: tracks hold BoneRefs (node position for .anm, bone id + name for
// IFP) and bindAnimations() (core/bind.hpp) attaches them to a skeleton from a DFF.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport::renderware {

bool probeAnm(std::span<const uint8_t> bytes);
Result<Rig> readAnm(std::span<const uint8_t> bytes);
// Writes every animation of the rig as a type-1 (uncompressed) Anim Animation chunk, tracks
// ordered by the rig's joint order (HAnim node order).
Result<std::vector<uint8_t>> writeAnm(const Rig& rig);

bool probeIfp(std::span<const uint8_t> bytes);
Result<Rig> readIfp(std::span<const uint8_t> bytes);

}  // namespace rigport::renderware
