// Turns the decoded clump pieces into the neutral Rig: frames → bones (parents first), HAnim
// nodes → skeleton joints, atomics → meshes with skin influences (format note §1.3–1.5, §1.9).
#pragma once

#include <functional>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"
#include "core/rig_storage.hpp"
#include "formats/renderware/dff_layout.hpp"

namespace rigport::renderware {

// A read that hands its meshes over one at a time (ReadOptions::meshBuilt). Its geometries were
// checked as they were read and then released (arrays gone; counts, platform, materials and the
// skin's header and matrices kept): `reload` reads geometry i again before each use, `release`
// lets it go after its last, and `meshBuilt` gets each mesh once built and checked.
struct MeshByMesh {
  std::function<Status(size_t geometry)> reload;
  std::function<void(size_t geometry)> release;
  std::function<Status(Rig& rig, size_t rigIndex, size_t mesh)> meshBuilt;
};

// Stable topological order: each frame after its parent, otherwise stream order (§1.2: librw
// assumes parent < child, real files may not); bone i of the rig is frame result[i]. Empty = a
// parent cycle.
std::vector<uint32_t> parentFirstOrder(const std::vector<RwFrame>& frames);

// `frameListOffset` locates errors about the hierarchy as a whole. The geometries' vertex arrays
// are moved into the meshes (copied for atomics that share one, moved at the last); the copies and
// the influences are made in arrays from `storage` when it is set (ReadOptions::storage).
Status buildRig(const std::vector<RwFrame>& frames, uint64_t frameListOffset, std::vector<RwGeometry>& geometries,
                const std::vector<RwAtomic>& atomics, Rig& rig, RigStorage* storage, const MeshByMesh* byMesh = nullptr);

}  // namespace rigport::renderware
