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

}  // namespace

void dequantiseCurve(const ClipCurve& curve, std::span<const float> palette, std::vector<ClipKey>& out, size_t* badIndices) {
  const size_t n = curve.stride == 0 ? 0 : std::min<size_t>(curve.frameCount, curve.keyBytes.size() / curve.stride);
  out.resize(n);
  const uint8_t* p = curve.keyBytes.data();
  const float scale = curve.scale, offset = curve.offset;
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i, p += curve.stride) {
    ClipKey& k = out[i];
    k.frame = load16(p);
    const uint16_t flags = load16(p + 2);
    k.upperFlags = static_cast<uint16_t>(flags >> 4);
    const uint8_t* payload = p + kKeyHeaderSize;
    switch (curve.channelType) {
      case kF3HighPrecisionNormalized: {  // R5 / §2.7: x bits 0-9, y 10-19, z 20-29
        const uint32_t w = load32(payload);
        for (unsigned c = 0; c < 3; ++c) k.v[c] = apply(static_cast<float>((w >> (10 * c)) & 0x3FFu) / kMax10, flags, c, scale, offset);
        break;
      }
      case kF4SuperHighPrecisionQuaternion: {  // R4 / §2.6: four u16, low 12 bits, x y z w
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
        _mm_storeu_ps(k.v.data(), _mm_add_ps(_mm_mul_ps(signed_, _mm_set1_ps(scale)), _mm_set1_ps(offset)));
#else
        for (unsigned c = 0; c < 4; ++c) {
          k.v[c] = apply(static_cast<float>(load16(payload + 2 * c) & 0xFFFu) / kMax12, flags, c, scale, offset);
        }
#endif
        break;
      }
      case kF3Indexed:  // R6 / §2.8: palette floats, the sign bit negating the palette value
        for (unsigned c = 0; c < 3; ++c) {
          const uint16_t index = load16(payload + 2 * c);
          float value = 0.0f;
          if (index < palette.size()) {
            value = palette[index];
          } else {
            ++bad;
          }
          k.v[c] = apply(value, flags, c, scale, offset);
        }
        break;
      case kF1Normalized:  // R7: u16 / 65535
        k.v[0] = apply(static_cast<float>(load16(payload)) / kMax16, flags, 0, scale, offset);
        break;
      default: break;
    }
  }
  if (badIndices != nullptr) *badIndices += bad;
}

}  // namespace rigport::sims3
