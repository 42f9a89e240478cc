#include "core/texture_binding.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

namespace rigport {
namespace {

// Texture names are ASCII in every format that stores them (RenderWare: char[32]).
std::string folded(const std::string& name) {
  std::string out = name;
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string fileList(std::span<const std::string> files) {
  std::string out = "looked in ";
  for (size_t i = 0; i < files.size(); ++i) out += (i > 0 ? ", " : "") + files[i];
  return out;
}

}  // namespace

void bindTextures(Rig& rig, std::span<const Texture* const> textures, std::span<const std::string> lookedIn) {
  std::map<std::string, size_t> byName;  // folded name -> first texture of that name
  for (size_t i = 0; i < textures.size(); ++i) byName.emplace(folded(textures[i]->name), i);
  std::map<size_t, uint32_t> bound;      // texture -> its index in rig.textures
  for (Material& m : rig.materials) {
    if (m.textures.empty()) continue;
    const auto found = byName.find(folded(m.textures.front()));
    if (found == byName.end()) {
      rig.provenance.warn("texture-missing", fmt::format("texture '{}' not found; {}", m.textures.front(), fileList(lookedIn)));
      continue;
    }
    auto [slot, fresh] = bound.emplace(found->second, static_cast<uint32_t>(rig.textures.size()));
    if (fresh) rig.textures.push_back(*textures[found->second]);
    m.baseColorTexture = slot->second;
  }
}

}  // namespace rigport
