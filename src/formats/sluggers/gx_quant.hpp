// GX vertex components (sluggers.md §3 "Quantization byte, resolved"): the quantize byte's high
// nibble is the GXCompType (0 u8, 1 s8, 2 u16, 3 s16, 4 f32) and its low nibble the fractional bits.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "formats/sluggers/model_layout.hpp"

namespace rigport::sluggers {

// Bytes per component ([CP] DisplayDataSize), 0 for a nibble that is not a GX type.
size_t gxComponentSize(uint8_t quantizeInfo);

// Decodes `count` elements of kN components stored with one quantize byte: big-endian, scaled by
// 2^-frac unless float (§3). Element i starts at base + i * stride, its components
// gxComponentSize(quantizeInfo) bytes apart, and goes to out[i * kOutStride ..]; the caller has
// checked every byte lies inside the section. The scale is a power of two, so multiplying is exact
// (as quant::fixedToFloat). One loop per type, so no switch is left in the per-element work.
template <size_t kN, size_t kOutStride = kN>
void decodeGxArray(const uint8_t* base, size_t stride, size_t count, uint8_t quantizeInfo, float* out) {
  const float scale = 1.0f / static_cast<float>(1u << (quantizeInfo & 0xF));
  auto loop = [&](auto step, auto get) {
    for (size_t i = 0; i < count; ++i) {
      const uint8_t* p = base + i * stride;
      for (size_t c = 0; c < kN; ++c) out[i * kOutStride + c] = get(p + c * decltype(step)::value);
    }
  };
  using One = std::integral_constant<size_t, 1>;
  using Two = std::integral_constant<size_t, 2>;
  using Four = std::integral_constant<size_t, 4>;
  auto be16 = [](const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); };
  switch (static_cast<GxType>(quantizeInfo >> 4)) {
    case GxType::U8: loop(One{}, [&](const uint8_t* p) { return static_cast<float>(p[0]) * scale; }); break;
    case GxType::S8: loop(One{}, [&](const uint8_t* p) { return static_cast<float>(static_cast<int8_t>(p[0])) * scale; }); break;
    case GxType::U16: loop(Two{}, [&](const uint8_t* p) { return static_cast<float>(be16(p)) * scale; }); break;
    case GxType::S16: loop(Two{}, [&](const uint8_t* p) { return static_cast<float>(static_cast<int16_t>(be16(p))) * scale; }); break;
    case GxType::F32:
      loop(Four{}, [](const uint8_t* p) {
        return std::bit_cast<float>((uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3]);
      });
      break;
  }
}

// The quantize byte for `values` stored as `type`: the most fractional bits (0..15) that keep every
// value in range; nothing when even 0 bits do not (too large, or negative for an unsigned type).
std::optional<uint8_t> chooseQuantizeInfo(GxType type, std::span<const float> values);
// Appends one component, big-endian, rounded to nearest.
void putGxComponent(std::vector<uint8_t>& out, float v, uint8_t quantizeInfo);

// What `frac` fractional bits of a GX type hold: the least and greatest value and the step between
// two (0 for f32, which holds any finite float).
struct GxRange {
  double lowest = 0.0, highest = 0.0, step = 0.0;
};
GxRange gxRange(GxType type, unsigned frac);
// One component written over the gxComponentSize bytes at `at`, big-endian, rounded to nearest
// (within step / 2 of v); false, nothing written, when v is not finite or outside gxRange.
bool storeGxComponent(uint8_t* at, float v, GxType type, unsigned frac);

}  // namespace rigport::sluggers
