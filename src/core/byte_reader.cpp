#include "core/byte_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

namespace rigport {

namespace {

// Appends "name" or "name[index]", after a '/' when `slash`, without fmt: every sub-reader and
// scope makes one, tens of thousands in a clip package, where fmt::format took more time than
// reading the keys. The index is formatted once, into a buffer on the stack.
void appendField(PathText& path, Field f, bool slash) {
  const std::string_view name(f.name);
  char digits[24];
  const size_t digitCount = f.index >= 0 ? static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, f.index).ptr - digits) : 0;
  char* to = path.extend((slash ? 1 : 0) + name.size() + (f.index >= 0 ? digitCount + 2 : 0));
  if (slash) *to++ = '/';
  to = std::copy(name.begin(), name.end(), to);
  if (f.index < 0) return;
  *to++ = '[';
  to = std::copy(digits, digits + digitCount, to);
  *to = ']';
}

// A sub-reader's path: this one's + "/" + f; f alone at the root, and this one's for an empty f.
void appendSegment(PathText& path, Field f) {
  if (path.empty()) return appendField(path, f, false);
  if (f.name[0] == '\0' && f.index < 0) return;  // an empty segment
  appendField(path, f, true);
}

}  // namespace

PathText::PathText(const PathText& other) : size_(other.size_) {
  std::memcpy(inline_, other.inline_, kInline);  // the whole buffer, not zeroed first: a fixed-size copy
  if (other.long_) long_ = std::make_unique<std::string>(*other.long_);
}

PathText& PathText::operator=(const PathText& other) {
  if (this != &other) *this = PathText(other);
  return *this;
}

char* PathText::extend(size_t n) {
  const size_t old = size();
  if (!long_ && n <= kInline - old) {
    size_ = static_cast<uint16_t>(old + n);
    return inline_ + old;
  }
  if (!long_) long_ = std::make_unique<std::string>(inline_, old);
  long_->resize(old + n);
  return long_->data() + old;
}

void PathText::truncate(size_t n) {
  if (long_) {
    long_->resize(n);
  } else {
    size_ = static_cast<uint16_t>(n);
  }
}

std::string Field::str() const {
  PathText text;
  appendField(text, *this, false);
  return std::string(text.view());
}

ByteReader::ByteReader(std::span<const uint8_t> data, Endian endian, uint64_t fileOffset,
                       std::string path)
    : data_(data), base_(fileOffset), endian_(endian), path_(path) {}

std::string ByteReader::fieldPath(Field f) const {
  PathText path(path_);
  appendSegment(path, f);
  return std::string(path.view());
}

ByteReader ByteReader::child(std::span<const uint8_t> data, uint64_t fileOffset, Field f) const {
  ByteReader r(*this);  // the endianness, budget and path
  r.data_ = data;
  r.pos_ = 0;
  r.base_ = fileOffset;
  appendSegment(r.path_, f);
  return r;
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
  const uint64_t at = base_ + pos_;
  const auto span = data_.subspan(pos_, n);
  pos_ += n;
  return child(span, at, f);
}

Result<ByteReader> ByteReader::window(size_t pos, size_t n, Field f) const {
  if (pos > data_.size() || n > data_.size() - pos) {
    return error(ErrorCode::Truncated,
                 fmt::format("range 0x{:X}+{} lies outside 0x{:X}..0x{:X}", base_ + pos, n, base_, base_ + data_.size()), f);
  }
  return child(data_.subspan(pos, n), base_ + pos, f);
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
  appendField(r_.path_, f, !r_.path_.empty());
}

ByteReader::Scope::~Scope() { r_.path_.truncate(oldLength_); }

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
