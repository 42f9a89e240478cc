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

}  // namespace rigport
