// HAnim PLG 0x11E, the frame extension that carries a bone id and, on one frame, the node
// hierarchy (format note renderware.md §1.4).
#pragma once

#include <cstdint>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "core/rig.hpp"
#include "formats/renderware/dff_layout.hpp"
#include "formats/renderware/dff_stream.hpp"

namespace rigport::renderware {

// Reads the payload of one HAnim PLG chunk (§1.4: flags/keyFrameSize only when numNodes > 0).
Result<HAnimPlg> readHAnimPlg(ByteReader& r, const DffContext& ctx);
void writeHAnimPlg(ByteWriter& w, const HAnimPlg& plg, uint32_t libraryId);

// §1.4 PUSH/POP walk: parent node index of each node (-1 for a root). `balanced` is false when a
// POP found the stack empty before the last node (a malformed hierarchy).
std::vector<int32_t> hanimParents(const std::vector<HAnimNode>& nodes, bool* balanced);

// The inverse: node flags for nodes listed depth-first with parent node indices `parents`
// (POP = no child follows, PUSH = a later sibling follows), so hanimParents() gives them back.
std::vector<int32_t> hanimFlagsFromParents(const std::vector<int32_t>& parents);

// The HAnim node order the writers give a skeleton's joints: depth-first, children in the order
// they appear in `joints`, so an already depth-first list keeps its order (PUSH/POP can only
// express a preorder, §1.4). The DFF writer numbers its HAnim nodes so and the .anm writer its
// tracks, since an .anm binds by node position (renderware.md §1.10): one order for both.
struct HAnimNodeOrder {
  std::vector<uint32_t> bones;   // bone of each node
  std::vector<int32_t> parents;  // parent node of each node (-1 at a root)
};
HAnimNodeOrder hanimNodeOrder(const Skeleton& skeleton, const std::vector<uint32_t>& joints);

}  // namespace rigport::renderware
