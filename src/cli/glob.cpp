#include "cli/glob.hpp"

namespace rigport::cli {
namespace {

// The set that starts at pattern[at] == '[': whether it holds `c`, and where it ends (one past
// ']'). A '[' without a closing ']' is no set (npos): it then matches itself.
size_t matchSet(std::string_view pattern, size_t at, char c, bool& holds) {
  size_t i = at + 1;
  const bool negated = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negated) ++i;
  bool found = false;
  for (bool first = true; i < pattern.size() && (first || pattern[i] != ']'); first = false) {
    char low = pattern[i];
    if (low == '\\' && i + 1 < pattern.size()) low = pattern[++i];
    char high = low;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      high = pattern[i + 2];
      if (high == '\\' && i + 3 < pattern.size()) high = pattern[++i + 2];
      i += 2;
    }
    if (static_cast<unsigned char>(c) >= static_cast<unsigned char>(low) && static_cast<unsigned char>(c) <= static_cast<unsigned char>(high)) found = true;
    ++i;
  }
  if (i >= pattern.size()) return std::string_view::npos;
  holds = found != negated;
  return i + 1;
}

}  // namespace

bool globMatch(std::string_view pattern, std::string_view subject, bool pathname) {
  size_t p = 0, s = 0;
  size_t starP = std::string_view::npos, starS = 0;  // where the last '*' resumes, to backtrack to
  while (s < subject.size()) {
    const char c = subject[s];
    const bool slash = pathname && c == '/';
    if (p < pattern.size()) {
      const char wanted = pattern[p];
      if (wanted == '*') {
        starP = ++p;
        starS = s;
        continue;
      }
      if (wanted == '?' && !slash) {
        ++p;
        ++s;
        continue;
      }
      bool holds = false;
      const size_t setEnd = wanted == '[' ? matchSet(pattern, p, c, holds) : std::string_view::npos;
      if (setEnd != std::string_view::npos) {
        if (holds && !slash) {
          p = setEnd;
          ++s;
          continue;
        }
      } else {
        const bool quoted = wanted == '\\' && p + 1 < pattern.size();
        if ((quoted ? pattern[p + 1] : wanted) == c && (quoted || wanted != '?')) {
          p += quoted ? 2 : 1;
          ++s;
          continue;
        }
      }
    }
    // Let the last '*' take one more character, unless it would have to take a '/'.
    if (starP == std::string_view::npos || (pathname && subject[starS] == '/')) return false;
    p = starP;
    s = ++starS;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace rigport::cli
