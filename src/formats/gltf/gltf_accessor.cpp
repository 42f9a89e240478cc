#include "formats/gltf/gltf_accessor.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/quant.hpp"

namespace rigport::gltf_in {
namespace {

const char* typeName(int type) {
  switch (type) {
    case TINYGLTF_TYPE_SCALAR: return "SCALAR";
    case TINYGLTF_TYPE_VEC2: return "VEC2";
    case TINYGLTF_TYPE_VEC3: return "VEC3";
    case TINYGLTF_TYPE_VEC4: return "VEC4";
    case TINYGLTF_TYPE_MAT2: return "MAT2";
    case TINYGLTF_TYPE_MAT3: return "MAT3";
    case TINYGLTF_TYPE_MAT4: return "MAT4";
    default: return "unknown";
  }
}

const char* componentName(int c) {
  switch (c) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: return "BYTE";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return "UNSIGNED_BYTE";
    case TINYGLTF_COMPONENT_TYPE_SHORT: return "SHORT";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return "UNSIGNED_SHORT";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: return "UNSIGNED_INT";
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return "FLOAT";
    default: return "unknown";
  }
}

bool listed(std::initializer_list<int> list, int v) { return std::find(list.begin(), list.end(), v) != list.end(); }

using Span = AccessorView;

Result<Span> locate(const Document& doc, ReadContext& ctx, int index, const AccessorRules& rules, const std::string& usedAs,
                    size_t outBytesPerComponent) {
  const auto& m = doc.model;
  const std::string at = fmt::format("accessors[{}]", index);
  if (index < 0 || static_cast<size_t>(index) >= m.accessors.size()) {
    return fieldError(doc, usedAs, ErrorCode::BadValue, fmt::format("names accessor {}, but the file has {}", index, m.accessors.size()));
  }
  const tinygltf::Accessor& a = m.accessors[static_cast<size_t>(index)];
  const std::string what = fmt::format(" ({})", usedAs);
  if (!listed(rules.types, a.type)) {
    return fieldError(doc, at + ".type", ErrorCode::BadValue, fmt::format("is {}, which glTF does not allow here{}", typeName(a.type), what));
  }
  if (!listed(rules.componentTypes, a.componentType)) {
    return fieldError(doc, at + ".componentType", ErrorCode::BadValue,
                      fmt::format("is {}, which glTF does not allow here{}", componentName(a.componentType), what));
  }
  const bool integer = a.componentType != TINYGLTF_COMPONENT_TYPE_FLOAT;
  if (integer && rules.integersMustBeNormalized && !a.normalized) {
    return fieldError(doc, at + ".normalized", ErrorCode::BadValue, fmt::format("must be true for {} data{}", componentName(a.componentType), what));
  }
  if (a.sparse.isSparse) {
    return fieldError(doc, at + ".sparse", ErrorCode::Unsupported, "sparse accessors are not read" + what);
  }
  if (a.count == 0) return fieldError(doc, at + ".count", ErrorCode::BadValue, "is 0; glTF requires at least 1" + what);
  Span s;
  s.components = tinygltf::GetNumComponentsInType(static_cast<uint32_t>(a.type));
  s.componentType = a.componentType;
  s.componentSize = static_cast<size_t>(tinygltf::GetComponentSizeInBytes(static_cast<uint32_t>(a.componentType)));
  s.normalized = a.normalized;
  s.count = a.count;
  const size_t element = s.componentSize * static_cast<size_t>(s.components);
  if (a.bufferView < 0 || static_cast<size_t>(a.bufferView) >= m.bufferViews.size()) {
    return fieldError(doc, at + ".bufferView", ErrorCode::Unsupported, "an accessor without a valid buffer view (all zeros) is not read" + what);
  }
  const tinygltf::BufferView& v = m.bufferViews[static_cast<size_t>(a.bufferView)];
  const std::string viewAt = fmt::format("bufferViews[{}]", a.bufferView);
  if (v.buffer < 0 || static_cast<size_t>(v.buffer) >= m.buffers.size()) {
    return fieldError(doc, viewAt + ".buffer", ErrorCode::BadValue, fmt::format("names buffer {}, but the file has {}", v.buffer, m.buffers.size()));
  }
  const std::vector<unsigned char>& data = m.buffers[static_cast<size_t>(v.buffer)].data;
  if (v.byteOffset > data.size() || v.byteLength > data.size() - v.byteOffset) {
    return fieldError(doc, viewAt + ".byteLength", ErrorCode::Truncated,
                      fmt::format("bytes [{}, {}) lie outside buffer {} of {} bytes", v.byteOffset, uint64_t{v.byteOffset} + v.byteLength, v.buffer,
                                  data.size()));
  }
  s.stride = v.byteStride != 0 ? v.byteStride : element;
  if (s.stride < element) {
    return fieldError(doc, viewAt + ".byteStride", ErrorCode::BadValue, fmt::format("{} is less than one element ({} bytes){}", s.stride, element, what));
  }
  // count × stride may overflow: compare by division.
  if (a.byteOffset > v.byteLength || element > v.byteLength - a.byteOffset ||
      (s.count - 1) > (v.byteLength - a.byteOffset - element) / s.stride) {
    Error e = fieldError(doc, at + ".count", ErrorCode::Truncated,
                         fmt::format("{} elements of {} bytes (stride {}) from offset {} do not fit in {} ({} bytes){}", s.count, element, s.stride,
                                     a.byteOffset, viewAt, v.byteLength, what));
    if (doc.bufferFileOffset[static_cast<size_t>(v.buffer)]) e.offset = *doc.bufferFileOffset[static_cast<size_t>(v.buffer)] + v.byteOffset + a.byteOffset;
    return e;
  }
  const uint64_t out = uint64_t{s.count} * static_cast<uint64_t>(s.components) * outBytesPerComponent;
  if (!ctx.budget().charge(out)) return fieldError(doc, at + ".count", ErrorCode::TooLarge, ctx.budget().refusal(out));
  s.first = data.data() + v.byteOffset + a.byteOffset;
  return s;
}

}  // namespace

