// Mario Super Sluggers (Wii) model block reader and writer: GPL meshes, ACT bones, SKN skinning.
// Format note: shared/formats/sluggers.md §2–§6 (layout in model_layout.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/source.hpp"
#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"
#include "formats/sluggers/model_layout.hpp"

namespace rigport::sluggers {

// A model block starts with u32 0 and a GPL pointer of 0x20 whose section opens with the GPL
// magic (§2: [MSSDAT] insists on word0 == 0 and a GPL pointer in 0x20..0x40; sections are 32-aligned).
bool probeModel(std::span<const uint8_t> bytes);
Result<Rig> readModel(std::span<const uint8_t> bytes, ReadContext& ctx);
inline Result<Rig> readModel(std::span<const uint8_t> bytes) {
  ReadContext ctx;
  return readModel(bytes, ctx);
}

// How the writer stores the rigid (unskinned) arrays; the skinned array is always s16 with the
// SKN shift (§6). The fractional bits are the most the values allow.
struct ModelWriteOptions {
  GxType positions = GxType::S16;
  GxType normals = GxType::S16;
  GxType uvs = GxType::S16;
  // Write SK bone indices as depth-first (boneArray) positions instead of bone ids (§6, open
  // question 6); only for testing that the reader tells the two apart.
  bool depthFirstBoneIndex = false;
};
Result<std::vector<uint8_t>> writeModel(const Rig& rig, const ModelWriteOptions& options);
inline Result<std::vector<uint8_t>> writeModel(const Rig& rig) { return writeModel(rig, ModelWriteOptions{}); }

// The rig written into a copy of `base`, a model block (`convert --base`, issue 28): the values the
// edit changed replaced in place, as the original stores them, every other byte kept; what would
// change the block's counts or structure is refused (model_onto.cpp).
Result<std::vector<uint8_t>> writeModelOnto(const Rig& rig, const Source& base, ReadContext& ctx);

// The offsets are checked (ascending, aligned, inside the file) and the first member must be a
// model block or an ANM bank, so a file that merely starts with a small number is not taken.
bool probeArchive(std::span<const uint8_t> bytes);
Result<std::vector<ItemInfo>> listArchive(const Source& source, ReadContext& ctx);
Result<Asset> readArchive(const Source& source, ReadContext& ctx);


}  // namespace rigport::sluggers
