// ByteReader: the one checked cursor every format reads through (STYLE.md "One bounded reader").
// It owns no bytes: a span, a position, an endianness, the absolute file offset of the span's first
// byte, a field path and, optionally, the per-file memory budget (core/budget.hpp) that every count
// read from the file is charged to before anything is allocated. Every read checks `n <= remaining()` first, so it can never read out of
// bounds, and every error names the absolute offset and the field path, e.g.
//   Clump/GeometryList/Geometry[0]/SkinPlg/boneIndices[1023]: needs 4 bytes at 0x1A2C, 2 remain
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/budget.hpp"
#include "core/byte_swap.hpp"
#include "core/error.hpp"

namespace rigport {

enum class Endian { Little, Big };

// A path segment: a field or record name, with an optional array index. Formatting is deferred to
// the error path, so passing one costs nothing on the hot path.
struct Field {
  const char* name = "";
  int64_t index = -1;
  Field(const char* n) : name(n) {}  // NOLINT(google-explicit-constructor)
  Field(const char* n, int64_t i) : name(n), index(i) {}
  std::string str() const;
};

// A reader's field path as text, held inline up to kInline characters and on the heap only beyond.
// Every sub-reader and scope extends its parent's path (a 1,000-clip IFP makes 99,000), and a
// std::string per reader was an allocation and a free each, with its text copied and formatted
// besides: about 30 M instructions of that package (BENCHMARKS.md, issue 30). A copy is one
// fixed-size copy of the buffer; the text is formatted as it was, so errors read the same.
class PathText {
 public:
  PathText() : inline_() {}
  explicit PathText(std::string_view text) : PathText() { std::copy(text.begin(), text.end(), extend(text.size())); }
  PathText(const PathText& other);
  PathText& operator=(const PathText& other);
  PathText(PathText&&) noexcept = default;
  PathText& operator=(PathText&&) noexcept = default;

  std::string_view view() const { return long_ ? std::string_view(*long_) : std::string_view(inline_, size_); }
  size_t size() const { return long_ ? long_->size() : size_; }
  bool empty() const { return size() == 0; }
  // Room for `n` more characters at the end, to be written through the pointer returned.
  char* extend(size_t n);
  void truncate(size_t n);

 private:
  static constexpr size_t kInline = 54;  // the whole object 64 bytes; an IFP's longest path is 38
  std::unique_ptr<std::string> long_;    // the whole text once it outgrows inline_
  uint16_t size_ = 0;                    // of the text in inline_ (always <= kInline)
  char inline_[kInline];                 // zeroed by the default constructor, copied whole by the copy
};

class ByteReader {
 public:
  ByteReader() = default;
  explicit ByteReader(std::span<const uint8_t> data, Endian endian = Endian::Little,
                      uint64_t fileOffset = 0, std::string path = {});

  size_t size() const { return data_.size(); }
  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  bool atEnd() const { return pos_ == data_.size(); }
  // Absolute offset in the file of the next byte to read.
  uint64_t fileOffset() const { return base_ + pos_; }
  uint64_t fileOffsetOfStart() const { return base_; }
  Endian endian() const { return endian_; }
  void setEndian(Endian e) { endian_ = e; }
  // Readers made by sub() and window() share it. nullptr (the default) charges nothing.
  void setBudget(Budget* budget) { budget_ = budget; }
  Budget* budget() const { return budget_; }
  std::string path() const { return std::string(path_.view()); }
  std::span<const uint8_t> data() const { return data_; }

  Result<uint8_t> u8(Field f) { return read<uint8_t>(f); }
  Result<uint16_t> u16(Field f) { return read<uint16_t>(f); }
  Result<uint32_t> u32(Field f) { return read<uint32_t>(f); }
  Result<uint64_t> u64(Field f) { return read<uint64_t>(f); }
  Result<int8_t> s8(Field f) { return read<int8_t>(f); }
  Result<int16_t> s16(Field f) { return read<int16_t>(f); }
  Result<int32_t> s32(Field f) { return read<int32_t>(f); }
  Result<int64_t> s64(Field f) { return read<int64_t>(f); }
  Result<float> f32(Field f) { return read<float>(f); }
  Result<double> f64(Field f) { return read<double>(f); }
  // IEEE 754 binary16, widened to float (denormals, inf and NaN preserved).
  Result<float> f16(Field f);

