// Accessor decoding with bounds checked before anything is allocated (Spec §3.6 "Accessors"):
// element = components × component size; the last element must end inside its buffer view and the
// view inside its buffer; the decoded size is charged to the Budget first. Errors name the field,
// e.g. "accessors[3].count", and the file offset where the data lies in a GLB.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "core/error.hpp"
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

  // Component c of element i, as readFloats() and readUints() give it.
  float floatAt(size_t i, int c) const;
  uint32_t uintAt(size_t i, int c) const;
  // Every value as readFloats() gives them, count × components floats written at `out` (bytes, so
  // that the caller's array of vectors of floats is filled without aliasing it as floats).
  void floatsInto(uint8_t* out) const;
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
