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

// q -> normalize(p * q * conjugate(p)) for a fixed p (the axis change's rotation(), core/axes.hpp):
// glm's quaternion product twice (p the left operand, then conjugate(p) the right), then normalize,
// each in glm's IEEE order (no FMA: the baseline has none). Held apart so that p's lanes are set
// once per array of keys.
struct Conjugation {
  __m128 pw, px, py, pz, cw, cx, cy, cz;
  explicit Conjugation(const glm::quat& p)
      : pw(_mm_set1_ps(p.w)), px(_mm_set1_ps(p.x)), py(_mm_set1_ps(p.y)), pz(_mm_set1_ps(p.z)), cw(_mm_set1_ps(p.w)),
        cx(_mm_set1_ps(-p.x)), cy(_mm_set1_ps(-p.y)), cz(_mm_set1_ps(-p.z)) {}
  Quats operator()(const Quats& q) const {
    // t = p * q
    const __m128 tw = _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(_mm_mul_ps(pw, q.w), _mm_mul_ps(px, q.x)), _mm_mul_ps(py, q.y)), _mm_mul_ps(pz, q.z));
    const __m128 tx = _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(pw, q.x), _mm_mul_ps(px, q.w)), _mm_mul_ps(py, q.z)), _mm_mul_ps(pz, q.y));
    const __m128 ty = _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(pw, q.y), _mm_mul_ps(py, q.w)), _mm_mul_ps(pz, q.x)), _mm_mul_ps(px, q.z));
    const __m128 tz = _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(pw, q.z), _mm_mul_ps(pz, q.w)), _mm_mul_ps(px, q.y)), _mm_mul_ps(py, q.x));
    // r = t * conjugate(p)
    Quats r;
    r.w = _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(_mm_mul_ps(tw, cw), _mm_mul_ps(tx, cx)), _mm_mul_ps(ty, cy)), _mm_mul_ps(tz, cz));
    r.x = _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(tw, cx), _mm_mul_ps(tx, cw)), _mm_mul_ps(ty, cz)), _mm_mul_ps(tz, cy));
    r.y = _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(tw, cy), _mm_mul_ps(ty, cw)), _mm_mul_ps(tz, cx)), _mm_mul_ps(tx, cz));
    r.z = _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(tw, cz), _mm_mul_ps(tz, cw)), _mm_mul_ps(tx, cy)), _mm_mul_ps(ty, cx));
    return normalize(r);
  }
};

}  // namespace rigport::lanes

#endif
