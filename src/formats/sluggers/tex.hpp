// The TEX section (sluggers.md §5): the block's own textures, decoded through the image room's GX
// decoder, and the texture binds (§3 display state id 1) that sample them.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/rig.hpp"
#include "core/texture.hpp"
#include "formats/sluggers/gpl.hpp"

namespace rigport::sluggers {

// `tex` spans the section. Texture i is named "texture<i>", the name its binds' materials give.
// A descriptor whose format or palette rigport does not read costs that texture (a
// `sluggers-texture` warning naming it and the field); sizes beyond the section or the budget
// refuse the block, naming the field.
Result<std::vector<Texture>> readTex(ByteReader& tex, Provenance& provenance);

// The sampler a texture bind's setting asks for.
Sampler bindSampler(uint32_t setting);

// The rig's materials for the block's texture binds: one per texture index bound (named
// "texture<i>", extras.sluggers.texture = i and .bind = its first bind's setting), its texture the
// TEX's, sampled as that bind asks.
class TextureBinder {
 public:
  // `tex`: the block's TEX textures (a texture without levels failed to read), or none when the block
  // has no TEX section (an `L_` model binds its high-poly partner's, §5).
  TextureBinder(Rig& rig, std::vector<Texture> tex, bool hasTex) : rig_(rig), tex_(std::move(tex)), hasTex_(hasTex) {}
  // Splits `mesh` (built corner for corner from `g`) into parts by the binds' textures; corners
  // drawn before the first bind take an untextured material.
  void bindMesh(const GplMesh& g, Mesh& mesh);
  // One warning for the binds whose texture is missing.
  void warnUnbound();

 private:
  uint32_t materialFor(uint32_t setting);
  uint32_t untextured();

  Rig& rig_;
  std::vector<Texture> tex_;
  bool hasTex_;
  std::vector<std::pair<uint32_t, uint32_t>> byIndex_;  // texture index -> material
  std::vector<uint32_t> unbound_;                       // texture indices bound but not read
  std::optional<uint32_t> untextured_;
};

}  // namespace rigport::sluggers
