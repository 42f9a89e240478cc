#include "core/byte_writer.hpp"

#include <cassert>

namespace rigport {

void ByteWriter::fixedString(std::string_view s, size_t n) {
  const size_t len = s.size() < n ? s.size() : n;
  buf_.insert(buf_.end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(len));
  zeros(n - len);
}

void ByteWriter::cString(std::string_view s) {
  buf_.insert(buf_.end(), s.begin(), s.end());
  buf_.push_back(0);
}

void ByteWriter::align(size_t alignment) {
  while (buf_.size() % alignment != 0) buf_.push_back(0);
}

void ByteWriter::patchU32(size_t pos, uint32_t v) {
  assert(pos + 4 <= buf_.size());
  if ((endian_ == Endian::Big) != (std::endian::native == std::endian::big)) v = byteSwap(v);
  std::memcpy(buf_.data() + pos, &v, 4);
}

}  // namespace rigport
