#include "formats/rw4/vertex_format.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "core/quant.hpp"


namespace rigport::rw4 {
namespace {

constexpr float kPositionScale = 256.0f;  // §3.1: S1/S32K positions are raw / 256 in the tools

template <class T>
T load(const uint8_t* p, bool swap) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if (swap) v = byteSwap(v);
  return v;
}

template <class T>
void store(uint8_t* p, T v, bool swap) {
  if (swap) v = byteSwap(v);
  std::memcpy(p, &v, sizeof(T));
}

float snorm16(int16_t c) { return std::max(static_cast<float>(c) / 32767.0f, -1.0f); }

// §3.1 CMP, inline (quant::unpackCmp111110 is the reference; the tests compare both).
[[gnu::always_inline]] inline void unpackCmp(uint32_t w, float* out) {
  const int32_t x = static_cast<int32_t>(w << 21) >> 21;
  const int32_t y = static_cast<int32_t>((w >> 11) << 21) >> 21;
  const int32_t z = static_cast<int32_t>(w) >> 22;
  out[0] = std::max(static_cast<float>(x) / 1023.0f, -1.0f);
  out[1] = std::max(static_cast<float>(y) / 1023.0f, -1.0f);
  out[2] = std::max(static_cast<float>(z) / 511.0f, -1.0f);
}

// One loop per type, component count and byte order, so nothing but the conversion is left in the
// per-vertex work: `Get` turns the component at p into a float, kStep bytes apart.
template <size_t kStep, size_t kComponents, class Get>
void decodeFixed(const uint8_t* base, size_t stride, size_t count, float* out, size_t outStride, Get get) {
  for (size_t v = 0; v < count; ++v) {
    const uint8_t* p = base + v * stride;
    float* o = out + v * outStride;
    for (size_t c = 0; c < kComponents; ++c) o[c] = get(p + c * kStep);
  }
}

template <size_t kStep, class Get>
void decodeLoop(const uint8_t* base, size_t stride, size_t count, size_t n, float* out, size_t outStride, Get get) {
  switch (n) {
    case 1: decodeFixed<kStep, 1>(base, stride, count, out, outStride, get); break;
    case 2: decodeFixed<kStep, 2>(base, stride, count, out, outStride, get); break;
    case 3: decodeFixed<kStep, 3>(base, stride, count, out, outStride, get); break;
    default: decodeFixed<kStep, 4>(base, stride, count, out, outStride, get); break;
  }
}

// decodeLoop with `get(p, swap)` made a compile-time choice of byte order.
template <size_t kStep, class Get>
void decodeLoopSwapped(bool swap, const uint8_t* base, size_t stride, size_t count, size_t n, float* out, size_t outStride, Get get) {
  if (swap) decodeLoop<kStep>(base, stride, count, n, out, outStride, [&](const uint8_t* p) { return get(p, std::true_type{}); });
  else decodeLoop<kStep>(base, stride, count, n, out, outStride, [&](const uint8_t* p) { return get(p, std::false_type{}); });
}

// One component of a non-CMP type at p.
float decodeComponent(uint8_t type, Meaning meaning, const uint8_t* p, bool swap) {
  switch (type) {
    case kUB: return meaning == Meaning::Integer ? static_cast<float>(p[0]) : static_cast<float>(p[0]) / 255.0f;
    case kUB256: return static_cast<float>(p[0]);
    case kS1: {
      const int16_t c = load<int16_t>(p, swap);
      if (meaning == Meaning::Position) return static_cast<float>(c) / kPositionScale;
      return meaning == Meaning::Integer ? static_cast<float>(c) : snorm16(c);
    }
    case kS32K: {
      const int16_t c = load<int16_t>(p, swap);
      return meaning == Meaning::Position ? static_cast<float>(c) / kPositionScale : static_cast<float>(c);
    }
    case kSF: return halfToFloat(load<uint16_t>(p, swap));
    case kF: return load<float>(p, swap);
    default: return 0.0f;
  }
}

int32_t roundClamp(float v, float lo, float hi) {
  if (!(v == v)) return 0;  // NaN
  return static_cast<int32_t>(std::lround(std::clamp(v, lo, hi)));
}

void encodeComponent(uint8_t type, Meaning meaning, float v, uint8_t* p, bool swap) {
  switch (type) {
    case kUB:
      p[0] = static_cast<uint8_t>(meaning == Meaning::Integer ? roundClamp(v, 0, 255) : roundClamp(v * 255.0f, 0, 255));
      break;
    case kUB256: p[0] = static_cast<uint8_t>(roundClamp(v, 0, 255)); break;
    case kS1: {
      float scaled = v;
      if (meaning == Meaning::Position) scaled = v * kPositionScale;
      else if (meaning == Meaning::Value) scaled = v * 32767.0f;
      store<int16_t>(p, static_cast<int16_t>(roundClamp(scaled, -32767.0f, 32767.0f)), swap);
      break;
    }
    case kS32K: {
      const float scaled = meaning == Meaning::Position ? v * kPositionScale : v;
      store<int16_t>(p, static_cast<int16_t>(roundClamp(scaled, -32768.0f, 32767.0f)), swap);
      break;
    }
    case kSF: store<uint16_t>(p, floatToHalf(v), swap); break;
    case kF: store<float>(p, v, swap); break;
    default: break;
  }
}

}  // namespace

