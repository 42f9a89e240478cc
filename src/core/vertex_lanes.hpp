// Vertices in SSE2 lanes, four at a time: three vectors of 4 floats hold four glm::vec3 (x0 y0 z0 x1,
// y1 z1 x2 y2, z2 x3 y3 z3), split into a vector of each component and joined back; VertexMap
// (core/axes.hpp) in those lanes, each lane the same float operations as glm's. Shared by the axis
// change (core/axes.cpp) and the glTF exporter's vertex passes; growBox() by the rest box of
// `compare` (core/compare.cpp) and the DFF's bounding spheres (formats/renderware/geometry.cpp).
#pragma once

#include "core/axes.hpp"
#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#include <xmmintrin.h>

namespace rigport::lanes {

// Four vertices are three vectors: a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3.
inline void splitXyz(__m128 a, __m128 b, __m128 c, __m128& x, __m128& y, __m128& z) {
  const __m128 bc = _mm_shuffle_ps(b, c, _MM_SHUFFLE(1, 0, 3, 2));  // b2 b3 c0 c1
  x = _mm_shuffle_ps(a, bc, _MM_SHUFFLE(3, 0, 3, 0));
  const __m128 ab1 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 1, 1));  // a1 a1 b0 b0
  const __m128 bc1 = _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 2, 3, 3));  // b3 b3 c2 c2
  y = _mm_shuffle_ps(ab1, bc1, _MM_SHUFFLE(2, 0, 2, 0));
  const __m128 ab2 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 1, 2, 2));  // a2 a2 b1 b1
  z = _mm_shuffle_ps(ab2, c, _MM_SHUFFLE(3, 0, 2, 0));
}

// splitXyz() undone: abc[0..2] are a, b and c.
inline void joinXyz(__m128 x, __m128 y, __m128 z, __m128* abc) {
  const __m128 xyLow = _mm_unpacklo_ps(x, y);   // x0 y0 x1 y1
  const __m128 xyHigh = _mm_unpackhi_ps(x, y);  // x2 y2 x3 y3
  const __m128 zxLow = _mm_unpacklo_ps(z, x);   // z0 x0 z1 x1
  const __m128 zxHigh = _mm_unpackhi_ps(z, x);  // z2 x2 z3 x3
  const __m128 yzLow = _mm_unpacklo_ps(y, z);   // y0 z0 y1 z1
  const __m128 yzHigh = _mm_unpackhi_ps(y, z);  // y2 z2 y3 z3
  abc[0] = _mm_shuffle_ps(xyLow, zxLow, _MM_SHUFFLE(3, 0, 1, 0));
  abc[1] = _mm_shuffle_ps(yzLow, xyHigh, _MM_SHUFFLE(1, 0, 3, 2));
  abc[2] = _mm_shuffle_ps(zxHigh, yzHigh, _MM_SHUFFLE(3, 2, 3, 0));
}

// A mat3 in lanes: component r of m·(x, y, z) is (m[0][r]·x + m[1][r]·y) + m[2][r]·z, glm's order
// for mat3 * vec3.
struct LinearLanes {
  explicit LinearLanes(const glm::mat3& m) {
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) a[c][r] = _mm_set1_ps(m[c][r]);
  }
  void apply(__m128& x, __m128& y, __m128& z) const {
    __m128 out[3];
    for (int r = 0; r < 3; ++r) out[r] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a[0][r], x), _mm_mul_ps(a[1][r], y)), _mm_mul_ps(a[2][r], z));
    x = out[0];
    y = out[1];
    z = out[2];
  }
  __m128 a[3][3];
};

// VertexMap in lanes: P·v as LinearLanes, and a point's then multiplied by s.
struct MapLanes {
  explicit MapLanes(const VertexMap& map) : p(map.p), s(_mm_set1_ps(map.s)) {}
  void direction(__m128& x, __m128& y, __m128& z) const { p.apply(x, y, z); }
  void point(__m128& x, __m128& y, __m128& z) const {
    direction(x, y, z);
    x = _mm_mul_ps(s, x);
    y = _mm_mul_ps(s, y);
    z = _mm_mul_ps(s, z);
  }
  LinearLanes p;
  __m128 s;
};

