// RW half float of compressed animation keys (interpolator type 2), renderware.md §1.10.
// Not IEEE binary16: sign = bit 15, exponent field e = bits 11–14, mantissa m = bits 0–10,
// value = ±(1 + m/2048)·2^(e−15); a zero magnitude (bits 0–14 all 0) is ±0. Hence |v| < 2 and
// there are no denormals, infinities or NaNs.
#pragma once

#include <cstdint>

namespace rigport::renderware {

float rwHalfToFloat(uint16_t bits);

}  // namespace rigport::renderware
