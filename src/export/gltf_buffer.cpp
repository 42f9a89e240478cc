#include "export/gltf_buffer.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>
#include <string_view>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace rigport::gltf {

void BufferBuilder::pad() {
  const size_t padding = (4 - size_ % 4) % 4;
  if (padding == 0) return;
  const size_t owned = bin_.size();
  bin_.resize(owned + padding);
  std::memset(bin_.data() + owned, 0, padding);
  if (!pieces_.empty() && pieces_.back().borrowed == nullptr) {
    pieces_.back().length += padding;
  } else {
    pieces_.push_back(Piece{size_, padding, nullptr, owned});
  }
  size_ += padding;
}

void BufferBuilder::reserve(size_t bytes, size_t accessors) {
  bin_.reserve(bytes);
  accessors_.reserve(accessors);
  views_.reserve(accessors);
  pieces_.reserve(accessors);
}

size_t BufferBuilder::allocate(size_t bytes) {
  pad();
  const size_t offset = size_;
  const size_t owned = bin_.size();
  bin_.resize(owned + bytes);  // default-initialised: left for the caller to write
  if (!pieces_.empty() && pieces_.back().borrowed == nullptr) {
    pieces_.back().length += bytes;
  } else {
    pieces_.push_back(Piece{offset, bytes, nullptr, owned});
  }
  size_ += bytes;
  return offset;
}

uint8_t* BufferBuilder::at(size_t offset) {
  // Usually the last piece (the region just allocated); else the last piece starting at or before.
  auto it = pieces_.end() - 1;
  if (offset < it->offset) {
    it = std::upper_bound(pieces_.begin(), pieces_.end(), offset, [](size_t o, const Piece& p) { return o < p.offset; }) - 1;
  }
  return bin_.data() + it->owned + (offset - it->offset);
}

