// The binary buffer and its accessors (format note gltf_ecosystem.md §1.6): one bufferView per
// accessor, each starting 4-byte aligned, `target` only on vertex and index views, no byteStride.
// Data is written straight into one growing byte vector (no per-element JSON or allocation), and
// the accessor/bufferView records are plain structs written as JSON text at the end: a clip
// package has about 100,000 of them, and as JSON objects they cost more than everything else.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rigport::gltf {

using Json = nlohmann::ordered_json;

// glTF accessor.componentType values (the WebGL enums).
enum class ComponentType : uint32_t {
  UnsignedByte = 5121,
  UnsignedShort = 5123,
  UnsignedInt = 5125,
  Float = 5126,
};

// bufferView.target: only vertex attributes and indices carry one; IBM and animation views must not
// (BUFFER_VIEW_TARGET_OVERRIDE, §1.1).
enum class ViewTarget : uint32_t {
  None = 0,
  ArrayBuffer = 34962,
  ElementArrayBuffer = 34963,
};

class BufferBuilder {
 public:
  void reserve(size_t bytes) { bin_.reserve(bytes); }

  // Appends a zeroed region of `bytes`, starting at a multiple of 4; returns its offset.
  // Pointers into the buffer are only valid until the next allocate().
  size_t allocate(size_t bytes);
  uint8_t* at(size_t offset) { return bin_.data() + offset; }

  // Declares a bufferView over [offset, offset + byteLength) and an accessor reading `count`
  // elements from it; returns the accessor index. `min`/`max` (up to 4 components, float
  // accessors) are omitted when empty. `type` must be a string literal ("VEC3").
  uint32_t accessor(size_t offset, size_t byteLength, size_t count, ComponentType component, const char* type,
                    ViewTarget target, std::span<const float> min = {}, std::span<const float> max = {});

  // allocate() + memcpy + accessor() for data already laid out as the accessor wants it.
  uint32_t copyAccessor(const void* data, size_t byteLength, size_t count, ComponentType component, const char* type,
                        ViewTarget target, std::span<const float> min = {}, std::span<const float> max = {});

  bool hasAccessors() const { return !accessors_.empty(); }
  // Appends `"accessors":[...],"bufferViews":[...]` (no braces around) to `json`.
  void appendJson(std::string& json) const;
  // The buffer, padded with zeros to a multiple of 4 (GLB BIN chunk rule, §1.6).
  std::vector<uint8_t> takeBytes();

 private:
  struct View {
    size_t offset, byteLength;
    ViewTarget target;
  };
  struct Accessor {
    size_t count;
    ComponentType component;
    const char* type;
    uint8_t bounds;  // components in min/max; 0: none
    std::array<float, 4> min, max;
  };
  std::vector<uint8_t> bin_;
  std::vector<Accessor> accessors_;  // accessor i reads bufferView i
  std::vector<View> views_;
};

}  // namespace rigport::gltf