  // `n` bytes holding a string padded with NULs: the text is cut at the first NUL.
  Result<std::string> fixedString(size_t n, Field f);
  // A NUL-terminated string; the NUL is consumed. Fails if no NUL occurs before the end.
  Result<std::string> cString(Field f);
  Result<std::span<const uint8_t>> bytes(size_t n, Field f);
  Status skip(size_t n, Field f);
  // Moves to `pos` bytes from the start of this reader's span.
  Status seek(size_t pos, Field f);

  // Consumes `n` bytes and returns a reader limited to them, whose path is this path + "/" + f.
  // The parent resumes right after the sub-range whatever the child reads.
  Result<ByteReader> sub(size_t n, Field f);
  // A reader over [pos, pos+n) of this span without moving this reader.
  Result<ByteReader> window(size_t pos, size_t n, Field f) const;

  // Checks that `count` records of at least `minRecordBytes` bytes each can still follow, and
  // charges count x minRecordBytes to the budget. Call before allocating anything sized by `count`.
  Result<size_t> count(uint64_t count, size_t minRecordBytes, Field f) const;
  // Charges an allocation sized from file data that no count() covers (an expansion, a
  // decompressed size) to the budget; the error names the field.
  Status charge(uint64_t bytes, Field f) const;

  // `n` values of an arithmetic type, byte-swapped as needed; checked before allocating. Records of
  // one scalar: copied into a vector made for them, not into a zero-filled one (the fill was a
  // pass as long as the copy: the DRS benchmark's CGeoMesh, 0.96 MB of floats).
  template <class T>
  Result<std::vector<T>> array(uint64_t n, Field f) {
    static_assert(std::is_arithmetic_v<T>);
    return records<T, T>(n, f);
  }
  // The same into `out`, replacing what it held: a reader of many small arrays (an IFP's 32,000
  // tracks) reuses one vector's storage instead of allocating and freeing one for each.
  template <class T>
  Status arrayInto(std::vector<T>& out, uint64_t n, Field f) {
    static_assert(std::is_arithmetic_v<T>);
    auto checked = count(n, sizeof(T), f);
    if (!checked) return checked.error();
    out.resize(*checked);
    if (!out.empty()) std::memcpy(out.data(), data_.data() + pos_, out.size() * sizeof(T));
    if constexpr (sizeof(T) > 1) {
      if (needsSwap()) {
        for (T& v : out) v = byteSwap(v);
      }
    }
    pos_ += out.size() * sizeof(T);
    return Ok{};
  }

