#include "core/key_sample.hpp"

#include <algorithm>

namespace rigport {
namespace {

float lerp(float a, float b, float s) { return a + (b - a) * s; }
glm::vec3 lerp(const glm::vec3& a, const glm::vec3& b, float s) { return a + (b - a) * s; }
glm::quat lerp(const glm::quat& a, const glm::quat& b, float s) { return glm::slerp(a, b, s); }  // shorter arc

float finish(float v) { return v; }
glm::vec3 finish(const glm::vec3& v) { return v; }
glm::quat finish(const glm::quat& q) { return glm::normalize(q); }

template <class T>
T sample(const Keys<T>& keys, float t, const T& rest) {
  const size_t n = keys.times.size();
  if (n == 0 || keys.values.size() != n) return rest;
  const size_t hi = static_cast<size_t>(std::upper_bound(keys.times.begin(), keys.times.end(), t) - keys.times.begin());
  if (hi == 0) return keys.values.front();
  if (hi == n) return keys.values.back();
  const size_t lo = hi - 1;
  if (keys.times[lo] == t || keys.interpolation == Interpolation::Step) return keys.values[lo];
  const float d = keys.times[hi] - keys.times[lo];
  const float s = (t - keys.times[lo]) / d;
  const bool cubic = keys.interpolation == Interpolation::CubicSpline && keys.inTangents.size() == n && keys.outTangents.size() == n;
  if (!cubic) return lerp(keys.values[lo], keys.values[hi], s);
  const float s2 = s * s, s3 = s2 * s;
  return finish(keys.values[lo] * (2 * s3 - 3 * s2 + 1) + keys.outTangents[lo] * (d * (s3 - 2 * s2 + s)) +
                keys.values[hi] * (-2 * s3 + 3 * s2) + keys.inTangents[hi] * (d * (s3 - s2)));
}

}  // namespace

float sampleKeys(const Keys<float>& keys, float t, float rest) { return sample(keys, t, rest); }
glm::vec3 sampleKeys(const Keys<glm::vec3>& keys, float t, const glm::vec3& rest) { return sample(keys, t, rest); }
glm::quat sampleKeys(const Keys<glm::quat>& keys, float t, const glm::quat& rest) { return sample(keys, t, rest); }

std::vector<float> sampleMorphWeights(const MorphWeightTrack& track, float t, const std::vector<float>& rest) {
  const size_t n = track.times.size(), w = track.targetCount;
  std::vector<float> out(w, 0.0f);
  if (n == 0 || track.weights.size() != n * w) {
    for (size_t i = 0; i < w && i < rest.size(); ++i) out[i] = rest[i];
    return out;
  }
  // Each target's weights are one scalar key set over the shared times.
  Keys<float> keys;
  keys.times = track.times;
  keys.interpolation = track.interpolation;
  const bool cubic = track.interpolation == Interpolation::CubicSpline && track.inTangents.size() == n * w && track.outTangents.size() == n * w;
  for (size_t i = 0; i < w; ++i) {
    keys.values.resize(n);
    for (size_t k = 0; k < n; ++k) keys.values[k] = track.weights[k * w + i];
    if (cubic) {
      keys.inTangents.resize(n);
      keys.outTangents.resize(n);
      for (size_t k = 0; k < n; ++k) keys.inTangents[k] = track.inTangents[k * w + i], keys.outTangents[k] = track.outTangents[k * w + i];
    }
    out[i] = sample(keys, t, 0.0f);
  }
  return out;
}

}  // namespace rigport
