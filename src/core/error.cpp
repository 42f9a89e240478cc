#include "core/error.hpp"

#include <fmt/format.h>

namespace rigport {

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
  if (!file.empty()) out += file + ": ";
  for (const ErrorFrame& f : outer) {
    out += f.where;
    if (f.offset) out += fmt::format(" (at 0x{:X})", *f.offset);
    out += " > ";
  }
  if (!path.empty()) out += path + ": ";
  out += message;
  if (offset) out += fmt::format(" (at 0x{:X})", *offset);
  return out;
}

}  // namespace rigport
