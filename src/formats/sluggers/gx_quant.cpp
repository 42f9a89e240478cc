#include "formats/sluggers/gx_quant.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "core/quant.hpp"

namespace rigport::sluggers {
namespace {

struct TypeInfo {
  unsigned bits;
  bool isSigned;
};
constexpr TypeInfo kTypes[kGxTypeCount] = {{8, false}, {8, true}, {16, false}, {16, true}, {32, true}};

uint32_t loadBig(const uint8_t* p, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

size_t gxComponentSize(uint8_t quantizeInfo) {
  const uint8_t type = quantizeInfo >> 4;
  return type < kGxTypeCount ? kTypes[type].bits / 8 : 0;
}

float gxComponent(const uint8_t* p, uint8_t quantizeInfo) {
  const uint8_t type = quantizeInfo >> 4;
  const unsigned frac = quantizeInfo & 0xF;
  switch (static_cast<GxType>(type)) {
    case GxType::U8: return quant::fixedToFloat(p[0], frac);
    case GxType::S8: return quant::fixedToFloat(static_cast<int8_t>(p[0]), frac);
    case GxType::U16: return quant::fixedToFloat(static_cast<int32_t>(loadBig(p, 2)), frac);
    case GxType::S16: return quant::fixedToFloat(static_cast<int16_t>(loadBig(p, 2)), frac);
    case GxType::F32: return std::bit_cast<float>(loadBig(p, 4));  // §3: floats are not scaled
  }
  return 0.0f;
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

}  // namespace rigport::sluggers
