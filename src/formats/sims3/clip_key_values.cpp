// Key records -> values (sims3_clip.md §2.5-§2.9): v = (sign ? -n : n) * scale + offset, where n is
// the normalised code (R2) or, for indexed curves, the palette float (§2.8).
#include <cstring>

#include "formats/sims3/clip_file.hpp"
#include "formats/sims3/clip_layout.hpp"
#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#endif

namespace rigport::sims3 {
namespace {

using namespace clip;

inline uint16_t load16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline uint32_t load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// R2: the sign flips the normalised value, before scale and offset.
inline float apply(float n, uint16_t flags, unsigned component, float scale, float offset) {
  return ((flags >> component) & 1u ? -n : n) * scale + offset;
}

// Each key's frame and upper flags, its values by `values(payload, flags, v)`: one loop per channel
// type, through plain pointers, so the type's switch and the curve's fields are read once, not per
// key (a package's 600,000 keys took some 35 instructions each with both in the loop). The keys'
// flags and order are counted here too, where they are read, not in a second pass over them.
template <class Values>
void eachKey(const uint8_t* p, size_t stride, size_t n, ClipKey* out, KeyTally& tally, const Values& values) {
  size_t flagged = 0, unsorted = 0;
  int32_t previous = -1;  // below every frame: the first key is after it
  for (size_t i = 0; i < n; ++i, p += stride) {
    ClipKey& k = out[i];
    k.frame = load16(p);
    const uint16_t flags = load16(p + 2);
    k.upperFlags = static_cast<uint16_t>(flags >> 4);
    values(p + kKeyHeaderSize, flags, k.v.data());
    flagged += k.upperFlags != 0 ? 1 : 0;
    unsorted += k.frame <= previous ? 1 : 0;
    previous = k.frame;
  }
  tally.flagged += flagged;
  tally.unsorted += unsorted;
}

}  // namespace

void dequantiseCurve(const ClipCurve& curve, std::span<const float> palette, std::vector<ClipKey>& out, KeyTally* tally) {
  const size_t n = curve.stride == 0 ? 0 : std::min<size_t>(curve.frameCount, curve.keyBytes.size() / curve.stride);
  out.resize(n);
  const uint8_t* const p = curve.keyBytes.data();
  const size_t stride = curve.stride;
  const float scale = curve.scale, offset = curve.offset;
  KeyTally counts;
  size_t& bad = counts.badIndices;
  switch (curve.channelType) {
    case kF3HighPrecisionNormalized:  // R5 / §2.7: x bits 0-9, y 10-19, z 20-29
      eachKey(p, stride, n, out.data(), counts, [scale, offset](const uint8_t* payload, uint16_t flags, float* v) {
        const uint32_t w = load32(payload);
#if RIGPORT_SSE2_LANES
        // The three components in SSE2 lanes as the quaternion's below (a fourth lane made and not
        // stored); bit for bit the scalar loop (Sims3Keys.TranslationLanesMatchTheScalarRule).
        const __m128i codes = _mm_and_si128(_mm_set_epi32(0, static_cast<int>(w >> 20), static_cast<int>(w >> 10), static_cast<int>(w)),
                                            _mm_set1_epi32(0x3FF));
        const __m128 n = _mm_div_ps(_mm_cvtepi32_ps(codes), _mm_set1_ps(kMax10));
        const __m128i bits = _mm_set_epi32(8, 4, 2, 1);
        const __m128i set = _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32(flags), bits), bits);
        const __m128 signed_ = _mm_xor_ps(n, _mm_and_ps(_mm_castsi128_ps(set), _mm_set1_ps(-0.0f)));
        const __m128 values = _mm_add_ps(_mm_mul_ps(signed_, _mm_set1_ps(scale)), _mm_set1_ps(offset));
        _mm_storel_pi(reinterpret_cast<__m64*>(v), values);
        _mm_store_ss(v + 2, _mm_movehl_ps(values, values));
#else
        for (unsigned c = 0; c < 3; ++c) v[c] = apply(static_cast<float>((w >> (10 * c)) & 0x3FFu) / kMax10, flags, c, scale, offset);
#endif
      });
      break;
    case kF4SuperHighPrecisionQuaternion:  // R4 / §2.6: four u16, low 12 bits, x y z w
      eachKey(p, stride, n, out.data(), counts, [scale, offset](const uint8_t* payload, uint16_t flags, float* v) {
#if RIGPORT_SSE2_LANES
        // The four components in SSE2 lanes, each lane apply()'s operations in its order: the
        // 12-bit code to float (exact), divided by 4095, the sign bit flipped where the flag is set
        // (-n), times scale, plus offset. Bit for bit the scalar loop below (a package's 500 clips,
        // every GLB cmp-equal to the scalar build's; Sims3Keys.QuaternionLanesMatchTheScalarRule).
        const __m128i codes = _mm_and_si128(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(payload)), _mm_set1_epi16(0x0FFF));
        const __m128 n = _mm_div_ps(_mm_cvtepi32_ps(_mm_unpacklo_epi16(codes, _mm_setzero_si128())), _mm_set1_ps(kMax12));
        const __m128i bits = _mm_set_epi32(8, 4, 2, 1);
        const __m128i set = _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32(flags), bits), bits);
        const __m128 signed_ = _mm_xor_ps(n, _mm_and_ps(_mm_castsi128_ps(set), _mm_set1_ps(-0.0f)));
        _mm_storeu_ps(v, _mm_add_ps(_mm_mul_ps(signed_, _mm_set1_ps(scale)), _mm_set1_ps(offset)));
#else
        for (unsigned c = 0; c < 4; ++c) v[c] = apply(static_cast<float>(load16(payload + 2 * c) & 0xFFFu) / kMax12, flags, c, scale, offset);
#endif
      });
      break;
    case kF3Indexed:  // R6 / §2.8: palette floats, the sign bit negating the palette value
      eachKey(p, stride, n, out.data(), counts, [scale, offset, palette, &bad](const uint8_t* payload, uint16_t flags, float* v) {
        for (unsigned c = 0; c < 3; ++c) {
          const uint16_t index = load16(payload + 2 * c);
          float value = 0.0f;
          if (index < palette.size()) {
            value = palette[index];
          } else {
            ++bad;
          }
          v[c] = apply(value, flags, c, scale, offset);
        }
      });
      break;
    case kF1Normalized:  // R7: u16 / 65535
      eachKey(p, stride, n, out.data(), counts, [scale, offset](const uint8_t* payload, uint16_t flags, float* v) {
        v[0] = apply(static_cast<float>(load16(payload)) / kMax16, flags, 0, scale, offset);
      });
      break;
    default:  // frames and flags only
      eachKey(p, stride, n, out.data(), counts, [](const uint8_t*, uint16_t, float*) {});
      break;
  }
  if (tally != nullptr) {
    tally->badIndices += counts.badIndices;
    tally->flagged += counts.flagged;
    tally->unsorted += counts.unsorted;
  }
}

}  // namespace rigport::sims3
