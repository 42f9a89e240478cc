// RenderWare 4 arena (.psg Skate 3 PS3, .rw4 PC) reader and writer: skeletons from RenderModelData,
// skinned meshes from RenderOptiMeshData, RW Skeleton/AnimationSkin objects.
// Format note: shared/formats/rw4_arena.md (§2 container, §3 render objects, §4 Pegasus objects, §5 RW
// animation objects); walkthrough: shared/seeds/000 (where the note corrects it, the note wins).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"
#include "core/source.hpp"
#include "formats/rw4/arena_layout.hpp"

namespace rigport::rw4 {

bool probeArena(std::span<const uint8_t> bytes);
// Every dictionary row: id = row index, kind "object" or "resource" (a BaseResource), name = type
// name and id and where the bytes lie (main memory or which resource), bytes = its size.
Result<std::vector<ItemInfo>> listArena(const Source& source, ReadContext& ctx);
// One Rig per RenderModelData (parents from ctx.options.boneParents, else a Skeleton object of the
// same bone count, whose name hashes the bones then carry, else all bones under the first with a
// warning); a Skeleton object no RenderModelData uses becomes a rig of its own (bones named by their
// hashes); the KeyframeAnims form one ClipSet whose tracks bind by those hashes.
Result<Asset> readArena(const Source& source, ReadContext& ctx);

// Element types of the vertex stream the writer lays out (§3.1); usage codes are the PS3 ones.
struct VertexLayout {
  uint8_t position = kF;
  uint8_t normal = kCMP;
  uint8_t uv = kSF;
  uint8_t weights = kUB;
  uint8_t indices = kUB256;
};

struct ArenaWriteOptions {
  Platform platform = Platform::Ps3;
  VertexLayout layout;
  uint32_t islandsPerMesh = 1;  // each mesh's triangles split into this many draw ranges (§3.3)
  // Also write an RW Skeleton 0x70002 with the parents (§5), which RenderModelData cannot hold;
  // without it a reader needs a hierarchy manifest.
  bool skeletonObject = true;
  // With skeletonObject: also an AnimationSkin 0x70003 (the inverse bind matrices) and one
  // KeyframeAnim 0x70001 per animation (LocRotScale keys), as Spore's PC models carry them (§5).
  bool animationObjects = false;
  uint32_t arenaId = 0;
  // PC only: the meshes in Spore's own objects (VertexDescription, VertexBuffer, IndexBuffer, Mesh;
  // docs/spore_meshes.md) as Spore's models carry them: no RenderModelData or RenderOptiMeshData;
  // the Skeleton and AnimationSkin always, the KeyframeAnims (with animationObjects) listed in an
  // Animations map 0xFF0001 under their ids. Bones and clips keep the ids they were read with
  // (Bone::nameHash, a "0x%08X" name), else the FNV-1 hash of the lower-cased name. `layout` and
  // `islandsPerMesh` do not apply: Spore's vertex is the one spore_mesh.hpp describes.
  bool sporeMeshes = false;
  // PS3 layout (not sporeMeshes): also a RenderMaterialData holding the rig's materials
  // (docs/rw4_materials.md; material.hpp says which channels), each RenderOptiMeshData naming its
  // first part's material through a subreference (§4). Without it m_pMaterial names none.
  bool materials = false;
};

// One RenderModelData with the rig's bones and inverse bind matrices, one RenderOptiMeshData +
// VertexDescriptor + VertexBuffer + IndexBuffer + MeshHelper per mesh, buffers in the platform's
// graphics base resource. Influences beyond 4 per vertex keep the 4 largest; an unskinned mesh is
// bound to its attach bone (or the first bone). Refused: no bones, > 65535 bones or vertices per mesh,
// more than 256 palette bones in a mesh with 8-bit indices.
Result<std::vector<uint8_t>> writeArena(const Rig& rig, const ArenaWriteOptions& options);
inline Result<std::vector<uint8_t>> writeArena(const Rig& rig) { return writeArena(rig, ArenaWriteOptions{}); }

// The rig written into a copy of `base`, an arena it was read from (`convert --base`, issue 28;
// arena_onto.cpp says what is written, kept and refused): the same size, every object in place.
Result<std::vector<uint8_t>> writeArenaOnto(const Rig& rig, const Source& base, ReadContext& ctx);

}  // namespace rigport::rw4
