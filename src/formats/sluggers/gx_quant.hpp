// GX vertex components (sluggers.md §3 "Quantization byte, resolved"): the quantize byte's high
// nibble is the GXCompType (0 u8, 1 s8, 2 u16, 3 s16, 4 f32) and its low nibble the fractional bits.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "core/error.hpp"
#include "formats/sluggers/model_layout.hpp"

namespace rigport::sluggers {

// Bytes per component ([CP] DisplayDataSize), 0 for a nibble that is not a GX type.
size_t gxComponentSize(uint8_t quantizeInfo);
// One component at `p` (big-endian), scaled by 2^-frac unless it is a float.
float gxComponent(const uint8_t* p, uint8_t quantizeInfo);

// The quantize byte for `values` stored as `type`: the most fractional bits (0..15) that keep every
// value in range; nothing when even 0 bits do not (too large, or negative for an unsigned type).
std::optional<uint8_t> chooseQuantizeInfo(GxType type, std::span<const float> values);
// Appends one component, big-endian, rounded to nearest.
void putGxComponent(std::vector<uint8_t>& out, float v, uint8_t quantizeInfo);

}  // namespace rigport::sluggers
