// ByteWriter: the mirror of ByteReader for format writers. Appends to a growable buffer in the
// chosen endianness, and can patch a previously reserved u32 (chunk sizes known only at the end).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/byte_reader.hpp"

namespace rigport {

class ByteWriter {
 public:
  explicit ByteWriter(Endian endian = Endian::Little) : endian_(endian) {}

  size_t size() const { return buf_.size(); }
  const std::vector<uint8_t>& bytes() const { return buf_; }
  std::vector<uint8_t> take() { return std::move(buf_); }
  void reserve(size_t n) { buf_.reserve(n); }

  void u8(uint8_t v) { buf_.push_back(v); }
  void u16(uint16_t v) { put(v); }
  void u32(uint32_t v) { put(v); }
  void u64(uint64_t v) { put(v); }
  void s8(int8_t v) { put(v); }
  void s16(int16_t v) { put(v); }
  void s32(int32_t v) { put(v); }
  void s64(int64_t v) { put(v); }
  void f32(float v) { put(v); }
  void f16(float v) { put(floatToHalf(v)); }
  void raw(std::span<const uint8_t> b) { buf_.insert(buf_.end(), b.begin(), b.end()); }
  void zeros(size_t n) { buf_.insert(buf_.end(), n, 0); }
  // Writes `s` into exactly `n` bytes: truncated if longer, NUL-padded if shorter.
  void fixedString(std::string_view s, size_t n);
  // Writes `s` and a terminating NUL.
  void cString(std::string_view s);
  // Pads with zeros to a multiple of `alignment`.
  void align(size_t alignment);

  // `records` of `Scalar`s (glm::vec3 of float, a std::array of bytes, or the scalars themselves)
  // appended at once, each scalar byte-swapped as needed: the mirror of ByteReader::records. A
  // value at a time resized the buffer per value, most of a DFF write's time (BENCHMARKS.md). The
  // bytes are inserted, not resized into and copied over: a resize writes every byte twice.
  template <class Scalar, class Record>
  void records(std::span<const Record> records) {
    static_assert(std::is_trivially_copyable_v<Record> && std::is_arithmetic_v<Scalar> && sizeof(Record) % sizeof(Scalar) == 0);
    const size_t at = buf_.size();
    if (records.empty()) return;
    const auto* first = reinterpret_cast<const uint8_t*>(records.data());  // a trivially copyable object's bytes
    buf_.insert(buf_.end(), first, first + records.size_bytes());
    if constexpr (sizeof(Scalar) > 1) {
      if ((endian_ == Endian::Big) != (std::endian::native == std::endian::big)) {
        for (size_t i = at; i < buf_.size(); i += sizeof(Scalar)) {
          Scalar v;
          std::memcpy(&v, buf_.data() + i, sizeof(Scalar));
          v = byteSwap(v);
          std::memcpy(buf_.data() + i, &v, sizeof(Scalar));
        }
      }
    }
  }

  // A whole vector of them.
  template <class Scalar, class Record>
  void records(const std::vector<Record>& records) {
    this->records<Scalar, Record>(std::span<const Record>(records));
  }

  // Overwrites 4 bytes at `pos` (which must already be written).
  void patchU32(size_t pos, uint32_t v);

  template <class T>
  void put(T v) {
    static_assert(std::is_arithmetic_v<T>);
    if constexpr (sizeof(T) > 1) {
      if ((endian_ == Endian::Big) != (std::endian::native == std::endian::big)) v = byteSwap(v);
    }
    const size_t at = buf_.size();
    buf_.resize(at + sizeof(T));
    std::memcpy(buf_.data() + at, &v, sizeof(T));
  }

 private:
  Endian endian_;
  std::vector<uint8_t> buf_;
};

}  // namespace rigport
