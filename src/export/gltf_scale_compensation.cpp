#include "export/gltf_scale_compensation.hpp"

#include <algorithm>
#include <cmath>

#include "core/key_sample.hpp"

namespace rigport::gltf {
namespace {

// How many pieces key interval [a, b] of a linear scale needs: on a piece whose ends are x and y
// (same sign), the reciprocals' lerp at the middle is off 1/x's curve by (x − y)² / (4xy) relative,
// at most (|b − a| / (n · min(|a|, |b|)))² / 4; n makes that at most kInverseScaleTolerance.
size_t subdivisions(const glm::vec3& a, const glm::vec3& b, bool cubic) {
  double n = 1.0;
  for (int c = 0; c < 3; ++c) {
    const double x = a[c], y = b[c];
    if (x == y) continue;
    if (!(x * y > 0.0)) return kMaxSubdivisions;
    n = std::max(n, std::ceil(std::abs(y - x) / (std::min(std::abs(x), std::abs(y)) * 2.0 * std::sqrt(kInverseScaleTolerance))));
  }
  if (cubic) n = std::max(n, static_cast<double>(kCubicSubdivisions));
  return static_cast<size_t>(std::min(n, static_cast<double>(kMaxSubdivisions)));
}

}  // namespace

std::vector<bool> compensatedBones(const Skeleton& skeleton, const std::vector<Animation>& animations) {
  std::vector<bool> out(skeleton.bones.size(), false);
  if (skeleton.inheritScale) return out;
  std::vector<bool> scaled(skeleton.bones.size(), false);
  for (size_t b = 0; b < scaled.size(); ++b) scaled[b] = skeleton.bones[b].scale != glm::vec3(1.0f);
  for (const Animation& anim : animations) {
    for (const BoneTrack& t : anim.tracks) {
      if (t.bone >= 0 && static_cast<size_t>(t.bone) < scaled.size() && !t.scale.empty()) scaled[static_cast<size_t>(t.bone)] = true;
    }
  }
  for (size_t b = 0; b < out.size(); ++b) {
    const int32_t p = skeleton.bones[b].parent;
    out[b] = p >= 0 && scaled[static_cast<size_t>(p)];
  }
  return out;
}

Keys<glm::vec3> inverseScaleKeys(const Keys<glm::vec3>& s) {
  Keys<glm::vec3> out;
  const bool step = s.interpolation == Interpolation::Step;
  out.interpolation = step ? Interpolation::Step : Interpolation::Linear;
  for (size_t k = 0; k < s.times.size(); ++k) {
    out.times.push_back(s.times[k]);
    out.values.push_back(inverseScale(s.values[k]));
    if (step || k + 1 == s.times.size()) continue;
    const size_t n = subdivisions(s.values[k], s.values[k + 1], s.interpolation == Interpolation::CubicSpline);
    const double t0 = s.times[k], t1 = s.times[k + 1];
    for (size_t i = 1; i < n; ++i) {
      const auto t = static_cast<float>(t0 + (t1 - t0) * static_cast<double>(i) / static_cast<double>(n));
      if (!(t > out.times.back() && t < s.times[k + 1])) continue;  // float cannot part such close times
      out.times.push_back(t);
      out.values.push_back(inverseScale(sampleKeys(s, t, s.values[k])));
    }
  }
  return out;
}

}  // namespace rigport::gltf
