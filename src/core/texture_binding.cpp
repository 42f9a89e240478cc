#include "core/texture_binding.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
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

std::string withoutExtension(const std::string& name) { return std::filesystem::path(name).replace_extension().string(); }

std::string fileList(std::span<const std::string> files) {
  std::string out;
  for (size_t i = 0; i < files.size(); ++i) out += (i > 0 ? ", " : "") + files[i];
  return out;
}

// "looked for DIR/NAME.dds (no such file); looked in A.txd" for a name's warning.
std::string whereLooked(const std::string& name, const TextureSearch& search) {
  std::string out;
  for (const std::string& file : search.lookedFor) {
    const std::string stem = folded(std::filesystem::path(file).stem().string());
    if (stem == folded(name) || stem == folded(withoutExtension(name))) out += fmt::format("looked for {} (no such file)", file);
  }
  if (!search.lookedIn.empty()) out += (out.empty() ? "" : "; ") + std::string("looked in ") + fileList(search.lookedIn);
  return out.empty() ? "no texture file beside it" : out;
}

class Binder {
 public:
  Binder(Rig& rig, std::span<const Texture* const> textures, const TextureSearch& search) : rig_(rig), textures_(textures), search_(search) {
    for (size_t i = 0; i < textures.size(); ++i) byName_.emplace(folded(textures[i]->name), i);
    // Then each by its name without extension: an RW4 texture arena's TOC names a texture
    // "0x<guid>.Texture" and a Skate material channel names it "0x<guid>" (docs/rw4_materials.md §3).
    for (size_t i = 0; i < textures.size(); ++i) byName_.emplace(folded(withoutExtension(textures[i]->name)), i);
    // Last by the id a texture file keeps beside a name of its own (an RW4 TOC entry's GUID).
    for (size_t i = 0; i < textures.size(); ++i) {
      if (!textures[i]->id.empty()) byName_.emplace(folded(textures[i]->id), i);
    }
  }

  // The rig.textures index of the texture `name` names, copied in on first use; none when missing.
  std::optional<uint32_t> bind(const std::string& name) {
    auto found = byName_.find(folded(name));
    if (found == byName_.end()) found = byName_.find(folded(withoutExtension(name)));
    if (found == byName_.end()) {
      rig_.provenance.warn("texture-missing", fmt::format("texture '{}' not found; {}", name, whereLooked(name, search_)));
      return std::nullopt;
    }
    auto [slot, fresh] = bound_.emplace(found->second, static_cast<uint32_t>(rig_.textures.size()));
    if (fresh) rig_.textures.push_back(*textures_[found->second]);
    return slot->second;
  }

 private:
  Rig& rig_;
  std::span<const Texture* const> textures_;
  const TextureSearch& search_;
  std::map<std::string, size_t> byName_;  // folded name -> first texture of that name
  std::map<size_t, uint32_t> bound_;      // texture -> its index in rig.textures
};

}  // namespace

void bindTextures(Rig& rig, std::span<const Texture* const> textures, const TextureSearch& search) {
  Binder binder(rig, textures, search);
  for (Material& m : rig.materials) {
    // A material its own file already bound (a Sluggers block's TEX) keeps its texture.
    if (!m.textures.empty() && !m.baseColorTexture) m.baseColorTexture = binder.bind(m.textures.front());
    if (!m.normalMap.empty() && !m.normalTexture) m.normalTexture = binder.bind(m.normalMap);
  }
}

}  // namespace rigport
