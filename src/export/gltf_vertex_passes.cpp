#include "export/gltf_vertex_passes.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

namespace rigport::gltf {
namespace {

// Vec is glm::vec3 when there is a map to write back through, const glm::vec3 otherwise.
template <class Vec>
void boundsOneByOne(Vec* p, size_t from, size_t to, const VertexMap* map, PositionBounds& b) {
  for (size_t v = from; v < to; ++v) {
    if constexpr (!std::is_const_v<Vec>) p[v] = map->point(p[v]);
    b.lo = glm::min(b.lo, p[v]);
    b.hi = glm::max(b.hi, p[v]);
    b.finite &= std::isfinite(p[v].x) && std::isfinite(p[v].y) && std::isfinite(p[v].z);
  }
}

uint64_t normalsOneByOne(const glm::vec3* in, size_t from, size_t to, float* out, const VertexMap* map) {
  uint64_t replaced = 0;
  for (size_t v = from; v < to; ++v) {
    glm::vec3 nv = map != nullptr ? map->direction(in[v]) : in[v];
    const float len = glm::length(nv);
    if (std::isfinite(len) && len > 1e-12f) {
      nv /= len;
    } else {
      nv = glm::vec3(0.0f, 1.0f, 0.0f);
      ++replaced;
    }
    out[v * 3 + 0] = nv.x;
    out[v * 3 + 1] = nv.y;
    out[v * 3 + 2] = nv.z;
  }
  return replaced;
}

#if RIGPORT_SSE2_LANES
// Four vertices are three vectors: a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3.
void splitXyz(__m128 a, __m128 b, __m128 c, __m128& x, __m128& y, __m128& z) {
  const __m128 bc = _mm_shuffle_ps(b, c, _MM_SHUFFLE(1, 0, 3, 2));  // b2 b3 c0 c1
  x = _mm_shuffle_ps(a, bc, _MM_SHUFFLE(3, 0, 3, 0));
  const __m128 ab1 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 1, 1));  // a1 a1 b0 b0
  const __m128 bc1 = _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 2, 3, 3));  // b3 b3 c2 c2
  y = _mm_shuffle_ps(ab1, bc1, _MM_SHUFFLE(2, 0, 2, 0));
  const __m128 ab2 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 1, 2, 2));  // a2 a2 b1 b1
  z = _mm_shuffle_ps(ab2, c, _MM_SHUFFLE(3, 0, 2, 0));
}

// splitXyz() undone: abc[0..2] are a, b and c.
void joinXyz(__m128 x, __m128 y, __m128 z, __m128* abc) {
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

// VertexMap in lanes: component r of P·v is (p[0][r]·x + p[1][r]·y) + p[2][r]·z, glm's order for
// mat3 * vec3, and a point's is then multiplied by s.
struct MapLanes {
  explicit MapLanes(const VertexMap& map) : s(_mm_set1_ps(map.s)) {
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) p[c][r] = _mm_set1_ps(map.p[c][r]);
  }
  void direction(__m128& x, __m128& y, __m128& z) const {
    __m128 out[3];
    for (int r = 0; r < 3; ++r) out[r] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(p[0][r], x), _mm_mul_ps(p[1][r], y)), _mm_mul_ps(p[2][r], z));
    x = out[0];
    y = out[1];
    z = out[2];
  }
  void point(__m128& x, __m128& y, __m128& z) const {
    direction(x, y, z);
    x = _mm_mul_ps(s, x);
    y = _mm_mul_ps(s, y);
    z = _mm_mul_ps(s, z);
  }
  __m128 p[3][3];
  __m128 s;
};
#endif

