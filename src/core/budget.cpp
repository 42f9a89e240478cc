#include "core/budget.hpp"

#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace rigport {

std::string Budget::refusal(uint64_t bytes) const {
  return fmt::format("needs {} more bytes of memory, over the read's budget of {} bytes ({} already used); "
                     "a forged count, or a file larger than the budget (--memory-limit raises it)",
                     bytes, limit_, used_);
}

uint64_t parseByteSize(const std::string& text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || p == text.data()) return 0;
  uint64_t unit = 1;
  if (p != end) {
    switch (std::tolower(static_cast<unsigned char>(*p))) {
      case 'k': unit = 1ull << 10; break;
      case 'm': unit = 1ull << 20; break;
      case 'g': unit = 1ull << 30; break;
      case 't': unit = 1ull << 40; break;
      default: return 0;
    }
    ++p;
    if (p != end && (*p == 'i' || *p == 'I')) ++p;
    if (p != end && (*p == 'b' || *p == 'B')) ++p;
    if (p != end) return 0;
  }
  if (value > UINT64_MAX / unit) return 0;
  return value * unit;
}

}  // namespace rigport
