#include "core/resample.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/bind.hpp"

namespace rigport {
namespace {

glm::vec3 mix(const glm::vec3& a, const glm::vec3& b, float t) { return a + (b - a) * t; }
glm::quat mix(const glm::quat& a, const glm::quat& b, float t) { return glm::slerp(a, glm::dot(a, b) < 0.0f ? -b : b, t); }

// The LINEAR sampler's value at time t (keys sorted, as normalizeKeys leaves them).
template <class T>
T sample(const Keys<T>& keys, float t, const T& rest) {
  if (keys.times.empty()) return rest;
  const auto it = std::upper_bound(keys.times.begin(), keys.times.end(), t);
  if (it == keys.times.begin()) return keys.values.front();
  if (it == keys.times.end()) return keys.values.back();
  const size_t hi = static_cast<size_t>(it - keys.times.begin());
  const float t0 = keys.times[hi - 1], t1 = keys.times[hi];
  return mix(keys.values[hi - 1], keys.values[hi], (t - t0) / (t1 - t0));
}

template <class T>
Keys<T> resampled(const Keys<T>& keys, const std::vector<float>& times, const T& rest) {
  Keys<T> out;
  out.times = times;
  out.values.reserve(times.size());
  for (float t : times) out.values.push_back(sample(keys, t, rest));
  return out;
}

float lastKeyTime(const Animation& anim) {
  float last = 0.0f;
  for (const BoneTrack& t : anim.tracks) {
    for (const auto* times : {&t.translation.times, &t.rotation.times, &t.scale.times}) {
      if (!times->empty()) last = std::max(last, times->back());
    }
  }
  return last;
}

}  // namespace

Status resampleAnimations(Rig& rig, float fps) {
  if (!(fps > 0.0f) || !std::isfinite(fps)) return makeError(ErrorCode::Usage, fmt::format("resample rate {} is not a positive number", fps));
  for (Animation& anim : rig.animations) {
    normalizeKeys(anim);
    const float end = std::max(anim.duration, lastKeyTime(anim));
    if (end * fps > static_cast<float>(kMaxResampledKeys)) {
      return makeError(ErrorCode::Usage, fmt::format("animation '{}': {} s at {} frames per second exceeds {} keys per channel",
                                                     anim.name, end, fps, kMaxResampledKeys));
    }
    std::vector<float> times;
    // Times as k / fps (not by adding steps, which drifts), then the end unless it is on the grid.
    for (size_t k = 0; static_cast<float>(k) / fps < end; ++k) times.push_back(static_cast<float>(k) / fps);
    if (times.empty() || times.back() < end) times.push_back(end);
    for (BoneTrack& t : anim.tracks) {
      if (t.bone < 0 || static_cast<size_t>(t.bone) >= rig.skeleton.bones.size()) continue;
      const Bone& rest = rig.skeleton.bones[static_cast<size_t>(t.bone)];
      t.translation = resampled(t.translation, times, rest.translation);
      t.rotation = resampled(t.rotation, times, rest.rotation);
      t.scale = resampled(t.scale, times, rest.scale);
    }
    anim.duration = end;
  }
  return Ok{};
}

}  // namespace rigport
