// GX vertex components (sluggers.md §3 "Quantization byte, resolved"): the quantize byte's high
// nibble is the GXCompType (0 u8, 1 s8, 2 u16, 3 s16, 4 f32) and its low nibble the fractional bits.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <span>

#include "core/error.hpp"
#include "formats/sluggers/model_layout.hpp"

namespace rigport::sluggers {

// Bytes per component ([CP] DisplayDataSize), 0 for a nibble that is not a GX type.
size_t gxComponentSize(uint8_t quantizeInfo);

// Decodes components of one quantize byte: big-endian, scaled by 2^-frac unless float (§3). The
// scale is a power of two, so multiplying is exact (as quant::fixedToFloat) and costs no ldexp.
struct GxDecoder {
  explicit GxDecoder(uint8_t quantizeInfo)
      : type(static_cast<GxType>(quantizeInfo >> 4)), scale(1.0f / static_cast<float>(1u << (quantizeInfo & 0xF))) {}
  float operator()(const uint8_t* p) const {
    switch (type) {
      case GxType::U8: return static_cast<float>(p[0]) * scale;
      case GxType::S8: return static_cast<float>(static_cast<int8_t>(p[0])) * scale;
      case GxType::U16: return static_cast<float>((p[0] << 8) | p[1]) * scale;
      case GxType::S16: return static_cast<float>(static_cast<int16_t>(static_cast<uint16_t>((p[0] << 8) | p[1]))) * scale;
      case GxType::F32: return std::bit_cast<float>((uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3]);
    }
    return 0.0f;
  }
  GxType type;
  float scale;
};

// The quantize byte for `values` stored as `type`: the most fractional bits (0..15) that keep every
// value in range; nothing when even 0 bits do not (too large, or negative for an unsigned type).
std::optional<uint8_t> chooseQuantizeInfo(GxType type, std::span<const float> values);
// Appends one component, big-endian, rounded to nearest.
void putGxComponent(std::vector<uint8_t>& out, float v, uint8_t quantizeInfo);

}  // namespace rigport::sluggers
