#include "pipeline/file_names.hpp"

namespace rigport {

std::string fileSafe(std::string_view name, std::string_view fallback) {
  std::string out(name.empty() ? fallback : name);
  for (char& c : out) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F || std::string_view("/\\:<>\"|?*").find(c) != std::string_view::npos) c = '_';
  }
  if (out.size() > kMaxFileNamePart) {
    size_t cut = kMaxFileNamePart;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    out.resize(cut);
  }
  while (!out.empty() && (out.back() == '.' || out.back() == ' ')) out.pop_back();
  if (out.empty()) out = "_";
  return out;
}

}  // namespace rigport
