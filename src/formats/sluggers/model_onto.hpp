// Shared pieces of `convert --to sluggers-model --base ORIGINAL` (issue 28): the rig being written,
// the original block it is written into, matched bone by bone, and the bytes being patched.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/onto.hpp"
#include "core/rig.hpp"
#include "formats/sluggers/gx_quant.hpp"
#include "formats/sluggers/model_places.hpp"

namespace rigport::sluggers {

// What a glTF round trip leaves of an unedited value (float rounding of TRS and weights): values
// closer than this to the original's keep its bytes. Lengths scale with the model's size.
constexpr float kRounding = 1e-5f;

struct OntoJob {
  const Rig& base;                // the original as readModel reads it
  const Rig& rig;                 // the edited rig
  const ModelPlaces& places;
  std::vector<uint32_t> rigBone;  // the rig's bone for each of the original's
  float length = kRounding;       // tolerance for positions and translations
  std::vector<uint8_t> file;      // the copy being patched in place: its size never changes
};

// `v` stored over the component at `at` as `type` with `frac` fractional bits; a value the original's
// quantisation cannot hold is refused, naming `path` and the range it holds.
Status storeComponent(OntoJob& job, size_t at, float v, GxType type, unsigned frac, const std::string& path);

// Every submesh's positions, normals and uvs, and the skin's weights (model_onto_mesh.cpp).
Status writeMeshesOnto(OntoJob& job);

}  // namespace rigport::sluggers
