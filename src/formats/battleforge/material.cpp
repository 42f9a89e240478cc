#include "formats/battleforge/material.hpp"

#include <array>
#include <climits>
#include <optional>
#include <string_view>

#include <fmt/format.h>

namespace rigport::battleforge {
namespace {

struct MapRole {
  int32_t id;
  std::string_view role;
};
constexpr std::array<MapRole, 5> kRoles{{{kTextureColour, "_col"},
                                         {kTextureNormal, "_nor"},
                                         {kTextureParameter, "_par"},
                                         {kTextureRefraction, "_ref"},
                                         {kTextureFlu, "flu"}}};

std::string roleOf(int32_t id) {
  for (const MapRole& r : kRoles)
    if (r.id == id) return std::string(r.role);
  return std::to_string(id);
}

// The id a role names: one of kRoles, or an id kept as its number; none for anything else.
std::optional<int32_t> idOf(const std::string& role) {
  for (const MapRole& r : kRoles)
    if (r.role == role) return r.id;
  if (role.empty() || role.find_first_not_of("-0123456789") != std::string::npos || role.size() > 11) return std::nullopt;
  const long long id = std::stoll(role);
  if (id < INT32_MIN || id > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(id);
}

}  // namespace

Material materialOf(const BattleforgeMesh& mesh, size_t index) {
  Material material;
  material.name = fmt::format("material{}", index);
  nlohmann::json maps = nlohmann::json::object();
  bool haveColour = false;
  for (const auto& [id, name] : mesh.textures) {
    if (id == kTextureColour && !haveColour) {
      haveColour = true;
      material.name = name;
      material.textures.insert(material.textures.begin(), name);  // the colour map first: glTF's baseColorTexture
    } else {
      material.textures.push_back(name);
    }
    if (id == kTextureNormal && material.normalMap.empty()) material.normalMap = name;
    maps[roleOf(id)] = name;
  }
  if (!maps.empty()) material.extras["battleforge"]["maps"] = std::move(maps);
  return material;
}

std::vector<std::pair<int32_t, std::string>> texturesOf(const Material& material) {
  std::vector<std::pair<int32_t, std::string>> out;
  const nlohmann::json* maps = nullptr;
  if (material.extras.is_object() && material.extras.contains("battleforge") && material.extras["battleforge"].is_object() &&
      material.extras["battleforge"].contains("maps") && material.extras["battleforge"]["maps"].is_object()) {
    maps = &material.extras["battleforge"]["maps"];
  }
  if (maps != nullptr) {
    for (const auto& [role, name] : maps->items()) {
      const auto id = idOf(role);
      if (id && name.is_string()) out.emplace_back(*id, name.get<std::string>());
    }
    return out;
  }
  if (!material.textures.empty()) out.emplace_back(kTextureColour, material.textures.front());
  if (!material.normalMap.empty()) out.emplace_back(kTextureNormal, material.normalMap);
  return out;
}

}  // namespace rigport::battleforge
