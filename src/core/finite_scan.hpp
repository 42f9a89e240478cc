// A look for infinite or NaN floats over a whole array, on their exponent bits, in a pass without
// early exit: GCC vectorises it (at -O3), where a per-element std::isfinite with an early return
// stays scalar. Repairs and the exporter's checks run it over every vertex and key of every model,
// and walk element by element only when it finds something.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#endif

namespace rigport {

// Whether any float of `values` (a vector of floats, or of records of floats: glm::vec3, quat) is
// infinite or NaN.
template <class V>
bool anyNonFinite(const std::vector<V>& values) {
  static_assert(sizeof(V) % sizeof(float) == 0);
  const size_t n = values.size() * (sizeof(V) / sizeof(float));
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  uint32_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, bytes + 4 * i, 4);
    bad |= static_cast<uint32_t>((bits & 0x7F800000u) == 0x7F800000u);
  }
  return bad != 0;
}

// 1 when a skin weight is negative, infinite or NaN (-0 is fine, as 0 <= -0), else 0: the test on
// its bits, for loops over every influence that OR it up without early exit.
inline uint32_t unusableWeight(float weight) {
  const uint32_t bits = std::bit_cast<uint32_t>(weight), magnitude = bits & 0x7FFFFFFFu;
  return static_cast<uint32_t>(magnitude >= 0x7F800000u) | ((bits >> 31) & static_cast<uint32_t>(magnitude != 0));
}

// Whether any of `count` influences (records of a u32 bone and an f32 weight) has an unusable weight
// (unusableWeight()) or, when `checkBones`, names a bone >= `bones`: a pass without early exit over
// every influence of a model (validate(), repairRig()). The interleaved records keep GCC from
// vectorising the plain loop; the SSE2 lanes take four at a time, each the same test
// (Validate.InfluenceScanLanesMatchTheScalarRule).
template <class InfluenceT>
bool anyBadInfluence(const InfluenceT* first, size_t count, uint32_t bones, bool checkBones) {
  static_assert(sizeof(InfluenceT) == 8);
  const auto* words = reinterpret_cast<const unsigned char*>(first);  // {bone, weight} pairs of 32-bit words
  size_t i = 0;
  uint32_t bad = 0;
#if RIGPORT_SSE2_LANES
  if (bones > 0 || !checkBones) {
    // bone >= bones, unsigned: (bone ^ 2^31) > ((bones - 1) ^ 2^31), signed.
    const __m128i flip = _mm_set1_epi32(INT32_MIN);
    const __m128i last = _mm_set1_epi32(static_cast<int32_t>((checkBones ? bones - 1 : UINT32_MAX) ^ 0x80000000u));
    const __m128i magnitudeMask = _mm_set1_epi32(0x7FFFFFFF), finiteMax = _mm_set1_epi32(0x7F7FFFFF), zero = _mm_setzero_si128();
    __m128i any = _mm_setzero_si128();
    for (; i + 4 <= count; i += 4) {
      const __m128 a = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(words + 8 * i)));
      const __m128 b = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(words + 8 * i + 16)));
      const __m128i bone = _mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
      const __m128i weight = _mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
      const __m128i magnitude = _mm_and_si128(weight, magnitudeMask);
      const __m128i notFinite = _mm_cmpgt_epi32(magnitude, finiteMax);
      const __m128i negative = _mm_andnot_si128(_mm_cmpeq_epi32(magnitude, zero), _mm_srai_epi32(weight, 31));
      const __m128i beyond = _mm_cmpgt_epi32(_mm_xor_si128(bone, flip), last);
      any = _mm_or_si128(any, _mm_or_si128(_mm_or_si128(notFinite, negative), beyond));
    }
    bad = static_cast<uint32_t>(_mm_movemask_epi8(any));
  }
#endif
  for (; i < count; ++i) {
    uint32_t bone, weight;
    std::memcpy(&bone, words + 8 * i, 4);
    std::memcpy(&weight, words + 8 * i + 4, 4);
    bad |= unusableWeight(std::bit_cast<float>(weight)) | static_cast<uint32_t>(checkBones && bone >= bones);
  }
  return bad != 0;
}

}  // namespace rigport
