// BattleForge .drs (skeleton, skin, meshes) and .ska (animations) reader and writer.
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

}  // namespace rigport::battleforge
