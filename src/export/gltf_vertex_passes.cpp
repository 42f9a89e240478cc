#include "export/gltf_vertex_passes.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "core/vertex_lanes.hpp"
#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

namespace rigport::gltf {
namespace {

#if RIGPORT_SSE2_LANES
using lanes::joinXyz;
using lanes::MapLanes;
using lanes::splitXyz;
#endif

// With a map, each of `in` is written mapped to `out` (which may be `in`) and bounded as mapped;
// without one (`out` null), `in` is bounded as it is.
void boundsOneByOne(const glm::vec3* in, glm::vec3* out, size_t from, size_t to, const VertexMap* map, PositionBounds& b) {
  for (size_t v = from; v < to; ++v) {
    glm::vec3 p = in[v];
    if (map != nullptr) out[v] = p = map->point(p);
    b.lo = glm::min(b.lo, p);
    b.hi = glm::max(b.hi, p);
    b.finite &= std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
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

// boundsOneByOne()'s result over [0, n), four vertices at a time where the lanes are built.
PositionBounds bounds(const glm::vec3* in, glm::vec3* out, size_t n, const VertexMap* map) {
  PositionBounds b{glm::vec3(std::numeric_limits<float>::max()), glm::vec3(-std::numeric_limits<float>::max()), true};
  size_t v = 0;
#if RIGPORT_SSE2_LANES
  if (n >= 4) {
    // Each lane of the three running vectors holds one component: min(p, lo) is glm::min(lo, p)
    // (p < lo ? p : lo), lane by lane. Only the value of a bound is order-free; its sign is not
    // when +0 and -0 tie, so a bound that comes out zero is taken again in vertex order (over the
    // positions as mapped: they are written to `out` before that).
    const float* f = &in[0].x;
    __m128 lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
      lo[k] = _mm_set1_ps(std::numeric_limits<float>::max());
      hi[k] = _mm_set1_ps(-std::numeric_limits<float>::max());
    }
    const __m128i exponent = _mm_set1_epi32(0x7F800000);
    __m128i nonFinite = _mm_setzero_si128();  // lanes whose exponent bits are all ones
    std::optional<MapLanes> lanes;
    if (map != nullptr) lanes.emplace(*map);
    for (; v + 4 <= n; v += 4) {
      __m128 q[3] = {_mm_loadu_ps(f + 3 * v), _mm_loadu_ps(f + 3 * v + 4), _mm_loadu_ps(f + 3 * v + 8)};
      if (lanes) {
        __m128 x, y, z;
        splitXyz(q[0], q[1], q[2], x, y, z);
        lanes->point(x, y, z);
        joinXyz(x, y, z, q);
        for (int k = 0; k < 3; ++k) _mm_storeu_ps(&out[0].x + 3 * v + 4 * k, q[k]);
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
      const glm::vec3* bounded = map != nullptr ? out : in;
      for (size_t u = 0; u < v; ++u) {
        l = glm::min(l, bounded[u][c]);
        h = glm::max(h, bounded[u][c]);
      }
      b.lo[c] = l;
      b.hi[c] = h;
    }
  }
#endif
  boundsOneByOne(in, out, v, n, map, b);
  return b;
}

}  // namespace

PositionBounds positionBounds(const glm::vec3* p, size_t n) { return bounds(p, nullptr, n, nullptr); }

PositionBounds mapPositionBounds(const glm::vec3* in, glm::vec3* out, size_t n, const VertexMap& map) { return bounds(in, out, n, &map); }

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