uint32_t BufferBuilder::accessor(size_t offset, size_t byteLength, size_t count, ComponentType component,
                                 const char* type, ViewTarget target, std::span<const float> min, std::span<const float> max) {
  assert(views_.size() == accessors_.size() && "an accessor after a view of its own would read another's view");
  views_.push_back(View{offset, byteLength, target});
  Accessor a{count, component, type, 0, {}, {}};
  if (!min.empty() && min.size() == max.size() && min.size() <= a.min.size()) {
    a.bounds = static_cast<uint8_t>(min.size());
    boundValues_ += 2 * min.size();
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

uint32_t BufferBuilder::borrowAccessor(const void* data, size_t byteLength, size_t count, ComponentType component,
                                       const char* type, ViewTarget target, std::span<const float> min,
                                       std::span<const float> max) {
  pad();
  const size_t offset = size_;
  if (byteLength > 0) pieces_.push_back(Piece{offset, byteLength, static_cast<const uint8_t*>(data), 0});
  size_ += byteLength;
  return accessor(offset, byteLength, count, component, type, target, min, max);
}

uint32_t BufferBuilder::copyView(std::span<const uint8_t> bytes) {
  const size_t offset = allocate(bytes.size());
  if (!bytes.empty()) std::memcpy(at(offset), bytes.data(), bytes.size());
  views_.push_back(View{offset, bytes.size(), ViewTarget::None});
  return static_cast<uint32_t>(views_.size() - 1);
}

namespace {

// Fixed text is copied as it is, not passed to fmt as a string argument: fmt copies those a
// character at a time (copy_str_noinline), a third of the 84 M instructions a 1,000-clip IFP's
// accessor records took.
char* put(char* to, std::string_view text) { return std::copy(text.begin(), text.end(), to); }

// An index, count, offset or length, alone through fmt (inlined, where std::to_chars is a call of
// some 50 instructions a number): formatted through one FMT_COMPILE string a record, the fixed text
// between them went a character at a time again, 122,000 calls and 2.9 M of a 500-clip package's
// 18.3 M instructions of records.
char* putUint(char* to, uint64_t v) { return fmt::format_to(to, FMT_COMPILE("{}"), v); }

// Bounds as the shortest text that reads back to the float32 values they are (the validator
// compares them with the float32 data); whole numbers without ".0", as they were written before
// (as doubles) and as the validator's own examples write them. Only finite values reach an accessor.
// One accessor's min or max (`key` is `,"min":[` or `,"max":[`), written at `to`: at most
// 8 + 4 x 16 + 1 characters (fmt's shortest float is at most 15 characters, "-1.17549435e-38").
char* writeBounds(char* to, std::string_view key, const std::array<float, 4>& values, uint8_t n) {
  to = put(to, key);
  for (uint8_t i = 0; i < n && i < 4; ++i) {
    if (i) *to++ = ',';
    to = fmt::format_to(to, FMT_COMPILE("{}"), values[i]);
  }
  *to++ = ']';
  return to;
}

// The text of the last min or max written, reused for the next one of the same float bits: a clip's
// tracks are keyed at the same times, so its time accessors have the same bounds one after another
// (a 500-clip package: 20 a clip, 61,000 floats formatted for 1,000 distinct texts).
class BoundsText {
 public:
  explicit BoundsText(std::string_view key) : key_(key) {}
  char* write(char* to, const std::array<float, 4>& values, uint8_t n) {
    if (n != n_ || std::memcmp(values.data(), values_.data(), n * sizeof(float)) != 0) {
      n_ = n;
      std::copy_n(values.begin(), n, values_.begin());
      size_ = static_cast<size_t>(writeBounds(text_.data(), key_, values, n) - text_.data());
    }
    return std::copy_n(text_.data(), size_, to);
  }

 private:
  std::string_view key_;
  uint8_t n_ = 0;  // 0: nothing written yet
  std::array<float, 4> values_{};
  std::array<char, 8 + 4 * 16 + 1> text_;
  size_t size_ = 0;
};

}  // namespace

// Records are formatted into a buffer on the stack and appended when it is nearly full: through a
// back_inserter into the text, fmt went a piece at a time through the string's growth checks (a
// 1,000-clip IFP's 130,000 accessors: 118 M instructions, the largest part of its export), and one
// append a record (a memcpy call for some 100 bytes) was 1.5 % of a package's conversion time. The
// text is the same: the same fixed text, digits and float formatter, in the same order.
void BufferBuilder::appendJson(std::string& json) const {
  json.reserve(json.size() + jsonBytesEstimate());
  // The record's fixed text and three integers (at most 20 digits each) take under 140
  // characters, the bounds 2 x 108, the type at most 64 (glTF's longest name is 6).
  constexpr size_t kRecord = 140 + 2 * 108 + 64;
  std::array<char, 16 * kRecord> records;
  char* to = records.data();
  auto flush = [&] {
    json.append(records.data(), to);
    to = records.data();
  };
  auto room = [&] {  // kRecord characters at `to`
    if (static_cast<size_t>(records.data() + records.size() - to) < kRecord) flush();
  };
  BoundsText min(",\"min\":["), max(",\"max\":[");
  if (!accessors_.empty()) json += "\"accessors\":[";
  for (size_t i = 0; i < accessors_.size(); ++i) {
    const Accessor& a = accessors_[i];
    assert(std::strlen(a.type) <= 64);  // glTF's type names, SCALAR to MAT4 (accessor() takes literals)
    room();
    to = put(to, i ? ",{\"bufferView\":" : "{\"bufferView\":");
    to = putUint(to, i);
    to = put(to, ",\"componentType\":");
    to = putUint(to, static_cast<uint32_t>(a.component));
    to = put(to, ",\"count\":");
    to = putUint(to, a.count);
    to = put(to, ",\"type\":\"");
    to = put(to, a.type);
    *to++ = '"';
    if (a.bounds > 0) {
      to = min.write(to, a.min, a.bounds);
      to = max.write(to, a.max, a.bounds);
    }
    *to++ = '}';
  }
  flush();
  json += accessors_.empty() ? "\"bufferViews\":[" : "],\"bufferViews\":[";
  for (size_t i = 0; i < views_.size(); ++i) {
    const View& v = views_[i];
    room();
    to = put(to, i ? ",{\"buffer\":0,\"byteOffset\":" : "{\"buffer\":0,\"byteOffset\":");
    to = putUint(to, v.offset);
    to = put(to, ",\"byteLength\":");
    to = putUint(to, v.byteLength);
    if (v.target != ViewTarget::None) {
      to = put(to, ",\"target\":");
      to = putUint(to, static_cast<uint32_t>(v.target));
    }
    *to++ = '}';
  }
  flush();
  json += ']';
}

BinPieces BufferBuilder::finish() {
  pad();
  BinPieces out;
  out.size = size_;
  out.owned = std::move(bin_);
  out.pieces.reserve(pieces_.size());
  for (const Piece& p : pieces_) out.pieces.emplace_back(p.borrowed != nullptr ? p.borrowed : out.owned.data() + p.owned, p.length);
  pieces_.clear();
  size_ = 0;
  return out;
}

std::vector<uint8_t> BinPieces::joined() const {
  std::vector<uint8_t> bytes;
  bytes.reserve(size);
  for (std::span<const uint8_t> p : pieces) bytes.insert(bytes.end(), p.begin(), p.end());
  return bytes;
}

}  // namespace rigport::gltf
