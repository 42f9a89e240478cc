// BattleForge .drs (skeleton, skin, meshes) and .ska (animations) reader and writer, and the .dds
// textures its materials name.
// Format note: shared/formats/battleforge_drs.md §2–§9; seed 003 (CSkSkeleton validation rules).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"

namespace rigport::battleforge {

bool probeDrs(std::span<const uint8_t> bytes);
// One Rig in BattleForge axes (axes.hpp). Every count is charged to ctx.budget before allocating.
Result<Rig> readDrs(std::span<const uint8_t> bytes, ReadContext& ctx);
inline Result<Rig> readDrs(std::span<const uint8_t> bytes) {
  ReadContext ctx;
  return readDrs(bytes, ctx);
}
// CDspJointMap, CSkSkinInfo, CSkSkeleton, CDspMeshFile and CGeoMesh (the add-on's WriteOrder),
// each mesh a BattleforgeMesh of at most 65 536 vertices (16-bit indices).
Result<std::vector<uint8_t>> writeDrs(const Rig& rig);

bool probeSka(std::span<const uint8_t> bytes);
// One clip whose tracks name their bone by Bone.version (BoneRef::id).
Result<ClipSet> readSka(std::span<const uint8_t> bytes, ReadContext& ctx);
inline Result<ClipSet> readSka(std::span<const uint8_t> bytes) {
  ReadContext ctx;
  return readSka(bytes, ctx);
}
// The rig's first animation as a type-6 SKA (a .ska holds one clip).
Result<std::vector<uint8_t>> writeSka(const Rig& rig);
// One animation as a SKA; its tracks' bones are looked up in `skeleton` for their versions.
Result<std::vector<uint8_t>> writeSka(const Animation& anim, const Skeleton& skeleton);

bool probeDds(std::span<const uint8_t> bytes);
// One texture (unnamed: the registry names it after the file's stem, which the material names) with
// every mip level the header gives, decoded to RGBA8. Each level is charged to ctx.budget first.
Result<Asset> readDds(std::span<const uint8_t> bytes, ReadContext& ctx);
Result<std::vector<ItemInfo>> listDds(std::span<const uint8_t> bytes, ReadContext& ctx);

}  // namespace rigport::battleforge
