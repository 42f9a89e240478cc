#include "core/byte_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

namespace rigport {

namespace {

// "name" or "name[index]" as pieces, without fmt: every sub-reader and scope makes one, tens of
// thousands in a clip package, where fmt::format took more time than reading the keys.
struct FieldText {
  std::string_view name;
  int64_t index;
  size_t digitCount = 0;  // of the index, when it is not negative
  explicit FieldText(Field f) : name(f.name), index(f.index) {
    char digits[24];
    if (index >= 0) digitCount = static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, index).ptr - digits);
  }
  size_t size() const { return name.size() + (index >= 0 ? digitCount + 2 : 0); }
  char* write(char* to) const {
    to = std::copy(name.begin(), name.end(), to);
    if (index < 0) return to;
    *to++ = '[';
    to = std::to_chars(to, to + digitCount, index).ptr;
    *to++ = ']';
    return to;
  }
};

void appendField(std::string& out, Field f) {
  const FieldText text(f);
  const size_t old = out.size();
  out.resize(old + text.size());
  text.write(out.data() + old);
}

}  // namespace

std::string Field::str() const {
  std::string s;
  appendField(s, *this);
  return s;
}

ByteReader::ByteReader(std::span<const uint8_t> data, Endian endian, uint64_t fileOffset,
                       std::string path)
    : data_(data), base_(fileOffset), endian_(endian), path_(std::move(path)) {}

// Sized once and written in place: each sub-reader makes one (three per track of a 1,000-clip IFP,
// whose appends piece by piece were 21 M instructions besides their allocations).
std::string ByteReader::fieldPath(Field f) const {
  if (path_.empty()) return f.str();
  if (f.name[0] == '\0' && f.index < 0) return path_;  // an empty segment
  const FieldText text(f);
  std::string path(path_.size() + 1 + text.size(), '/');
  std::copy(path_.begin(), path_.end(), path.begin());
  text.write(path.data() + path_.size() + 1);  // after the '/'
  return path;
}

Error ByteReader::errorAt(size_t relPos, ErrorCode code, std::string message, Field f) const {
  Error e;
  e.code = code;
  e.message = std::move(message);
  e.path = fieldPath(f);
  e.offset = base_ + relPos;
  return e;
}

Error ByteReader::error(ErrorCode code, std::string message, Field f) const {
  return errorAt(pos_, code, std::move(message), f);
}

Error ByteReader::truncated(size_t n, Field f) const {
  return error(ErrorCode::Truncated, fmt::format("needs {} bytes, {} remain", n, remaining()), f);
}

Result<float> ByteReader::f16(Field f) {
  auto h = u16(f);
  if (!h) return h.error();
  return halfToFloat(*h);
}

Result<std::string> ByteReader::fixedString(size_t n, Field f) {
  if (n > remaining()) return truncated(n, f);
  const char* p = reinterpret_cast<const char*>(data_.data() + pos_);
  size_t len = 0;
  while (len < n && p[len] != '\0') ++len;
  pos_ += n;
  return std::string(p, len);
}

Result<std::string> ByteReader::cString(Field f) {
  const char* p = reinterpret_cast<const char*>(data_.data() + pos_);
  const void* nul = std::memchr(p, 0, remaining());
  if (nul == nullptr) {
    return error(ErrorCode::Truncated,
                 fmt::format("string has no terminating NUL in the {} bytes that remain", remaining()), f);
  }
  size_t len = static_cast<const char*>(nul) - p;
  pos_ += len + 1;
  return std::string(p, len);
}

Result<std::span<const uint8_t>> ByteReader::bytes(size_t n, Field f) {
  if (n > remaining()) return truncated(n, f);
  auto s = data_.subspan(pos_, n);
  pos_ += n;
  return s;
}

Status ByteReader::skip(size_t n, Field f) {
  if (n > remaining()) return truncated(n, f);
  pos_ += n;
  return Ok{};
}

Status ByteReader::seek(size_t pos, Field f) {
  if (pos > data_.size()) {
    return error(ErrorCode::BadValue, fmt::format("seek to 0x{:X} is past the end 0x{:X}", base_ + pos, base_ + data_.size()), f);
  }
  pos_ = pos;
  return Ok{};
}

Result<ByteReader> ByteReader::sub(size_t n, Field f) {
  if (n > remaining()) return truncated(n, f);
  ByteReader child(data_.subspan(pos_, n), endian_, base_ + pos_, fieldPath(f));
  child.budget_ = budget_;
  pos_ += n;
  return child;
}

Result<ByteReader> ByteReader::window(size_t pos, size_t n, Field f) const {
  if (pos > data_.size() || n > data_.size() - pos) {
    return error(ErrorCode::Truncated,
                 fmt::format("range 0x{:X}+{} lies outside 0x{:X}..0x{:X}", base_ + pos, n, base_, base_ + data_.size()), f);
  }
  ByteReader child(data_.subspan(pos, n), endian_, base_ + pos, fieldPath(f));
  child.budget_ = budget_;
  return child;
}

Status ByteReader::charge(uint64_t bytes, Field f) const {
  if (budget_ == nullptr || budget_->charge(bytes)) return Ok{};
  return error(ErrorCode::TooLarge, budget_->refusal(bytes), f);
}

Result<size_t> ByteReader::count(uint64_t n, size_t minRecordBytes, Field f) const {
  // n * minRecordBytes may overflow; compare by division instead.
  const uint64_t fit = minRecordBytes == 0 ? UINT64_MAX : remaining() / minRecordBytes;
  if (n > fit) {
    return error(ErrorCode::TooLarge,
                 fmt::format("count {} of {}-byte records needs {} bytes, {} remain", n, minRecordBytes,
                             n > UINT64_MAX / minRecordBytes ? UINT64_MAX : n * minRecordBytes,
                             remaining()),
                 f);
  }
  RP_CHECK(charge(n * minRecordBytes, f));
  return static_cast<size_t>(n);
}

ByteReader::Scope::Scope(ByteReader& r, Field f) : r_(r), oldLength_(r.path_.size()) {
  if (!r_.path_.empty()) r_.path_ += '/';
  appendField(r_.path_, f);
}

ByteReader::Scope::~Scope() { r_.path_.resize(oldLength_); }

uint16_t floatToHalf(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const float a = std::fabs(f);
  if (std::isnan(f)) return sign | 0x7E00u;
  if (a >= 65520.0f) return sign | 0x7C00u;  // rounds to infinity
  if (a < std::ldexp(1.0f, -25)) return sign;
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exponent = e - 1 + 15;
  if (exponent <= 0) {  // subnormal: value = mantissa * 2^-24
    return sign | static_cast<uint16_t>(std::lrint(std::ldexp(a, 24)));
  }
  uint32_t mant = static_cast<uint32_t>(std::lrint(std::ldexp(a, 10 - (e - 1)))) ;  // in [1024, 2048]
  if (mant == 2048) {
    mant = 1024;
    ++exponent;
  }
  if (exponent >= 31) return sign | 0x7C00u;
  return sign | static_cast<uint16_t>(exponent << 10) | static_cast<uint16_t>(mant & 0x3FFu);
}

}  // namespace rigport
