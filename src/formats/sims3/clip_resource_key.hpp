// The Sims 3 clip resource key (sims3_clip.md R12, §2.13): the instance a package files a CLIP
// under, from its name. Public so that users can find clips in packages (`rigport hash NAME`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rigport::sims3 {

struct ClipKey64 {
  std::string genericName;  // the name hashed: the age prefix replaced by a / o (§2.13 steps 2-3)
  uint16_t ageMask = 0;     // 0x8000 | xAge << 8 | yAge, or 0 for a generic name
  uint64_t instance = 0;    // (FNV64(generic) & 0x7FFF_FFFF_FFFF_FFFF) ^ (ageMask << 48)
  uint32_t group = 0;       // 0x48000000 when an age is a pet's (> 6), as s3py files them; else 0
};

ClipKey64 clipKey(std::string_view name);

}  // namespace rigport::sims3
