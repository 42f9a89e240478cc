#include "formats/renderware/skin_plg.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

namespace rigport::renderware {
namespace {

constexpr uint32_t kOldMatrixPad = 0xDEADDEAD;  // §1.5: librw and DragonFF write it, MTA writes 0

enum class Layout { Old, New };

// §1.5: a new-layout chunk longer than newMin ends in split data whose numMeshes and rleSize (the
// last two u32 of the fixed 12-byte part) give the rest of its size.
bool splitDataFits(const ByteReader& r, uint64_t newMin, uint32_t nBones) {
  auto split = r.window(newMin - 8, 8, "splitData");
  if (!split) return false;
  const auto numMeshes = split->u32("numMeshes");
  const auto rleSize = split->u32("rleSize");
  return numMeshes && rleSize && *numMeshes > 0 &&
         r.size() == newMin + nBones + 2ull * (uint64_t{*numMeshes} + *rleSize);
}

// §1.5: new = 4 + nUsed + 20·nV + 64·nB + 12 (+ nB + 2·(numMeshes + rleSize) if numMeshes > 0);
// old = 4 + 20·nV + 68·nB.
Layout chooseLayout(const ByteReader& r, uint32_t nBones, uint32_t nUsed, uint32_t nV, const DffContext& ctx) {
  const uint64_t size = r.size();
  const uint64_t oldSize = 4 + 20ull * nV + 68ull * nBones;
  const uint64_t newMin = 4 + nUsed + 20ull * nV + 64ull * nBones + 12;
  bool fitsNew = size == newMin;
  if (!fitsNew && size > newMin) fitsNew = splitDataFits(r, newMin, nBones);
  const bool fitsOld = size == oldSize;
  if (fitsNew && fitsOld) return nUsed == 0 ? Layout::Old : Layout::New;
  if (fitsNew) return Layout::New;
  if (fitsOld) return Layout::Old;
  const Layout guess = nUsed == 0 ? Layout::Old : Layout::New;
  if (ctx.provenance != nullptr) {
    ctx.provenance->warn("skin-layout",
                         fmt::format("Skin PLG of {} bytes at 0x{:X} fits neither layout (old {}, new {}); read as {}",
                                     size, r.fileOffsetOfStart(), oldSize, newMin,
                                     guess == Layout::Old ? "old (numUsedBones 0)" : "new"));
  }
  return guess;
}

Status readSplitData(ByteReader& r, uint32_t numBones) {
  auto scope = r.scope("splitData");
  RP_CHECK(r.u32("boneLimit"));
  RP_ASSIGN(const uint32_t numMeshes, r.u32("numMeshes"));
  RP_ASSIGN(const uint32_t rleSize, r.u32("rleSize"));
  if (numMeshes == 0) return Ok{};
  RP_CHECK(r.skip(numBones, "remapIndices"));
  RP_CHECK(r.count(numMeshes, 2, "rleCount"));
  RP_CHECK(r.skip(2ull * numMeshes, "rleCount"));
  RP_CHECK(r.count(rleSize, 2, "rle"));
  RP_CHECK(r.skip(2ull * rleSize, "rle"));
  return Ok{};
}

}  // namespace

void recomputeSkinSummary(SkinPlg& skin) {
  std::vector<bool> used(256, false);
  skin.maxWeights = 0;
  for (size_t v = 0; v < skin.weights.size(); ++v) {
    uint32_t n = 0;
    for (int k = 0; k < 4; ++k) {
      if (skin.weights[v][k] != 0.0f) {
        ++n;
        used[skin.indices[v][k]] = true;
      }
    }
    skin.maxWeights = std::max(skin.maxWeights, n);
  }
  skin.usedBones.clear();
  for (uint32_t b = 0; b < 256; ++b) {
    if (used[b]) skin.usedBones.push_back(static_cast<uint8_t>(b));
  }
  skin.numUsedBones = static_cast<uint32_t>(skin.usedBones.size());
}

Result<SkinPlg> readSkinPlg(ByteReader& r, uint32_t numVertices, const DffContext& ctx) {
  SkinPlg skin;
  RP_ASSIGN(skin.numBones, r.u8("numBones"));
  RP_ASSIGN(skin.numUsedBones, r.u8("numUsedBones"));
  RP_ASSIGN(skin.maxWeights, r.u8("maxWeightsPerVertex"));
  RP_CHECK(r.u8("pad"));
  const Layout layout = chooseLayout(r, skin.numBones, skin.numUsedBones, numVertices, ctx);
  skin.oldLayout = layout == Layout::Old;
  if (layout == Layout::New) { RP_ASSIGN(skin.usedBones, r.array<uint8_t>(skin.numUsedBones, "usedBones")); }
  RP_ASSIGN(const size_t nv, r.count(numVertices, 20, "vertices"));
  if (layout == Layout::New && std::endian::native == std::endian::little) {
    RP_ASSIGN(skin.fileIndices, r.bytes(4 * nv, "indices"));
    RP_ASSIGN(skin.fileWeights, r.bytes(16 * nv, "weights"));
  } else {  // the old layout's summary is recomputed from the arrays
    RP_ASSIGN(skin.indices, (r.records<std::array<uint8_t, 4>, uint8_t>(nv, "indices")));
    RP_ASSIGN(skin.weights, (r.records<std::array<float, 4>, float>(nv, "weights")));
  }
  RP_ASSIGN(skin.inverseMatrices, readInverseMatrices(r, skin.numBones, layout == Layout::Old));
  if (layout == Layout::New) {
    RP_CHECK(readSplitData(r, skin.numBones));
  } else {
    recomputeSkinSummary(skin);
  }
  return skin;
}

void writeSkinPlg(ByteWriter& w, const SkinPlg& skin, uint32_t version, uint32_t libraryId) {
  const bool old = version < 0x34000;
  const size_t at = beginChunk(w, kSkinPlg, libraryId);
  w.u8(static_cast<uint8_t>(skin.numBones));
  w.u8(old ? 0 : static_cast<uint8_t>(skin.usedBones.size()));
  w.u8(old ? 0 : static_cast<uint8_t>(skin.maxWeights));
  w.u8(0);
  if (!old) {
    for (uint8_t b : skin.usedBones) w.u8(b);
  }
  w.records<uint8_t>(skin.indices);
  w.records<float>(skin.weights);
  for (const glm::mat4& m : skin.inverseMatrices) {
    if (old) w.u32(kOldMatrixPad);
    writeRwMatrix(w, m);
  }
  if (!old) w.zeros(12);  // split data: boneLimit, numMeshes, rleSize all 0 (§1.5)
  endChunk(w, at);
}

}  // namespace rigport::renderware
