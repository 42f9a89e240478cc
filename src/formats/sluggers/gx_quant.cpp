#include "formats/sluggers/gx_quant.hpp"

#include <cmath>
#include <limits>

#include "core/quant.hpp"

namespace rigport::sluggers {
namespace {

struct TypeInfo {
  unsigned bits;
  bool isSigned;
};
constexpr TypeInfo kTypes[kGxTypeCount] = {{8, false}, {8, true}, {16, false}, {16, true}, {32, true}};

}  // namespace

size_t gxComponentSize(uint8_t quantizeInfo) {
  const uint8_t type = quantizeInfo >> 4;
  return type < kGxTypeCount ? kTypes[type].bits / 8 : 0;
}

std::optional<uint8_t> chooseQuantizeInfo(GxType type, std::span<const float> values) {
  const uint8_t high = static_cast<uint8_t>(static_cast<uint8_t>(type) << 4);
  if (type == GxType::F32) return high;
  const TypeInfo t = kTypes[static_cast<uint8_t>(type)];
  const double lo = t.isSigned ? -std::ldexp(1.0, static_cast<int>(t.bits) - 1) : 0.0;
  const double hi = t.isSigned ? std::ldexp(1.0, static_cast<int>(t.bits) - 1) - 1.0 : std::ldexp(1.0, static_cast<int>(t.bits)) - 1.0;
  double vmin = 0.0, vmax = 0.0;
  for (float v : values) {
    if (!std::isfinite(v)) return std::nullopt;
    vmin = std::min(vmin, static_cast<double>(v));
    vmax = std::max(vmax, static_cast<double>(v));
  }
  for (int frac = 15; frac >= 0; --frac) {
    const double scale = std::ldexp(1.0, frac);
    if (std::nearbyint(vmin * scale) >= lo && std::nearbyint(vmax * scale) <= hi) return static_cast<uint8_t>(high | frac);
  }
  return std::nullopt;
}

void putGxComponent(std::vector<uint8_t>& out, float v, uint8_t quantizeInfo) {
  const uint8_t type = quantizeInfo >> 4;
  if (static_cast<GxType>(type) == GxType::F32) {
    const uint32_t u = std::bit_cast<uint32_t>(v);
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(u >> s));
    return;
  }
  const TypeInfo t = kTypes[type];
  const uint32_t raw = static_cast<uint32_t>(quant::floatToFixed(v, quantizeInfo & 0xF, t.bits, t.isSigned));
  if (t.bits == 16) out.push_back(static_cast<uint8_t>(raw >> 8));
  out.push_back(static_cast<uint8_t>(raw));
}

GxRange gxRange(GxType type, unsigned frac) {
  if (type == GxType::F32) return {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), 0.0};
  const TypeInfo t = kTypes[static_cast<uint8_t>(type)];
  const double step = std::ldexp(1.0, -static_cast<int>(frac));
  const double lo = t.isSigned ? -std::ldexp(1.0, static_cast<int>(t.bits) - 1) : 0.0;
  const double hi = t.isSigned ? std::ldexp(1.0, static_cast<int>(t.bits) - 1) - 1.0 : std::ldexp(1.0, static_cast<int>(t.bits)) - 1.0;
  return {lo * step, hi * step, step};
}

bool storeGxComponent(uint8_t* at, float v, GxType type, unsigned frac) {
  if (!std::isfinite(v)) return false;
  if (type == GxType::F32) {
    const uint32_t u = std::bit_cast<uint32_t>(v);
    for (int k = 0; k < 4; ++k) at[k] = static_cast<uint8_t>(u >> (24 - 8 * k));
    return true;
  }
  const GxRange range = gxRange(type, frac);
  const double raw = std::nearbyint(static_cast<double>(v) / range.step);
  if (raw * range.step < range.lowest || raw * range.step > range.highest) return false;
  const auto bits = static_cast<uint32_t>(static_cast<int64_t>(raw));
  if (kTypes[static_cast<uint8_t>(type)].bits == 16) {
    at[0] = static_cast<uint8_t>(bits >> 8);
    at[1] = static_cast<uint8_t>(bits);
  } else {
    at[0] = static_cast<uint8_t>(bits);
  }
  return true;
}

}  // namespace rigport::sluggers
