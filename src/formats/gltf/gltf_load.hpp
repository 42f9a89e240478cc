// Loading a glTF document with tinygltf inside rigport's bounds (why tinygltf: gltf.hpp).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <tiny_gltf.h>

#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/source.hpp"

namespace rigport::gltf_in {

// Nesting deeper than this in the JSON is refused before parsing: tinygltf converts `extras`
// recursively, and a file of a million '[' must not overflow the stack.
constexpr size_t kMaxJsonDepth = 128;

struct Document {
  tinygltf::Model model;
  std::string file;  // the name errors give
  // Where each buffer's bytes start in the file: the BIN chunk's payload for a GLB's buffer 0;
  // nothing for external or data: buffers (their errors name the buffer instead).
  std::vector<std::optional<uint64_t>> bufferFileOffset;
  bool writtenByRigport = false;  // asset.generator starts with "rigport"
  // A GLB's buffer 0 where tinygltf was not given it to copy (loadDocument()): its bytes in the
  // source, which outlives the document; empty where tinygltf holds it (model.buffers[0].data).
  std::span<const uint8_t> binBuffer;
  bool binBufferHere = false;

  // Buffer b's bytes, wherever they are kept.
  std::span<const uint8_t> buffer(size_t b) const {
    if (b == 0 && binBufferHere) return binBuffer;
    return model.buffers[b].data;
  }
};

// The GLB container (Spec §"Binary glTF Layout") or the JSON text, then tinygltf's parse.
Result<Document> loadDocument(const Source& source, ReadContext& ctx);

// The JSON object tinygltf kept verbatim for an object's extras (null when it has none or they are
// not an object).
nlohmann::json extrasOf(const std::string& extrasJson);
// object[key] when it holds a T (a string or a number), else `fallback`: extras are free-form, and a
// field of another type than rigport writes is someone else's, not a reason to stop.
template <class T>
T extraOr(const nlohmann::json& object, const char* key, T fallback) {
  const auto it = object.find(key);
  if (it == object.end()) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    return it->is_string() ? it->template get<std::string>() : fallback;
  } else {
    return it->is_number() ? it->template get<T>() : fallback;
  }
}

}  // namespace rigport::gltf_in
