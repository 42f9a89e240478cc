// RenderOptiMeshData 0x00EB0023 (rw4_arena.md §4.2) with its VertexDescriptor, VertexBuffer and
// IndexBuffer (§3.1–3.3): positions, normals, UVs, triangles and per-vertex (global bone, weight)
// pairs through the remap table (the bone palette).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"
#include "core/rig_storage.hpp"
#include "formats/rw4/arena.hpp"
#include "formats/rw4/arena_places.hpp"

namespace rigport::rw4 {

// §3.1 VertexDescriptor: the elements (at most 16).
Result<std::vector<VertexElement>> readVertexDescriptor(ByteReader obj);

// One mesh; a mesh with no blend indices is static (no influences, on the model's root), and one
// with no positions either is skipped with a warning (empty). Its influences name rig bones: `fileToRig` maps the file's bone order
// (RenderModelData's, which the palette uses) to the rig's, and its size is the bone count. With
// `place`, where the skin stream's elements and palette lie (for --base). With a `storage`
// (ReadOptions::storage), its arrays are taken from it (core/rig_storage.hpp).
Result<std::optional<Mesh>> readOptiMesh(const Arena& arena, const ByteReader& root, uint32_t index,
                                         const std::vector<uint32_t>& fileToRig, Provenance& prov, OptiMeshPlace* place = nullptr,
                                         RigStorage* storage = nullptr);

}  // namespace rigport::rw4
