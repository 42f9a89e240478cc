#include "formats/rw4/vertex_format.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "core/quant.hpp"

namespace rigport::rw4 {
namespace {

constexpr float kPositionScale = 256.0f;  // §3.1: S1/S32K positions are raw / 256 in the tools

template <class T>
T load(const uint8_t* p, bool swap) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if (swap) v = ByteReader::byteSwap(v);
  return v;
}

template <class T>
void store(uint8_t* p, T v, bool swap) {
  if (swap) v = ByteReader::byteSwap(v);
  std::memcpy(p, &v, sizeof(T));
}

bool needsSwap(Endian e) { return (e == Endian::Big) != (std::endian::native == std::endian::big); }

float snorm16(int16_t c) { return std::max(static_cast<float>(c) / 32767.0f, -1.0f); }

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

void decodeElement(const VertexElement& e, Meaning meaning, std::span<const uint8_t> data, size_t stride, size_t count,
                   Endian endian, glm::vec4* out) {
  const bool swap = needsSwap(endian);
  const uint8_t* base = data.data() + e.offset;
  if (e.vertexType == kCMP) {
    for (size_t v = 0; v < count; ++v) out[v] = glm::vec4(quant::unpackCmp111110(load<uint32_t>(base + v * stride, swap)), 1.0f);
    return;
  }
  const size_t step = componentSize(e.vertexType);
  const size_t n = std::min<size_t>(e.numComponents, 4);
  const uint8_t type = e.vertexType;
  if (type == kF && n == 3) {  // the common position layout, without the per-component switch
    for (size_t v = 0; v < count; ++v) {
      const uint8_t* p = base + v * stride;
      out[v] = glm::vec4(load<float>(p, swap), load<float>(p + 4, swap), load<float>(p + 8, swap), 0.0f);
    }
    return;
  }
  for (size_t v = 0; v < count; ++v) {
    const uint8_t* p = base + v * stride;
    glm::vec4 value(0.0f);
    for (size_t c = 0; c < n; ++c) value[static_cast<int>(c)] = decodeComponent(type, meaning, p + c * step, swap);
    out[v] = value;
  }
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
