// A vertex's influences as the DRS reader gathers them (at most 4, §5 and §8), and the test of
// whether the rev-12 stream and CSkSkinInfo weight a vertex alike (§12).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#include "core/rig.hpp"

namespace rigport::battleforge {

// At most 4 influences of one vertex, by rig bone, zero weights dropped: fixed size, so skinning
// 60,000 vertices allocates nothing per vertex.
struct Influences4 {
  std::array<Influence, 4> at{};
  uint32_t n = 0;
};

// Sorted by bone, repeats of a bone summed.
Influences4 merged(Influences4 v);

// Rev-12 weights are truncated int(w·255) (§8): a float weight and an 8-bit one within one step.
inline bool withinOneStep(float a, float b) { return !(std::fabs(a - b) > 1.0f / 255.0f + 1e-5f); }

// The rule: x and y merged name the same bones with weights within one step.
bool sameMergedInfluences(const Influences4& x, const Influences4& y);

// sameMergedInfluences, without merging where merging changes nothing: the rev-12 stream and
// CSkSkinInfo list a vertex's bones alike, and two lists of the same bones in the same order, none
// twice, merge into the same order with their weights as they are, so they compare pair by pair.
// Merging both was a tenth of the DRS benchmark's instructions. Inline, and tests combined with &
// rather than branched on: a vertex at a time, the call and the branches were most of its cost.
inline bool sameInfluences(const Influences4& x, const Influences4& y) {
  if (x.n != y.n) return sameMergedInfluences(x, y);
  bool alike = true;
  for (uint32_t i = 0; i < x.n; ++i) {
    alike &= x.at[i].bone == y.at[i].bone;
    for (uint32_t j = 0; j < i; ++j) alike &= x.at[j].bone != x.at[i].bone;
  }
  if (!alike) return sameMergedInfluences(x, y);
  bool within = true;
  for (uint32_t i = 0; i < x.n; ++i) within &= withinOneStep(x.at[i].weight, y.at[i].weight);
  return within;
}

}  // namespace rigport::battleforge
