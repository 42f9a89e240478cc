#include "core/error.hpp"

#include <fmt/format.h>

namespace rigport {
namespace {

// The length of the valid UTF-8 sequence starting text[i] (RFC 3629: no overlong form, no
// surrogate, nothing past U+10FFFF), or 0.
size_t utf8Length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  if (lead < 0xC2 || lead > 0xF4) return 0;  // a continuation byte, an overlong lead, or past U+10FFFF
  const size_t n = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  // The byte after the lead: E0 and F0 would be overlong below A0 and 90, ED a surrogate from A0,
  // F4 past U+10FFFF from 90.
  const unsigned char low = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
  const unsigned char high = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
  if (i + n > text.size() || byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const size_t n = utf8Length(text, i);
    const bool c1 = n == 2 && lead == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;  // U+0080..U+009F
    if (n == 0 || c1 || (n == 1 && (lead < 0x20 || lead == 0x7F))) {
      const size_t bad = n == 0 ? 1 : n;
      for (size_t k = 0; k < bad; ++k) out += fmt::format("\\x{:02X}", static_cast<unsigned char>(text[i + k]));
      i += bad;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

const char* errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::Truncated: return "truncated";
    case ErrorCode::BadValue: return "bad-value";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::TooLarge: return "too-large";
    case ErrorCode::Io: return "io";
    case ErrorCode::Invalid: return "invalid-model";
    case ErrorCode::Usage: return "usage";
  }
  return "unknown";
}

std::vector<ErrorFrame> Error::trail() const {
  std::vector<ErrorFrame> frames = outer;
  if (!path.empty() || offset) frames.push_back(ErrorFrame{path, offset});
  return frames;
}

Error& Error::within(ErrorFrame frame) {
  outer.insert(outer.begin(), std::move(frame));
  return *this;
}

std::string Error::describe() const {
  std::string out;
  if (!file.empty()) out += printable(file) + ": ";
  for (const ErrorFrame& f : outer) {
    out += printable(f.where);
    if (f.offset) out += fmt::format(" (at 0x{:X})", *f.offset);
    out += " > ";
  }
  if (!path.empty()) out += printable(path) + ": ";
  out += printable(message);
  if (offset) out += fmt::format(" (at 0x{:X})", *offset);
  return out;
}

}  // namespace rigport
