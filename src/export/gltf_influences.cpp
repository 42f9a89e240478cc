#include "export/gltf_influences.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace rigport::gltf {

float validatorWeightSum(const VertexInfluences& v, size_t sets) {
  float sum = 0.0f;
  for (size_t c = 0; c < 4; ++c) {
    for (size_t s = 0; s < sets; ++s) {
      const float w = v.weight[s * 4 + c];
      if (w != 0.0f) sum = sum + w;  // float + float rounds to float, as the validator's doubleToSingle does
    }
  }
  return sum;
}

namespace {

using Merged = InfluenceNormaliser::Merged;

// Rounding each weight to float leaves the float32 sum (`sum()`, the validator's) a few ulps off;
// moving the difference onto the largest weight makes it exact. Bounded: were it to oscillate by
// an ulp, that is still far inside the validator's 2e-7 per weight.
template <class Sum>
void makeSumExact(float& largest, Sum sum) {
  for (int round = 0; round < 8; ++round) {
    const float s = sum();
    if (s == 1.0f) break;
    largest = static_cast<float>(static_cast<double>(largest) + (1.0 - static_cast<double>(s)));
  }
}

// Largest first; equal weights by joint so the output does not depend on the source order.
bool before(const Merged& a, const Merged& b) {
  return a.weight != b.weight ? a.weight > b.weight : a.joint < b.joint;
}

}  // namespace

InfluenceNormaliser::Outcome InfluenceNormaliser::normalise(const Influence* begin, const Influence* end,
                                                            VertexInfluences& out, size_t& badInfluence,
                                                            bool& truncated) {
  out = VertexInfluences{};
  truncated = false;
  // A vertex of at most kMaxSlots influences (every vertex of every format but glTF input with
  // more) is merged in a local array, else in the reused vector.
  Merged local[kMaxSlots];  // trivial: not zeroed per vertex
  const bool small = end - begin <= static_cast<std::ptrdiff_t>(kMaxSlots);
  if (!small) merged_.clear();
  Merged* merged = small ? local : nullptr;
  size_t count = 0;
  for (const Influence* it = begin; it != end; ++it) {
    const int32_t joint = jointOf(it->bone);
    if (joint < 0) {
      badInfluence = static_cast<size_t>(it - begin);
      return Outcome::BoneNotAJoint;
    }
    if (it->weight == 0.0f) continue;
    Merged* list = small ? local : merged_.data();
    size_t k = 0;
    while (k < count && list[k].joint != static_cast<uint32_t>(joint)) ++k;
    if (k < count) {
      list[k].weight += it->weight;
    } else if (small) {
      local[count++] = Merged{static_cast<uint32_t>(joint), it->weight};
    } else {
      merged_.push_back(Merged{static_cast<uint32_t>(joint), it->weight});
      ++count;
    }
  }
  if (!small) merged = merged_.data();
  if (count == 0) {
    out.used = 1;
    out.joint[0] = rootJoint_;
    out.weight[0] = 1.0f;
    return Outcome::NoInfluences;
  }
  // Joints are distinct after merging, so the order is total and any sort gives the same one.
  if (small) {
    for (size_t i = 1; i < count; ++i) {
      const Merged m = merged[i];
      size_t j = i;
      for (; j > 0 && before(m, merged[j - 1]); --j) merged[j] = merged[j - 1];
      merged[j] = m;
    }
  } else {
    std::sort(merged, merged + count, before);
  }
  const size_t slots = sets_ * 4;
  truncated = count > slots;
  const size_t n = std::min(count, slots);
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) total += merged[i].weight;
  // One division a vertex: the reciprocal's rounding moves a weight's double by an ulp at most,
  // which its rounding to float absorbs but for a tie once in about 2^29 weights, and the sum is
  // made exact below whatever the weights.
  const double inverse = 1.0 / total;
  uint32_t used = 0;  // a local, not out.used: a counter in memory chained every slot's store
  for (; used < n; ++used) {
    const float w = static_cast<float>(merged[used].weight * inverse);
    if (w == 0.0f) break;  // sorted: everything after is zero as well, and zero slots keep joint 0
    out.joint[used] = merged[used].joint;
    out.weight[used] = w;
  }
  out.used = used;
  makeSumExact(out.weight[0], [&] { return validatorWeightSum(out, sets_); });
  return Outcome::Ok;
}

