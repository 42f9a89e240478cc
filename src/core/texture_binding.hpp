// Binding textures read from texture files (a RenderWare TXD, BattleForge's DDS maps) to a rig's
// materials by name.
#pragma once

#include <span>
#include <string>

#include "core/rig.hpp"
#include "core/texture.hpp"

namespace rigport {

// Where the textures were looked for, for the warning a missing one gets.
struct TextureSearch {
  std::span<const std::string> lookedIn;   // texture files read (a TXD beside the model, each --txd)
  // Files that would each have held the texture of their stem's name and do not exist (a DDS a
  // BattleForge material names, looked for beside the model).
  std::span<const std::string> lookedFor;
};

// Each material's colour map (its first texture name) and normal map (Material::normalMap) are
// looked up among `textures` ignoring case, with the name's own extension or without it (a material
// naming "skin.dds" takes the texture of skin.dds, named "skin"), then among their names without
// extension (an RW4 material's "0x<guid>" takes the texture arena's "0x<guid>.Texture"), then among
// their ids (Texture::id: the GUID of an RW4 texture its TableOfContents names otherwise); the first
// match wins, so the files given first win. A texture bound by several materials is copied into rig.textures once and they
// share it. A name found nowhere is a `texture-missing` warning naming it and where it was looked
// for (`search`), never an error: the material keeps its colour. A material already bound (by the
// reader of a file that holds its own textures, a Sluggers block) is left as it is.
// `textures` are pointers so that a batch binds the same --txd textures to every input uncopied.
void bindTextures(Rig& rig, std::span<const Texture* const> textures, const TextureSearch& search);

}  // namespace rigport
