// Accessor decoding with bounds checked before anything is allocated (Spec §3.6 "Accessors"):
// element = components × component size; the last element must end inside its buffer view and the
// view inside its buffer; the decoded size is charged to the Budget first. Errors name the field,
// e.g. "accessors[3].count", and the file offset where the data lies in a GLB.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "core/error.hpp"
#include "core/quant.hpp"
#include "core/read_context.hpp"
#include "formats/gltf/gltf_load.hpp"

namespace rigport::gltf_in {

// An error about a field of the document, e.g. fieldError(doc, "accessors[3].count", "...").
Error fieldError(const Document& doc, std::string path, ErrorCode code, std::string message);

struct AccessorRules {
  std::initializer_list<int> types;           // TINYGLTF_TYPE_*: the shapes allowed
  std::initializer_list<int> componentTypes;  // TINYGLTF_COMPONENT_TYPE_*: the encodings allowed
  bool integersMustBeNormalized = false;      // an integer encoding must carry normalized: true
};

// Where an accessor's elements lie in their buffer, every bound checked (and what readFloats() would
// allocate charged to the Budget): for a reader that decodes them straight into its own arrays
// rather than through a vector it then copies.
struct AccessorView {
  const uint8_t* first = nullptr;
  size_t count = 0;
  size_t stride = 0;
  int components = 0;
  int componentType = 0;
  size_t componentSize = 0;
  bool normalized = false;

  // Component c of element i, as readFloats() and readUints() give it (inline: a reader calls them
  // per value).
  float floatAt(size_t i, int c) const { return componentAt(first + i * stride + static_cast<size_t>(c) * componentSize); }
  uint32_t uintAt(size_t i, int c) const { return unsignedAt(first + i * stride + static_cast<size_t>(c) * componentSize); }
  // The component at `p`: normalised integers scaled (unsigned to [0, 1], signed to [-1, 1]).
  float componentAt(const uint8_t* p) const {
    switch (componentType) {
      case TINYGLTF_COMPONENT_TYPE_FLOAT: return load<float>(p);
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return normalized ? quant::unormToFloat(*p, 8) : static_cast<float>(*p);
      case TINYGLTF_COMPONENT_TYPE_BYTE: return normalized ? quant::snormToFloat(*p, 8) : static_cast<float>(static_cast<int8_t>(*p));
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
        const auto u = load<uint16_t>(p);
        return normalized ? quant::unormToFloat(u, 16) : static_cast<float>(u);
      }
      case TINYGLTF_COMPONENT_TYPE_SHORT: {
        const auto u = load<uint16_t>(p);
        return normalized ? quant::snormToFloat(u, 16) : static_cast<float>(static_cast<int16_t>(u));
      }
      default: return static_cast<float>(load<uint32_t>(p));
    }
  }
  uint32_t unsignedAt(const uint8_t* p) const {
    switch (componentType) {
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return *p;
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return load<uint16_t>(p);
      default: return load<uint32_t>(p);
    }
  }
  // Every value as readFloats() gives them, count × components floats written at `out` (bytes, so
  // that the caller's array of vectors of floats is filled without aliasing it as floats).
  void floatsInto(uint8_t* out) const;

 private:
  template <class T>
  static T load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));  // glTF is little-endian, as every host rigport builds for
    return v;
  }
};
Result<AccessorView> viewAccessor(const Document& doc, ReadContext& ctx, int accessor, const AccessorRules& rules, const std::string& usedAs);

// The accessor's values as floats, `components` per element; normalised integers are scaled
// (unsigned to [0, 1], signed to [-1, 1], the glTF rule), plain integers kept as their value.
Result<std::vector<float>> readFloats(const Document& doc, ReadContext& ctx, int accessor, const AccessorRules& rules,
                                      const std::string& usedAs, int& components);
// The accessor's values as unsigned integers (indices, joint numbers).
Result<std::vector<uint32_t>> readUints(const Document& doc, ReadContext& ctx, int accessor, const AccessorRules& rules,
                                        const std::string& usedAs, int& components);
// Element count of an accessor, checked to exist.
Result<size_t> accessorCount(const Document& doc, int accessor, const std::string& usedAs);

}  // namespace rigport::gltf_in
