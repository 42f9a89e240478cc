// Layout of The Sims 3 RIG resource (0x8EAF13DE) in the new EA format (sims3_clip.md §3).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rigport::sims3::rig {

constexpr uint32_t kType = 0x8EAF13DE;

// §3.1: u32 major in {3, 4} and u32 minor in {1, 2} mark the new format; type + 0 marks a wrapped
// Granny2 rig; anything else is raw Granny2.
constexpr bool isNewFormat(uint32_t major, uint32_t minor) { return (major == 3 || major == 4) && (minor == 1 || minor == 2); }
constexpr uint32_t kWriterMajor = 4;  // every real rig measured is v4.2 (§3.3)
constexpr uint32_t kWriterMinor = 2;

// §3.2 per bone: f32 position[3], f32 orientation[4] (x y z w), f32 scale[3], i32 nameLength +
// name (no NUL), i32 opposite (mirror bone), i32 parent (-1 = root), u32 FNV32(name), u32 flags.
constexpr size_t kBoneFixedSize = 10 * 4 + 4 + 4 * 4;

// §3.2: the skeleton name follows the bones (s3pi always reads it; s3py when major >= 4), then,
// when major >= 4, the IK chains: i32 n, n bone indices, 11 info-node indices, pole, slotInfo,
// slotOffset, root.
constexpr uint32_t kChainsFromMajor = 4;
constexpr size_t kChainInfoNodes = 11;
constexpr size_t kChainFixedSize = 4 + (kChainInfoNodes + 4) * 4;

}  // namespace rigport::sims3::rig
