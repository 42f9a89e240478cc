// Four glm::quat keys at a time in SSE2 lanes, one register per component: what the axis change
// (core/axes.cpp), key normalisation (core/rig.cpp) and the repair's look at keys (core/repair.cpp) share. Each operation is glm's, in the same
// IEEE order, so a lane gives bit for bit what glm gives one key (both callers' tests compare with
// memcmp). Only where platform/simd.hpp compiles SSE2 lanes.
#pragma once

#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>

#include <glm/gtc/quaternion.hpp>

namespace rigport::lanes {

static_assert(sizeof(glm::quat) == 4 * sizeof(float), "glm::quat is x, y, z, w floats");

struct Quats {
  __m128 x, y, z, w;
};

// Keys k .. k+3 of `keys` (four glm::quat, each x, y, z, w), transposed.
inline Quats load(const glm::quat* keys) {
  const float* at = reinterpret_cast<const float*>(keys);
  Quats q{_mm_loadu_ps(at), _mm_loadu_ps(at + 4), _mm_loadu_ps(at + 8), _mm_loadu_ps(at + 12)};
  _MM_TRANSPOSE4_PS(q.x, q.y, q.z, q.w);
  return q;
}

inline void store(Quats q, glm::quat* keys) {
  float* at = reinterpret_cast<float*>(keys);
  _MM_TRANSPOSE4_PS(q.x, q.y, q.z, q.w);
  _mm_storeu_ps(at, q.x);
  _mm_storeu_ps(at + 4, q.y);
  _mm_storeu_ps(at + 8, q.z);
  _mm_storeu_ps(at + 12, q.w);
}

// glm::dot(q, q): (w*w + x*x) + (y*y + z*z).
inline __m128 squaredLength(const Quats& q) {
  return _mm_add_ps(_mm_add_ps(_mm_mul_ps(q.w, q.w), _mm_mul_ps(q.x, q.x)), _mm_add_ps(_mm_mul_ps(q.y, q.y), _mm_mul_ps(q.z, q.z)));
}

// glm::normalize: length = sqrt(dot(q, q)); at or below 0 the identity (NaN compares false, as in
// glm, and stays NaN); else each component times 1 / length.
inline Quats normalize(const Quats& q) {
  const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
  const __m128 len = _mm_sqrt_ps(squaredLength(q));
  const __m128 degenerate = _mm_cmple_ps(len, zero);
  const __m128 inv = _mm_div_ps(one, len);
  const auto pick = [&](__m128 scaled, __m128 identity) { return _mm_or_ps(_mm_and_ps(degenerate, identity), _mm_andnot_ps(degenerate, scaled)); };
  return Quats{pick(_mm_mul_ps(q.x, inv), zero), pick(_mm_mul_ps(q.y, inv), zero), pick(_mm_mul_ps(q.z, inv), zero), pick(_mm_mul_ps(q.w, inv), one)};
}

}  // namespace rigport::lanes

#endif
