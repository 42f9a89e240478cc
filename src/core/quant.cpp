#include "core/quant.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace rigport::quant {
namespace {

uint32_t mask(unsigned bits) { return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u; }

// Rounds in double (a float times a ≤16-bit integer is exact there), half away from zero, after
// clamping to [lo, hi]; NaN gives 0.
int32_t roundClamped(double x, double lo, double hi) {
  if (std::isnan(x)) return 0;
  return static_cast<int32_t>(std::lround(std::clamp(x, lo, hi)));
}

}  // namespace

float unormToFloat(uint32_t code, unsigned bits) {
  assert(bits >= 1 && bits <= 16);
  return static_cast<float>(code & mask(bits)) / static_cast<float>(mask(bits));
}

uint32_t floatToUnorm(float v, unsigned bits) {
  assert(bits >= 1 && bits <= 16);
  const double max = mask(bits);
  return static_cast<uint32_t>(roundClamped(static_cast<double>(v) * max, 0.0, max));
}

int32_t signExtend(uint32_t code, unsigned bits) {
  assert(bits >= 1 && bits <= 32);
  // C++20 defines both the conversion to int32_t (modulo 2^32) and >> of a negative (arithmetic).
  const unsigned unused = 32 - bits;
  return static_cast<int32_t>(code << unused) >> unused;
}

float snormToFloat(uint32_t code, unsigned bits) {
  assert(bits >= 2 && bits <= 16);
  const float max = static_cast<float>(mask(bits - 1));
  return std::max(static_cast<float>(signExtend(code, bits)) / max, -1.0f);
}

uint32_t floatToSnorm(float v, unsigned bits) {
  assert(bits >= 2 && bits <= 16);
  const double max = mask(bits - 1);
  return static_cast<uint32_t>(roundClamped(static_cast<double>(v) * max, -max, max)) & mask(bits);
}

float fixedToFloat(int32_t raw, unsigned frac) { return std::ldexp(static_cast<float>(raw), -static_cast<int>(frac)); }

int32_t floatToFixed(float v, unsigned frac, unsigned bits, bool isSigned) {
  assert(bits >= 1 && bits <= 16 && frac < 32);
  const double lo = isSigned ? -std::ldexp(1.0, static_cast<int>(bits) - 1) : 0.0;
  const double hi = isSigned ? std::ldexp(1.0, static_cast<int>(bits) - 1) - 1.0 : static_cast<double>(mask(bits));
  return roundClamped(std::ldexp(static_cast<double>(v), static_cast<int>(frac)), lo, hi);
}

glm::vec4 unpackUnorm1010102(uint32_t word) {
  return {unormToFloat(word, 10), unormToFloat(word >> 10, 10), unormToFloat(word >> 20, 10), unormToFloat(word >> 30, 2)};
}

uint32_t packUnorm1010102(const glm::vec4& v) {
  return floatToUnorm(v.x, 10) | floatToUnorm(v.y, 10) << 10 | floatToUnorm(v.z, 10) << 20 | floatToUnorm(v.w, 2) << 30;
}

glm::vec4 unpackSnorm1010102(uint32_t word) {
  return {snormToFloat(word, 10), snormToFloat(word >> 10, 10), snormToFloat(word >> 20, 10), snormToFloat(word >> 30, 2)};
}

uint32_t packSnorm1010102(const glm::vec4& v) {
  return floatToSnorm(v.x, 10) | floatToSnorm(v.y, 10) << 10 | floatToSnorm(v.z, 10) << 20 | floatToSnorm(v.w, 2) << 30;
}

glm::vec3 unpackCmp111110(uint32_t word) {
  return {snormToFloat(word, 11), snormToFloat(word >> 11, 11), snormToFloat(word >> 22, 10)};
}

uint32_t packCmp111110(const glm::vec3& v) {
  return floatToSnorm(v.x, 11) | floatToSnorm(v.y, 11) << 11 | floatToSnorm(v.z, 10) << 22;
}

float weightOver256(uint8_t raw) { return static_cast<float>(raw) / 256.0f; }

uint32_t weightTo256ths(float w) { return static_cast<uint32_t>(roundClamped(static_cast<double>(w) * 256.0, 0.0, 256.0)); }

}  // namespace rigport::quant