template <class Vec>
PositionBounds bounds(Vec* p, size_t n, const VertexMap* map) {
  PositionBounds b{glm::vec3(std::numeric_limits<float>::max()), glm::vec3(-std::numeric_limits<float>::max()), true};
  size_t v = 0;
#if RIGPORT_SSE2_LANES
  if (n >= 4) {
    // Each lane of the three running vectors holds one component: min(p, lo) is glm::min(lo, p)
    // (p < lo ? p : lo), lane by lane. Only the value of a bound is order-free; its sign is not
    // when +0 and -0 tie, so a bound that comes out zero is taken again in vertex order (over the
    // positions as mapped: they are written back before that).
    auto* f = &p[0].x;
    __m128 lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
      lo[k] = _mm_set1_ps(std::numeric_limits<float>::max());
      hi[k] = _mm_set1_ps(-std::numeric_limits<float>::max());
    }
    const __m128i exponent = _mm_set1_epi32(0x7F800000);
    __m128i nonFinite = _mm_setzero_si128();  // lanes whose exponent bits are all ones
    std::optional<MapLanes> lanes;
    if constexpr (!std::is_const_v<Vec>) lanes.emplace(*map);
    for (; v + 4 <= n; v += 4) {
      __m128 q[3] = {_mm_loadu_ps(f + 3 * v), _mm_loadu_ps(f + 3 * v + 4), _mm_loadu_ps(f + 3 * v + 8)};
      if constexpr (!std::is_const_v<Vec>) {
        __m128 x, y, z;
        splitXyz(q[0], q[1], q[2], x, y, z);
        lanes->point(x, y, z);
        joinXyz(x, y, z, q);
        for (int k = 0; k < 3; ++k) _mm_storeu_ps(f + 3 * v + 4 * k, q[k]);
      }
      for (int k = 0; k < 3; ++k) {
        lo[k] = _mm_min_ps(q[k], lo[k]);
        hi[k] = _mm_max_ps(q[k], hi[k]);
        nonFinite = _mm_or_si128(nonFinite, _mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(q[k]), exponent), exponent));
      }
    }
    b.finite = _mm_movemask_epi8(nonFinite) == 0;
    float low[12], high[12];
    for (int k = 0; k < 3; ++k) {
      _mm_storeu_ps(low + 4 * k, lo[k]);
      _mm_storeu_ps(high + 4 * k, hi[k]);
    }
    for (int i = 0; i < 12; ++i) {  // float i of a group is component i % 3
      b.lo[i % 3] = std::min(b.lo[i % 3], low[i]);
      b.hi[i % 3] = std::max(b.hi[i % 3], high[i]);
    }
    for (int c = 0; c < 3; ++c) {
      if (b.lo[c] != 0.0f && b.hi[c] != 0.0f) continue;
      float l = std::numeric_limits<float>::max(), h = -std::numeric_limits<float>::max();
      for (size_t u = 0; u < v; ++u) {
        l = glm::min(l, p[u][c]);
        h = glm::max(h, p[u][c]);
      }
      b.lo[c] = l;
      b.hi[c] = h;
    }
  }
#endif
  boundsOneByOne(p, v, n, map, b);
  return b;
}

}  // namespace

PositionBounds positionBounds(const glm::vec3* p, size_t n) { return bounds(p, n, nullptr); }

PositionBounds mapPositionBounds(glm::vec3* p, size_t n, const VertexMap& map) { return bounds(p, n, &map); }

uint64_t writeUnitNormals(const glm::vec3* normals, size_t n, float* out, const VertexMap* map) {
  uint64_t replaced = 0;
  size_t v = 0;
#if RIGPORT_SSE2_LANES
  // glm::length is sqrt((x*x + y*y) + z*z), and each lane computes the same IEEE operations.
  const float* f = &normals[0].x;
  // Lanes not kept, by the 4-bit mask of those kept: a table, as a popcount without -mpopcnt is a
  // library call per block.
  static constexpr uint8_t kNotKept[16] = {4, 3, 3, 2, 3, 2, 2, 1, 3, 2, 2, 1, 2, 1, 1, 0};
  const __m128 tiny = _mm_set1_ps(1e-12f);
  const __m128 infinity = _mm_set1_ps(std::numeric_limits<float>::infinity());
  std::optional<MapLanes> lanes;
  if (map != nullptr) lanes.emplace(*map);
  for (; v + 4 <= n; v += 4) {
    __m128 x, y, z;
    splitXyz(_mm_loadu_ps(f + 3 * v), _mm_loadu_ps(f + 3 * v + 4), _mm_loadu_ps(f + 3 * v + 8), x, y, z);
    if (lanes) lanes->direction(x, y, z);
    const __m128 len = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z)));
    const __m128 unit = _mm_and_ps(_mm_cmplt_ps(len, infinity), _mm_cmpgt_ps(len, tiny));  // false for NaN
    const int kept = _mm_movemask_ps(unit);
    replaced += kNotKept[kept];
    x = _mm_and_ps(unit, _mm_div_ps(x, len));
    y = _mm_or_ps(_mm_and_ps(unit, _mm_div_ps(y, len)), _mm_andnot_ps(unit, _mm_set1_ps(1.0f)));
    z = _mm_and_ps(unit, _mm_div_ps(z, len));
    __m128 abc[3];
    joinXyz(x, y, z, abc);
    for (int k = 0; k < 3; ++k) _mm_storeu_ps(out + 3 * v + 4 * k, abc[k]);
  }
#endif
  return replaced + normalsOneByOne(normals, v, n, out, map);
}

}  // namespace rigport::gltf
