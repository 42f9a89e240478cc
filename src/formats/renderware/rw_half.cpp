#include "formats/renderware/rw_half.hpp"

#include <cmath>

namespace rigport::renderware {

float rwHalfToFloat(uint16_t bits) {
  const bool negative = (bits & 0x8000u) != 0;
  if ((bits & 0x7FFFu) == 0) return negative ? -0.0f : 0.0f;
  const int exponent = static_cast<int>((bits >> 11) & 0xFu);
  const uint32_t mantissa = bits & 0x7FFu;
  // (2048 + m) · 2^(e − 15 − 11) = (1 + m/2048) · 2^(e − 15), exact in float.
  const float magnitude = std::ldexp(static_cast<float>(2048u + mantissa), exponent - 26);
  return negative ? -magnitude : magnitude;
}

}  // namespace rigport::renderware
