// A BattleforgeMesh's Textures block (battleforge_drs.md §7) as a rig Material, and back.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/rig.hpp"
#include "formats/battleforge/drs_layout.hpp"

namespace rigport::battleforge {

// The `_col` map is the colour map (Material::textures' first, and the material's name), `_nor` the
// normal map (Material::normalMap); every map stays in extras.battleforge.maps by its role ("_col",
// "_nor", "_par", "_ref", "flu", or the id for others). The note does not say how the `_par`
// (parameter) map's channels map to glTF's metallic-roughness, so it is left there, unbound.
Material materialOf(const BattleforgeMesh& mesh, size_t index);
// The Textures block a material is written back as: its maps by role when extras.battleforge.maps
// holds them (a DRS read back), else its colour map (`_col`) and normal map (`_nor`).
std::vector<std::pair<int32_t, std::string>> texturesOf(const Material& material);

}  // namespace rigport::battleforge