// An affine mat4 in lanes, for points (w = 1): component r of m·(x, y, z, 1) is
// (m[0][r]·x + m[1][r]·y) + (m[2][r]·z + m[3][r]·1), glm's order for mat4 * vec4.
struct AffineLanes {
  explicit AffineLanes(const glm::mat4& m) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 3; ++r) a[c][r] = _mm_set1_ps(m[c][r]);
  }
  void point(__m128& x, __m128& y, __m128& z) const {
    const __m128 one = _mm_set1_ps(1.0f);
    __m128 out[3];
    for (int r = 0; r < 3; ++r) {
      out[r] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a[0][r], x), _mm_mul_ps(a[1][r], y)), _mm_add_ps(_mm_mul_ps(a[2][r], z), _mm_mul_ps(a[3][r], one)));
    }
    x = out[0];
    y = out[1];
    z = out[2];
  }
  __m128 a[4][3];
};

// m · (x, y, z, w) for one point, x, y, z and w each broadcast over the 4 lanes: the columns of m
// are lanes of 4 floats, summed (c0·x + c1·y) + (c2·z + c3·w), glm's order for mat4 * vec4.
inline __m128 timesPoint(const glm::mat4& m, __m128 x, __m128 y, __m128 z, __m128 w) {
  const __m128 c0 = _mm_loadu_ps(&m[0][0]), c1 = _mm_loadu_ps(&m[1][0]), c2 = _mm_loadu_ps(&m[2][0]), c3 = _mm_loadu_ps(&m[3][0]);
  return _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, x), _mm_mul_ps(c1, y)), _mm_add_ps(_mm_mul_ps(c2, z), _mm_mul_ps(c3, w)));
}

// Whether lane x, y or z of `v` is not finite (all-ones exponent bits), as std::isfinite judges.
inline bool anyXyzNotFinite(__m128 v) {
  const __m128i exponent = _mm_set1_epi32(0x7F800000);
  const __m128i allOnes = _mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(v), exponent), exponent);
  return (_mm_movemask_epi8(allOnes) & 0x0FFF) != 0;
}

// `f(x, y, z)` over the vertices at `v` four at a time (x, y, z the lanes of four vertices, changed
// in place), written back; returns how many were done (a multiple of four), the rest left to the caller.
template <class F>
size_t inLanes(glm::vec3* v, size_t n, F&& f) {
  float* p = &v[0].x;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128 x, y, z, q[3];
    splitXyz(_mm_loadu_ps(p + 3 * i), _mm_loadu_ps(p + 3 * i + 4), _mm_loadu_ps(p + 3 * i + 8), x, y, z);
    f(x, y, z);
    joinXyz(x, y, z, q);
    for (int k = 0; k < 3; ++k) _mm_storeu_ps(p + 3 * i + 4 * k, q[k]);
  }
  return i;
}

// The box [lo, hi] grown by p[0..n) in vertex order as glm's min and max grow it: glm::min(lo, v) is
// (v < lo) ? v : lo, which _mm_min_ps(v, lo) is lane by lane (glm::max(hi, v) _mm_max_ps(v, hi)),
// NaN included, in lanes x, y, z and one unused. With kSkipNonFinite a vertex with a component of
// all-ones exponent (not finite) is left out, as std::isfinite leaves it. 16 bytes are loaded from
// each vertex but the last (lane 3 the next one's x, looked at by nobody).
template <bool kSkipNonFinite>
void growBox(const glm::vec3* p, size_t n, glm::vec3& lo, glm::vec3& hi) {
  __m128 l = _mm_setr_ps(lo.x, lo.y, lo.z, 0.0f), h = _mm_setr_ps(hi.x, hi.y, hi.z, 0.0f);
  for (size_t i = 0; i < n; ++i) {
    const __m128 v = i + 1 < n ? _mm_loadu_ps(&p[i].x) : _mm_setr_ps(p[i].x, p[i].y, p[i].z, 0.0f);
    if (kSkipNonFinite && anyXyzNotFinite(v)) continue;
    l = _mm_min_ps(v, l);
    h = _mm_max_ps(v, h);
  }
  alignas(16) float out[2][4];
  _mm_store_ps(out[0], l);
  _mm_store_ps(out[1], h);
  lo = glm::vec3(out[0][0], out[0][1], out[0][2]);
  hi = glm::vec3(out[1][0], out[1][1], out[1][2]);
}

}  // namespace rigport::lanes
#endif
