// Texture binds as materials (sluggers.md §3 display state id 1, §5 TEX).
#include <algorithm>

#include <fmt/format.h>

#include "formats/sluggers/model_layout.hpp"
#include "formats/sluggers/tex.hpp"

namespace rigport::sluggers {

uint32_t TextureBinder::untextured() {
  if (!untextured_) {
    untextured_ = static_cast<uint32_t>(rig_.materials.size());
    Material m;
    m.name = "untextured";
    rig_.materials.push_back(std::move(m));
  }
  return *untextured_;
}

uint32_t TextureBinder::materialFor(uint32_t setting) {
  const uint32_t index = setting & kBindIndexMask;
  for (const auto& [i, material] : byIndex_)
    if (i == index) return material;
  Material m;
  m.name = fmt::format("texture{}", index);
  m.textures = {m.name};
  m.extras["sluggers"]["texture"] = index;
  m.extras["sluggers"]["bind"] = setting;  // the first bind's whole setting, which the writer writes back
  if (index < tex_.size() && !tex_[index].image.levels.empty()) {
    Texture t = tex_[index];
    t.sampler = bindSampler(setting);  // the first bind's; later binds of other samplers share it
    m.baseColorTexture = static_cast<uint32_t>(rig_.textures.size());
    rig_.textures.push_back(std::move(t));
  } else {
    unbound_.push_back(index);
  }
  const auto material = static_cast<uint32_t>(rig_.materials.size());
  rig_.materials.push_back(std::move(m));
  byIndex_.emplace_back(index, material);
  return material;
}

void TextureBinder::bindMesh(const GplMesh& g, Mesh& mesh) {
  if (g.textureBinds.empty()) return;
  const auto corners = static_cast<uint32_t>(mesh.indices.size());
  auto addPart = [&](uint32_t material, size_t first, size_t end) {
    const auto from = static_cast<uint32_t>(std::min<size_t>(first, corners)), to = static_cast<uint32_t>(std::min<size_t>(end, corners));
    if (to <= from) return;
    if (!mesh.parts.empty() && mesh.parts.back().material == material && mesh.parts.back().firstIndex + mesh.parts.back().indexCount == from) {
      mesh.parts.back().indexCount += to - from;
    } else {
      mesh.parts.push_back(MeshPart{material, from, to - from});
    }
  };
  if (g.textureBinds.front().firstCorner > 0) addPart(untextured(), 0, g.textureBinds.front().firstCorner);
  for (size_t b = 0; b < g.textureBinds.size(); ++b) {
    const size_t end = b + 1 < g.textureBinds.size() ? g.textureBinds[b + 1].firstCorner : corners;
    const uint32_t material = materialFor(g.textureBinds[b].setting);
    addPart(material, g.textureBinds[b].firstCorner, end);
  }
}

void TextureBinder::warnUnbound() {
  if (unbound_.empty()) return;
  std::string list;
  for (size_t i = 0; i < unbound_.size(); ++i) list += (i > 0 ? ", " : "") + std::to_string(unbound_[i]);
  rig_.provenance.warn("sluggers-texture",
                       hasTex_ ? fmt::format("texture binds name textures {} that the TEX section does not hold (or that did not read); those "
                                             "materials stay untextured", list)
                               : fmt::format("texture binds name textures {} but the block has no TEX section (an L_ model binds its "
                                             "high-poly partner's, §5); those materials stay untextured", list));
}

}  // namespace rigport::sluggers
