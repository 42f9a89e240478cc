// Turns the decoded clump pieces into the neutral Rig: frames → bones (parents first), HAnim
// nodes → skeleton joints, atomics → meshes with skin influences (format note §1.3–1.5, §1.9).
#pragma once

#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/renderware/dff_layout.hpp"

namespace rigport::renderware {

// `frameListOffset` locates errors about the hierarchy as a whole. The geometries' vertex arrays
// are moved into the meshes (copied for atomics that share one, moved at the last).
Status buildRig(const std::vector<RwFrame>& frames, uint64_t frameListOffset, std::vector<RwGeometry>& geometries,
                const std::vector<RwAtomic>& atomics, Rig& rig);

}  // namespace rigport::renderware