  // `n` records of `Scalar`s (glm::vec3 of float, say) straight into their final vector, each
  // scalar byte-swapped in place as needed: one copy, no temporary.
  template <class Record, class Scalar>
  Result<std::vector<Record>> records(uint64_t n, Field f) {
    std::vector<Record> out;
    RP_CHECK((recordsInto<Record, Scalar>(out, n, f)));
    return out;
  }
  // The same into `out`, replacing what it held; its array is kept when it is large enough (a
  // program reading file after file fills the arrays of the last rig: core/rig_storage.hpp).
  template <class Record, class Scalar>
  Status recordsInto(std::vector<Record>& out, uint64_t n, Field f) {
    static_assert(std::is_trivially_copyable_v<Record> && std::is_arithmetic_v<Scalar> && sizeof(Record) % sizeof(Scalar) == 0);
    auto checked = count(n, sizeof(Record), f);
    if (!checked) return checked.error();
    const uint8_t* at = data_.data() + pos_;
    out.clear();
    if (reinterpret_cast<uintptr_t>(at) % alignof(Record) == 0) {
      // Aligned (mapped files and their chunks nearly always are): one memmove of trivially
      // copyable records, where sizing the vector first would also value-initialise every record,
      // a scalar pass as long as the copy (BENCHMARKS.md, issue 11).
      const Record* first = reinterpret_cast<const Record*>(at);
      out.assign(first, first + *checked);
    } else {
      // Chunk sizes are not padded, so after a name of odd length every array is unaligned. A
      // record at a time (memcpy into a local, then into the vector) ran at a third of memcpy's
      // speed; an aligned bounce buffer in L1 makes it two bulk copies (BENCHMARKS.md, 2026-11-26).
      out.reserve(*checked);
      alignas(Record) unsigned char bounce[8192 - 8192 % sizeof(Record)];
      for (size_t done = 0; done < *checked;) {
        const size_t k = std::min(*checked - done, sizeof bounce / sizeof(Record));
        std::memcpy(bounce, at + done * sizeof(Record), k * sizeof(Record));
        const Record* records = std::launder(reinterpret_cast<const Record*>(bounce));
        out.insert(out.end(), records, records + k);
        done += k;
      }
    }
    if constexpr (sizeof(Scalar) > 1) {
      if (needsSwap()) {
        auto* bytes = reinterpret_cast<uint8_t*>(out.data());
        for (size_t i = 0; i < out.size() * sizeof(Record); i += sizeof(Scalar)) {
          Scalar v;
          std::memcpy(&v, bytes + i, sizeof(Scalar));
          v = byteSwap(v);
          std::memcpy(bytes + i, &v, sizeof(Scalar));
        }
      }
    }
    pos_ += out.size() * sizeof(Record);
    return Ok{};
  }

  // An error located at the current position (or `relPos` within this span), for values that
  // were read fine but make no sense.
  Error error(ErrorCode code, std::string message, Field f) const;
  Error errorAt(size_t relPos, ErrorCode code, std::string message, Field f) const;

  // RAII path segment: errors raised while it lives carry "path/segment".
  class Scope {
   public:
    Scope(ByteReader& r, Field f);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ByteReader& r_;
    size_t oldLength_;
  };
  [[nodiscard]] Scope scope(Field f) { return Scope(*this, f); }

 private:
  bool needsSwap() const {
    return (endian_ == Endian::Big) != (std::endian::native == std::endian::big);
  }
  Error truncated(size_t n, Field f) const;
  std::string fieldPath(Field f) const;
  // A reader over `data` at `fileOffset` whose path is this path + "/" + f, sharing the budget.
  ByteReader child(std::span<const uint8_t> data, uint64_t fileOffset, Field f) const;

  template <class T>
  Result<T> read(Field f) {
    if (sizeof(T) > remaining()) return truncated(sizeof(T), f);
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    if constexpr (sizeof(T) > 1) {
      if (needsSwap()) v = byteSwap(v);
    }
    return v;
  }

  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  uint64_t base_ = 0;
  Endian endian_ = Endian::Little;
  PathText path_;
  Budget* budget_ = nullptr;
};

// IEEE 754 binary16 → float by moving bits (every half is exactly a float, so no rounding): the
// arena and glTF readers decode a half per UV component, where a libm call per value dominated.
inline float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t magnitude = h & 0x7FFFu;
  if (magnitude >= 0x7C00u) return std::bit_cast<float>(sign | 0x7F800000u | ((magnitude & 0x3FFu) << 13));  // inf, NaN
  if (magnitude >= 0x0400u) return std::bit_cast<float>(sign | ((magnitude + 0x1C000u) << 13));  // exponent rebiased by 112
  // Subnormal: magnitude × 2^-24, exact in float.
  return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(static_cast<float>(magnitude) * 0x1p-24f));
}
uint16_t floatToHalf(float f);

}  // namespace rigport
