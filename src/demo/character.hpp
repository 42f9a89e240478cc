// The procedural demo character: a skinned humanoid with a looping walk, built in glTF axes
// (Y up, right-handed, metres; the character faces +Z, its left is +X). Used by `rigport demo`
// to round-trip every writable format, by the tests, and (scaled up) by the export benchmark.
#pragma once

#include <cstdint>

#include "core/rig.hpp"

namespace rigport {

struct DemoOptions {
  // Approximate body vertex count: tubes around the bone segments share it by segment length,
  // so the result lands within a few percent of it.
  uint32_t vertices = 4000;
  // Total bones. The humanoid has kDemoHumanoidBones; a larger value adds hair chains to the head.
  uint32_t bones = 0;
  // Most influences any vertex keeps (1..4); vertices near joints blend with the neighbouring bones.
  uint32_t maxInfluences = 4;
  // Approximate total animation keys; 0 means one key per channel at 30 fps over the 1 s loop.
  uint32_t keys = 0;
};

inline constexpr uint32_t kDemoHumanoidBones = 27;
inline constexpr float kDemoWalkSeconds = 1.0f;

// The walk loop's first and last keys are equal in every track; one "footstep" event per foot.
// The result passes validate() and carries explicit inverse bind matrices (= inverse world bind).
Rig makeDemoCharacter(const DemoOptions& options = {});

}  // namespace rigport
