// The pieces writeModel() assembles (model_writer.cpp): one GPL submesh and the SKN section.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/sluggers/sluggers.hpp"

namespace rigport::sluggers {

// One submesh as a DOLayout followed by its headers, arrays and primitive list, every pointer
// relative to the layout (§3). A skinned mesh stores s16 position + normal per vertex with `skinShift`
// fractional bits (compCount 6), its normal header pointing 6 bytes into that array. A part whose
// material keeps a texture bind (extras.sluggers, as the reader leaves it) is drawn after that bind.
Result<std::vector<uint8_t>> writeMeshBlob(const Mesh& mesh, std::span<const Material> materials, size_t meshIndex, bool skinned,
                                           uint8_t skinShift, const ModelWriteOptions& options);

// The SKN section for `mesh` (§6); `boneIndex[b]` is what an entry stores for rig bone b.
// `mirror` is the skinned position array's bytes (SK1/SK2 sources mirror it, §6 layout facts).
Result<std::vector<uint8_t>> writeSkn(const Mesh& mesh, const std::vector<uint16_t>& boneIndex, uint8_t shift,
                                      const std::vector<uint8_t>& mirror);

struct Weighted {
  uint32_t bone = 0;  // rig bone
  uint32_t w = 0;     // 1/256 units
};
// Vertex v's influences merged per bone (ascending) and quantised to 256ths summing to exactly 256
// (largest remainders get the leftover units, §6); zero weights are dropped.
std::vector<Weighted> quantizeWeights(const Mesh& mesh, size_t v);

// The most fractional bits (1..15) that keep every skinned position and normal in s16 (§6).
Result<uint8_t> chooseSkinShift(const Mesh& mesh, size_t meshIndex);
// The skinned array: per vertex s16 position then normal (zero when the mesh has none).
std::vector<uint8_t> skinnedArray(const Mesh& mesh, uint8_t shift);

}  // namespace rigport::sluggers