size_t elementBytes(const VertexElement& e) {
  if (e.vertexType == kCMP) return 4;
  return componentSize(e.vertexType) * e.numComponents;
}

bool needsSwap(Endian e) { return (e == Endian::Big) != (std::endian::native == std::endian::big); }

void decodeElement(const VertexElement& e, Meaning meaning, std::span<const uint8_t> data, size_t stride, size_t count,
                   Endian endian, float* out, size_t outStride, size_t outComponents) {
  const bool swap = needsSwap(endian);
  const uint8_t* base = data.data() + e.offset;
  if (e.vertexType == kCMP) {
    const size_t n = std::min<size_t>(3, outComponents);
    auto loop = [&](auto s) {
      if (n == 3) {  // straight into the output: a copy through a stack array stalled store forwarding
        for (size_t v = 0; v < count; ++v) unpackCmp(load<uint32_t>(base + v * stride, s), out + v * outStride);
        return;
      }
      float xyz[3];
      for (size_t v = 0; v < count; ++v) {
        unpackCmp(load<uint32_t>(base + v * stride, s), xyz);
        for (size_t c = 0; c < n; ++c) out[v * outStride + c] = xyz[c];
      }
    };
    if (swap) loop(std::true_type{});
    else loop(std::false_type{});
    return;
  }
  const size_t n = std::min<size_t>({e.numComponents, 4, outComponents});
  const bool integer = meaning == Meaning::Integer;
  const uint8_t type = e.vertexType;
  switch (type) {
    case kF:
      decodeLoopSwapped<4>(swap, base, stride, count, n, out, outStride, [](const uint8_t* p, auto s) { return load<float>(p, s); });
      break;
    case kSF:
      decodeLoopSwapped<2>(swap, base, stride, count, n, out, outStride,
                           [](const uint8_t* p, auto s) { return halfToFloat(load<uint16_t>(p, s)); });
      break;
    case kUB:
      if (integer) decodeLoop<1>(base, stride, count, n, out, outStride, [](const uint8_t* p) { return float(p[0]); });
      else decodeLoop<1>(base, stride, count, n, out, outStride, [](const uint8_t* p) { return float(p[0]) / 255.0f; });
      break;
    case kUB256: decodeLoop<1>(base, stride, count, n, out, outStride, [](const uint8_t* p) { return float(p[0]); }); break;
    case kS1:
    case kS32K:
      decodeLoopSwapped<2>(swap, base, stride, count, n, out, outStride,
                           [&](const uint8_t* p, auto s) { return decodeComponent(type, meaning, p, s); });
      break;
    default: break;
  }
}

size_t decodeVertex(const VertexElement& e, Meaning meaning, const uint8_t* p, bool swap, float out[4]) {
  if (e.vertexType == kCMP) {
    unpackCmp(load<uint32_t>(p, swap), out);
    return 3;
  }
  const size_t step = componentSize(e.vertexType);
  const size_t n = std::min<size_t>(e.numComponents, 4);
  for (size_t c = 0; c < n; ++c) out[c] = decodeComponent(e.vertexType, meaning, p + c * step, swap);
  return n;
}

void encodeElement(const VertexElement& e, Meaning meaning, const glm::vec4& value, Endian endian, uint8_t* dst) {
  const bool swap = needsSwap(endian);
  if (e.vertexType == kCMP) {
    store<uint32_t>(dst, quant::packCmp111110(glm::vec3(value)), swap);
    return;
  }
  const size_t step = componentSize(e.vertexType);
  for (size_t c = 0; c < std::min<size_t>(e.numComponents, 4); ++c) {
    encodeComponent(e.vertexType, meaning, value[static_cast<int>(c)], dst + c * step, swap);
  }
}

}  // namespace rigport::rw4
