// The axes an arena's data are in, by its platform (rw4_arena.md §2.1 platform tag); an arena
// stores none. Spore (PC, "w32") is Z up: a real creature has its root at the origin, every vertex
// at z 0.46–1.61 and its root motion along z; that it faces −Y is assumed (issue 26). Skate 3 (PS3)
// is Y up, as a real Skate model arena shows; Xbox 360 and Wii arenas are taken as Skate's.
#pragma once

#include "core/rig.hpp"
#include "formats/rw4/arena_layout.hpp"

namespace rigport::rw4 {

inline AxisSystem axesOf(Platform platform) {
  if (platform == Platform::Pc) return AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::NegY, true, 1.0f};
  return AxisSystem{};
}

// Spore's animation does not pass a parent's scale to its children (segment scale compensation,
// measured on real clips, issue 26); Skate's arenas carry no animation, so glTF's rule stands.
inline bool inheritsScale(Platform platform) { return platform != Platform::Pc; }

}  // namespace rigport::rw4
