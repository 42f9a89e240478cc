// Xbox native skin (format note renderware.md §1.7; librw src/d3d/xboxskin.cpp readNativeSkin).
#include <fmt/format.h>

#include "formats/renderware/native/native_reader.hpp"

namespace rigport::renderware {

Result<SkinPlg> readXboxSkin(ByteReader& r, uint32_t numVertices) {
  SkinPlg skin;
  RP_ASSIGN(const int32_t numBones, r.s32("numBones"));
  if (numBones < 0 || numBones > 256) {
    return r.error(ErrorCode::BadValue, fmt::format("bone count {} outside 0..256", numBones), "numBones");
  }
  skin.numBones = static_cast<uint32_t>(numBones);
  // table1 maps palette slots to bones (0xFFFFFFFF = unused slot).
  RP_ASSIGN(std::vector<int32_t> table1, r.array<int32_t>(256, "table1"));
  RP_CHECK(r.skip(256 * 4, "table2"));
  RP_ASSIGN(const int32_t numUsedBones, r.s32("numUsedBones"));
  RP_ASSIGN(const int32_t numWeights, r.s32("numWeights"));
  RP_CHECK(r.skip(4, "vertexBufferPointer"));
  RP_ASSIGN(const int32_t stride, r.s32("stride"));
  if (numWeights < 0 || numWeights > 4 || stride < 3 * numWeights || numUsedBones < 0 || numUsedBones > 256) {
    return r.error(ErrorCode::BadValue,
                   fmt::format("numWeights {}, stride {}, numUsedBones {} are inconsistent", numWeights, stride,
                               numUsedBones),
                   "stride");
  }
  skin.maxWeights = static_cast<uint32_t>(numWeights);
  for (int32_t i = 0; i < numUsedBones; ++i) skin.usedBones.push_back(static_cast<uint8_t>(table1[i]));
  skin.numUsedBones = static_cast<uint32_t>(numUsedBones);
  RP_ASSIGN(const size_t nv, r.count(numVertices, static_cast<size_t>(stride > 0 ? stride : 1), "vertexBuffer"));
  skin.indices.assign(nv, {0, 0, 0, 0});
  skin.weights.assign(nv, {0.0f, 0.0f, 0.0f, 0.0f});
  for (size_t v = 0; v < nv; ++v) {
    RP_ASSIGN(ByteReader vr, r.sub(static_cast<size_t>(stride), Field("vertexBuffer", static_cast<int64_t>(v))));
    // Weights are bytes /255 (the first one was written as 255 − sum of the others).
    for (int32_t k = 0; k < numWeights; ++k) {
      RP_ASSIGN(const uint8_t weight, vr.u8("weight"));
      skin.weights[v][k] = weight / 255.0f;
    }
    for (int32_t k = 0; k < numWeights; ++k) {
      RP_ASSIGN(const uint16_t slot, vr.u16("paletteIndex"));
      if (skin.weights[v][k] == 0.0f) continue;  // librw: "clean up a bit", unused slots say 0
      const uint32_t palette = slot / 3u;  // stored as 3 × palette slot (librw skinInstanceCB)
      const int32_t bone = palette < 256 ? table1[palette] : -1;
      if (bone < 0 || bone > 255) {
        return vr.error(ErrorCode::BadValue, fmt::format("palette index {} names no bone", slot), "paletteIndex");
      }
      skin.indices[v][k] = static_cast<uint8_t>(bone);
    }
  }
  RP_ASSIGN(skin.inverseMatrices, readInverseMatrices(r, skin.numBones, false));
  // Split data (§1.5) follows; it does not change the meaning of the indices and is not kept.
  return skin;
}

}  // namespace rigport::renderware
