// The binary buffer and its accessors (format note gltf_ecosystem.md §1.6): one bufferView per
// accessor, each starting 4-byte aligned, `target` only on vertex and index views, no byteStride.
// Data is written straight into one growing byte vector (no per-element JSON or allocation), and
// the accessor/bufferView records are plain structs written as JSON text at the end: a clip
// package has about 100,000 of them, and as JSON objects they cost more than everything else.
// An array the model already holds in glTF's layout (positions, UVs, u32 indices) is borrowed,
// not copied: the finished buffer is a list of pieces, written one after another, so a DFF's
// positions and UVs (a third of its GLB) are neither copied nor given fresh pages.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/default_init_allocator.hpp"

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

// Bytes the builder writes itself; every region is written whole, so none is zero-filled first.
using ByteVector = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

// The finished buffer: `pieces` in file order, each in `owned` or borrowed from the model the
// buffer was built from, which must outlive it. Padded with zeros to a multiple of 4 (GLB BIN
// chunk rule, §1.6). Move-only: the pieces point into `owned`.
struct BinPieces {
  ByteVector owned;
  std::vector<std::span<const uint8_t>> pieces;
  size_t size = 0;

  BinPieces() = default;
  BinPieces(BinPieces&&) = default;
  BinPieces& operator=(BinPieces&&) = default;
  BinPieces(const BinPieces&) = delete;
  BinPieces& operator=(const BinPieces&) = delete;
  std::vector<uint8_t> joined() const;
};

class BufferBuilder {
 public:
  // Room for `bytes` of owned data and `accessors` accessors (each a view and a piece, borrowed or
  // owned), so that none of them is grown by doubling: copied again and again, and given fresh
  // pages for the copies (an IFP's 1,000 clips are 80,000 accessors).
  void reserve(size_t bytes, size_t accessors);

  // Appends a region of `bytes`, starting at a multiple of 4 (the padding before it is zero), and
  // returns its offset in the buffer. The region is not initialised: the caller writes every
  // byte of it. Pointers into it are only valid until the next allocate().
  size_t allocate(size_t bytes);
  uint8_t* at(size_t offset);  // `offset` from allocate()

  // Declares a bufferView over [offset, offset + byteLength) and an accessor reading `count`
  // elements from it; returns the accessor index. `min`/`max` (up to 4 components, float
  // accessors) are omitted when empty. `type` must be a string literal ("VEC3").
  uint32_t accessor(size_t offset, size_t byteLength, size_t count, ComponentType component, const char* type,
                    ViewTarget target, std::span<const float> min = {}, std::span<const float> max = {});

  // allocate() + memcpy + accessor() for data already laid out as the accessor wants it.
  uint32_t copyAccessor(const void* data, size_t byteLength, size_t count, ComponentType component, const char* type,
                        ViewTarget target, std::span<const float> min = {}, std::span<const float> max = {});
  // The same bytes at the same offset as copyAccessor, but left where they are: `data` must stay
  // unchanged and alive until the finished buffer has been written.
  uint32_t borrowAccessor(const void* data, size_t byteLength, size_t count, ComponentType component, const char* type,
                          ViewTarget target, std::span<const float> min = {}, std::span<const float> max = {});

  // Copies `bytes` into the buffer and declares a bufferView over them that no accessor reads (an
  // embedded image); returns the view's index. Accessor i reads view i, so every accessor must be
  // declared before the first such view.
  uint32_t copyView(std::span<const uint8_t> bytes);

  bool hasViews() const { return !views_.empty(); }
  // Appends `"accessors":[...],"bufferViews":[...]` (no braces around; no accessors without any) to `json`.
  void appendJson(std::string& json) const;
  // About the length of what appendJson() appends (a little more for most: the records with
  // indices and counts of up to 8 digits, each bound of up to 15 characters), to reserve once.
  size_t jsonBytesEstimate() const { return 32 + accessors_.size() * 80 + boundValues_ * 16 + views_.size() * 72; }
  // The buffer, padded to a multiple of 4; the builder keeps only its accessors, for appendJson().
  BinPieces finish();

 private:
  // A run of the buffer: in bin_ from `owned`, or at `borrowed`.
  struct Piece {
    size_t offset, length;
    const uint8_t* borrowed;
    size_t owned;
  };
  // Zero padding up to a multiple of 4, in bin_.
  void pad();
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
  ByteVector bin_;
  std::vector<Piece> pieces_;  // in buffer order; neighbouring owned runs are one piece
  size_t size_ = 0;            // the buffer's bytes, owned and borrowed
  std::vector<Accessor> accessors_;  // accessor i reads bufferView i
  size_t boundValues_ = 0;           // the min and max values of all accessors
  std::vector<View> views_;
};

}  // namespace rigport::gltf