Error fieldError(const Document& doc, std::string path, ErrorCode code, std::string message) {
  Error e = makeError(code, std::move(message));
  e.file = doc.file;
  e.path = std::move(path);
  return e;
}

Result<size_t> accessorCount(const Document& doc, int index, const std::string& usedAs) {
  if (index < 0 || static_cast<size_t>(index) >= doc.model.accessors.size()) {
    return fieldError(doc, usedAs, ErrorCode::BadValue, fmt::format("names accessor {}, but the file has {}", index, doc.model.accessors.size()));
  }
  return doc.model.accessors[static_cast<size_t>(index)].count;
}

void AccessorView::floatsInto(uint8_t* out) const {
  const size_t values = count * static_cast<size_t>(components);
  if (componentType == TINYGLTF_COMPONENT_TYPE_FLOAT && stride == sizeof(float) * static_cast<size_t>(components)) {
    std::memcpy(out, first, values * sizeof(float));  // tightly packed floats, as exporters write them
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    for (int c = 0; c < components; ++c, out += sizeof(float)) {
      const float v = floatAt(i, c);
      std::memcpy(out, &v, sizeof(float));
    }
  }
}

Result<AccessorView> viewAccessor(const Document& doc, ReadContext& ctx, int accessor, const AccessorRules& rules, const std::string& usedAs) {
  return locate(doc, ctx, accessor, rules, usedAs, sizeof(float));
}

Result<std::vector<float>> readFloats(const Document& doc, ReadContext& ctx, int accessor, const AccessorRules& rules,
                                      const std::string& usedAs, int& components) {
  RP_ASSIGN(const Span s, locate(doc, ctx, accessor, rules, usedAs, sizeof(float)));
  components = s.components;
  std::vector<float> out(s.count * static_cast<size_t>(s.components));
  if (!out.empty()) s.floatsInto(reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

Result<std::vector<uint32_t>> readUints(const Document& doc, ReadContext& ctx, int accessor, const AccessorRules& rules,
                                        const std::string& usedAs, int& components) {
  RP_ASSIGN(const Span s, locate(doc, ctx, accessor, rules, usedAs, sizeof(uint32_t)));
  components = s.components;
  std::vector<uint32_t> out(s.count * static_cast<size_t>(s.components));
  uint32_t* o = out.data();
  // The component type chosen once, not per value: index lists are the longest accessors.
  const auto decode = [&](auto component) {
    using T = decltype(component);
    if (s.components == 1 && s.stride == sizeof(T)) {  // packed scalars (every index list): a loop that vectorises
      for (size_t i = 0; i < s.count; ++i) {
        T v;
        std::memcpy(&v, s.first + i * sizeof(T), sizeof(T));
        o[i] = v;
      }
      return;
    }
    for (size_t i = 0; i < s.count; ++i) {
      const uint8_t* p = s.first + i * s.stride;
      for (int c = 0; c < s.components; ++c, p += sizeof(T)) {
        T v;
        std::memcpy(&v, p, sizeof(T));  // little-endian, as AccessorView::load
        *o++ = v;
      }
    }
  };
  if (s.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE) decode(uint8_t{});
  else if (s.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT) decode(uint16_t{});
  else decode(uint32_t{});
  return out;
}

}  // namespace rigport::gltf_in
