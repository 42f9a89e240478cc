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

std::string Error::describe() const {
  std::string out;
  if (!file.empty()) out += file + ": ";
  if (!path.empty()) out += path + ": ";
  out += message;
  if (offset && message.find("0x") == std::string::npos) out += fmt::format(" (at 0x{:X})", *offset);
  return out;
}

}  // namespace rigport
