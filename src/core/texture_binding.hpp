// Binding textures read from texture files (a RenderWare TXD) to a rig's materials by name.
#pragma once

#include <span>
#include <string>

#include "core/rig.hpp"
#include "core/texture.hpp"

namespace rigport {

// Each material's first texture name is looked up among `textures` ignoring case (the first match
// wins, so the files given first win); a texture bound by several materials is copied into
// rig.textures once and they share it. A name found nowhere is a `texture-missing` warning naming
// it and `lookedIn` (the files searched), never an error: the material keeps its colour.
// `textures` are pointers so that a batch binds the same --txd textures to every input uncopied.
void bindTextures(Rig& rig, std::span<const Texture* const> textures, std::span<const std::string> lookedIn);

}  // namespace rigport
