// The skeleton of one RenderModelData: bind pose by inverting each inverse bind matrix (walkthrough
// §3), parents from where they can be had (rw4_arena.md §4.1, §9: the arena stores none): the
// user's hierarchy manifest, else an RW Skeleton object (0x70002, §5) of the same bone count, else
// every bone under the first with a warning.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "core/hierarchy_manifest.hpp"
#include "core/rig.hpp"
#include "formats/rw4/model_data.hpp"

namespace rigport::rw4 {

// Parents by file bone index (-1 for a root) and where they came from, for the warnings.
struct ParentSource {
  const BoneParentMap* manifest = nullptr;
  std::optional<std::vector<int32_t>> skeletonObject;  // RW Skeleton 0x70002 parents, when its count matches
};

// Fills rig.skeleton (bones parents-first, joints in the file's global bone order) and returns, for
// each file bone, its index in rig.skeleton.bones. A manifest that makes a cycle is an error.
Result<std::vector<uint32_t>> buildSkeleton(const ModelData& md, const ParentSource& parents, Rig& rig);

}  // namespace rigport::rw4
