#include "export/gltf_buffer.hpp"

#include <algorithm>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace rigport::gltf {

size_t BufferBuilder::allocate(size_t bytes) {
  const size_t offset = (bin_.size() + 3) & ~size_t{3};
  bin_.resize(offset + bytes);  // value-initialises: padding and the region are zero
  return offset;
}

uint32_t BufferBuilder::accessor(size_t offset, size_t byteLength, size_t count, ComponentType component,
                                 const char* type, ViewTarget target, std::span<const float> min, std::span<const float> max) {
  views_.push_back(View{offset, byteLength, target});
  Accessor a{count, component, type, 0, {}, {}};
  if (!min.empty() && min.size() == max.size() && min.size() <= a.min.size()) {
    a.bounds = static_cast<uint8_t>(min.size());
    std::copy(min.begin(), min.end(), a.min.begin());
    std::copy(max.begin(), max.end(), a.max.begin());
  }
  accessors_.push_back(a);
  return static_cast<uint32_t>(accessors_.size() - 1);
}

uint32_t BufferBuilder::copyAccessor(const void* data, size_t byteLength, size_t count, ComponentType component,
                                     const char* type, ViewTarget target, std::span<const float> min, std::span<const float> max) {
  const size_t offset = allocate(byteLength);
  if (byteLength > 0) std::memcpy(at(offset), data, byteLength);
  return accessor(offset, byteLength, count, component, type, target, min, max);
}

namespace {

// Bounds as the float32 values they are, widened to double and printed shortest-round-trip (the
// validator compares them with the float32 data); only finite values reach an accessor.
void appendBounds(std::string& json, const char* key, const std::array<float, 4>& values, uint8_t n) {
  fmt::format_to(std::back_inserter(json), FMT_COMPILE(",\"{}\":["), key);
  for (uint8_t i = 0; i < n; ++i) fmt::format_to(std::back_inserter(json), FMT_COMPILE("{}{}"), i ? "," : "", static_cast<double>(values[i]));
  json += ']';
}

}  // namespace

void BufferBuilder::appendJson(std::string& json) const {
  json.reserve(json.size() + accessors_.size() * 140);
  auto out = std::back_inserter(json);
  json += "\"accessors\":[";
  for (size_t i = 0; i < accessors_.size(); ++i) {
    const Accessor& a = accessors_[i];
    fmt::format_to(out, FMT_COMPILE("{}{{\"bufferView\":{},\"componentType\":{},\"count\":{},\"type\":\"{}\""), i ? "," : "", i,
                   static_cast<uint32_t>(a.component), a.count, a.type);
    if (a.bounds > 0) {
      appendBounds(json, "min", a.min, a.bounds);
      appendBounds(json, "max", a.max, a.bounds);
    }
    json += '}';
  }
  json += "],\"bufferViews\":[";
  for (size_t i = 0; i < views_.size(); ++i) {
    const View& v = views_[i];
    fmt::format_to(out, FMT_COMPILE("{}{{\"buffer\":0,\"byteOffset\":{},\"byteLength\":{}"), i ? "," : "", v.offset, v.byteLength);
    if (v.target != ViewTarget::None) fmt::format_to(out, FMT_COMPILE(",\"target\":{}"), static_cast<uint32_t>(v.target));
    json += '}';
  }
  json += ']';
}

std::vector<uint8_t> BufferBuilder::takeBytes() {
  bin_.resize((bin_.size() + 3) & ~size_t{3});
  return std::move(bin_);
}

}  // namespace rigport::gltf
