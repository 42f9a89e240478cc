#include "core/node_name.hpp"

#include <algorithm>
#include <cstdint>

namespace rigport {
namespace {

constexpr size_t kBlenderBoneName = 63;

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Length of the valid UTF-8 sequence at s[i], or 0 if the bytes there are not valid UTF-8.
size_t utf8SequenceLength(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = 0;
  uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) { n = 2; cp = c & 0x1F; }
  else if (c >= 0xE0 && c <= 0xEF) { n = 3; cp = c & 0x0F; }
  else if (c >= 0xF0 && c <= 0xF4) { n = 4; cp = c & 0x07; }
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string toUtf8(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (const size_t n = utf8SequenceLength(name, i); n > 0) {
      out.append(name, i, n);
      i += n;
    } else {
      appendUtf8(out, c);
      ++i;
    }
  }
  return out;
}

std::string nodeNameOf(const std::string& name) {
  std::string out = toUtf8(name);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '_';
  }
  const size_t b = out.find_first_not_of(' ');
  if (b == std::string::npos) return {};
  return out.substr(b, out.find_last_not_of(' ') - b + 1);
}

bool exportedNameOf(const std::string& node, const std::string& name) {
  const std::string wanted = nodeNameOf(name);
  if (wanted.empty() || node == wanted) return true;  // an empty one became a fallback name
  // Blender keeps 63 bytes of a bone's name, cut at a character's end.
  if (wanted.size() > kBlenderBoneName && node.size() <= kBlenderBoneName && wanted.starts_with(node)) return true;
  const size_t cut = node.find_last_of('_');
  const bool numbered = cut != std::string::npos && cut + 1 < node.size() &&
                        std::all_of(node.begin() + static_cast<std::ptrdiff_t>(cut) + 1, node.end(), [](char c) { return c >= '0' && c <= '9'; });
  return numbered && node.compare(0, cut, wanted) == 0 && cut == wanted.size();
}

}  // namespace rigport
