#include "export/gltf_influences.hpp"

#include <algorithm>
#include <cmath>

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

InfluenceNormaliser::Outcome InfluenceNormaliser::normalise(const Influence* begin, const Influence* end,
                                                            VertexInfluences& out, size_t& badInfluence,
                                                            bool& truncated) {
  out = VertexInfluences{};
  truncated = false;
  merged_.clear();
  for (const Influence* it = begin; it != end; ++it) {
    const int32_t joint = it->bone < jointOfBone_.size() ? jointOfBone_[it->bone] : -1;
    if (joint < 0) {
      badInfluence = static_cast<size_t>(it - begin);
      return Outcome::BoneNotAJoint;
    }
    if (it->weight == 0.0f) continue;
    auto same = std::find_if(merged_.begin(), merged_.end(), [&](const auto& m) { return m.first == static_cast<uint32_t>(joint); });
    if (same != merged_.end()) {
      same->second += it->weight;
    } else {
      merged_.emplace_back(static_cast<uint32_t>(joint), it->weight);
    }
  }
  if (merged_.empty()) {
    out.used = 1;
    out.joint[0] = rootJoint_;
    out.weight[0] = 1.0f;
    return Outcome::NoInfluences;
  }
  // Largest first; equal weights by joint so the output does not depend on the source order.
  std::sort(merged_.begin(), merged_.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  const size_t slots = sets_ * 4;
  truncated = merged_.size() > slots;
  const size_t n = std::min(merged_.size(), slots);
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) total += merged_[i].second;
  for (size_t i = 0; i < n; ++i) {
    const float w = static_cast<float>(merged_[i].second / total);
    if (w == 0.0f) break;  // sorted: everything after is zero as well, and zero slots keep joint 0
    out.joint[out.used] = merged_[i].first;
    out.weight[out.used] = w;
    ++out.used;
  }
  // Rounding each weight to float leaves the float32 sum a few ulps off; moving the difference onto
  // the largest weight makes it exact. Bounded: were it to oscillate by an ulp, that is still far
  // inside the validator's 2e-7 per weight.
  for (int round = 0; round < 8; ++round) {
    const float sum = validatorWeightSum(out, sets_);
    if (sum == 1.0f) break;
    out.weight[0] = static_cast<float>(static_cast<double>(out.weight[0]) + (1.0 - static_cast<double>(sum)));
  }
  return Outcome::Ok;
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
