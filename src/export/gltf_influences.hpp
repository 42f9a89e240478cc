// Turning a vertex's influences into glTF JOINTS_n/WEIGHTS_n slots (format note
// gltf_ecosystem.md §1.2, §5.4): duplicate bones merged, zero weights dropped, sorted by weight
// (largest first), cut to the slots available, renormalised so that the validator's own float32
// sum is 1, and unused slots left at joint 0 weight 0 (ACCESSOR_JOINTS_USED_ZERO_WEIGHT).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/rig.hpp"

namespace rigport::gltf {

constexpr size_t kMaxSlots = 8;  // two JOINTS/WEIGHTS sets

struct VertexInfluences {
  uint32_t used = 0;  // non-zero slots, at the front
  std::array<uint32_t, kMaxSlots> joint{};
  std::array<float, kMaxSlots> weight{};
};

// The validator's weight sum (glTF-Validator InfluencesChecker, npm 2.0.0-dev.3.10): it walks
// component 0 of every set, then component 1, ..., adding each non-zero weight in float32.
float validatorWeightSum(const VertexInfluences& v, size_t sets);

class InfluenceNormaliser {
 public:
  enum class Outcome { Ok, NoInfluences, BoneNotAJoint };
  struct Merged {  // one joint's summed weight
    uint32_t joint;
    double weight;
  };

  // jointOfBone: bone index -> joint position or -1; rootJoint: the slot for vertices without
  // influences; sets: JOINTS_n sets written for this mesh (1 or 2).
  InfluenceNormaliser(const std::vector<int32_t>& jointOfBone, uint32_t rootJoint, size_t sets)
      : jointOfBone_(jointOfBone), rootJoint_(rootJoint), sets_(sets), identity_(isIdentity(jointOfBone)) {}

  // Fills `out`. On BoneNotAJoint, `badInfluence` is the offending influence's position in [begin, end).
  // `truncated` is set when non-zero influences beyond the available slots were dropped.
  Outcome normalise(const Influence* begin, const Influence* end, VertexInfluences& out, size_t& badInfluence,
                    bool& truncated);

  // The usual vertex in a fraction of normalise()'s instructions: one set, at most 4 influences,
  // every bone a joint, finite non-negative weights, some weight non-zero, no joint twice among
  // the non-zero weights. For such a vertex it writes slot for slot what normalise() would (same
  // order, same roundings, same sum fix-up) and returns true; for any other it writes nothing and
  // returns false, and normalise() takes the vertex. A 4-influence DFF vertex took about 20 ns in
  // normalise(), most of it branches on counts that are known here.
  // `joint` and `weight` have 4 slots each.
  bool normaliseFour(const Influence* begin, const Influence* end, uint32_t* joint, float* weight) const;

  // normaliseFour() on four vertices at once, one in each vector lane: vertex k = 0..3 owns
  // inf[off[k] .. off[k + 1]), and inf must hold four influences from every off[k] (the slots past
  // a vertex's own are loaded and ignored). Bit k of the result is set for each vertex that
  // normaliseFour() would take, whose joints and weights are then at joint[4k..] and weight[4k..],
  // bit for bit; the slots of the others hold scratch for the caller to overwrite.
  unsigned normaliseFourByFour(const Influence* inf, const uint32_t* off, uint32_t* joint, float* weight) const;

  // normaliseFourByFour() on eight vertices (off[0..8]) in AVX2 lanes, with the same contract and
  // bit for bit the same results; call it only where eightLanes() is true (x86-64 CPUs with AVX2,
  // checked at run time: the baseline build is SSE2) and where `inf` holds fewer than 2^30
  // influences (they are gathered by 32-bit word index).
  static bool eightLanes();
  unsigned normaliseEightByEight(const Influence* inf, const uint32_t* off, uint32_t* joint, float* weight) const;

 private:
  int32_t jointOf(uint32_t bone) const { return bone < jointOfBone_.size() ? jointOfBone_[bone] : -1; }
  // Whether every bone is the joint of its own index (a skeleton whose every bone is a joint, in order).
  static bool isIdentity(const std::vector<int32_t>& jointOfBone) {
    for (size_t b = 0; b < jointOfBone.size(); ++b)
      if (jointOfBone[b] != static_cast<int32_t>(b)) return false;
    return true;
  }

  const std::vector<int32_t>& jointOfBone_;
  uint32_t rootJoint_;
  size_t sets_;
  bool identity_;  // isIdentity(jointOfBone_): a bone's joint is the bone itself
  std::vector<Merged> merged_;  // for vertices of more than kMaxSlots influences, reused across vertices
};

// Distinct joints with non-zero weight of one vertex (bones outside the joint list are not counted).
size_t distinctInfluences(const Influence* begin, const Influence* end, const std::vector<int32_t>& jointOfBone,
                          std::vector<uint32_t>& scratch);

}  // namespace rigport::gltf