namespace {

struct Slot {
  uint32_t joint;
  float weight;
};

// before() on slots: largest weight first, equal weights by joint. Written with selects so the
// compiler can make the exchange branch-free: the order of four random weights is unpredictable.
void order(Slot& a, Slot& b) {
  const bool swap = b.weight != a.weight ? b.weight > a.weight : b.joint < a.joint;
  const Slot first = swap ? b : a;
  const Slot second = swap ? a : b;
  a = first;
  b = second;
}

}  // namespace

bool InfluenceNormaliser::normaliseFour(const Influence* begin, const Influence* end, uint32_t* joint,
                                        float* weight) const {
  const size_t count = static_cast<size_t>(end - begin);
  if (sets_ != 1 || count > 4) return false;
  Slot s[4];
  bool usual = true;
  for (size_t i = 0; i < 4; ++i) {
    if (i < count) {
      const Influence in = begin[i];
      const int32_t j = jointOf(in.bone);
      // Also false for NaN; -0 passes and, like normalise(), counts as no weight.
      usual &= (j >= 0) & (in.weight >= 0.0f) & (in.weight <= std::numeric_limits<float>::max());
      s[i] = Slot{static_cast<uint32_t>(j), in.weight};
    } else {
      s[i] = Slot{0, 0.0f};
    }
  }
  // normalise() would merge a joint named twice with weight; two zero weights are dropped instead.
  for (size_t a = 0; a < 4; ++a) {
    for (size_t b = a + 1; b < 4; ++b) usual &= !(s[a].joint == s[b].joint && s[a].weight != 0.0f && s[b].weight != 0.0f);
  }
  if (!usual || (s[0].weight == 0.0f && s[1].weight == 0.0f && s[2].weight == 0.0f && s[3].weight == 0.0f)) return false;
  // A sorting network: zero weights end up last, after every non-zero one, as if dropped.
  order(s[0], s[1]);
  order(s[2], s[3]);
  order(s[0], s[2]);
  order(s[1], s[3]);
  order(s[1], s[2]);
  // normalise() sums only the non-zero weights, in this order, from 0.0; adding the trailing zeros
  // (x + 0.0 == x for x > 0) and starting from the first weight give the same double.
  const double total = ((static_cast<double>(s[0].weight) + s[1].weight) + s[2].weight) + s[3].weight;
  const double inverse = 1.0 / total;
  float w[4];
  for (size_t i = 0; i < 4; ++i) {
    const float f = static_cast<float>(s[i].weight * inverse);
    // A weight that rounds to zero ends the used slots there (the rest, smaller, round to zero
    // too): its slot keeps joint 0 and weight +0.
    joint[i] = f != 0.0f ? s[i].joint : 0;
    w[i] = f != 0.0f ? f : 0.0f;
  }
  // The validator's sum of one set (validatorWeightSum), zeros included since they add nothing.
  makeSumExact(w[0], [&] { return ((w[0] + w[1]) + w[2]) + w[3]; });
  std::memcpy(weight, w, sizeof w);
  return true;
}

size_t distinctInfluences(const Influence* begin, const Influence* end, const std::vector<int32_t>& jointOfBone,
                          std::vector<uint32_t>& scratch) {
  scratch.clear();
  for (const Influence* it = begin; it != end; ++it) {
    if (it->weight == 0.0f || it->bone >= jointOfBone.size() || jointOfBone[it->bone] < 0) continue;
    const uint32_t j = static_cast<uint32_t>(jointOfBone[it->bone]);
    if (std::find(scratch.begin(), scratch.end(), j) == scratch.end()) scratch.push_back(j);
  }
  return scratch.size();
}

}  // namespace rigport::gltf
