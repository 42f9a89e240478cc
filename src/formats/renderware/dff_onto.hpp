// Shared pieces of `convert --to renderware-dff --base ORIGINAL` (issue 28): the rig being written
// and the original it is written into, matched bone by bone, and the bytes being patched.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "core/error.hpp"
#include "core/onto.hpp"
#include "core/rig.hpp"
#include "formats/renderware/dff_places.hpp"

namespace rigport::renderware {

// What a glTF round trip leaves of an unedited value (axis turns are exact; TRS decomposition,
// weight renormalisation and float rounding are not): values closer than this to the original's
// keep its bytes. Lengths scale with the model's size (OntoJob::length).
constexpr float kRounding = 1e-5f;

struct OntoJob {
  const Rig& base;               // the original as readDff reads it
  const Rig& rig;                // the edited rig, in RenderWare axes
  const DffPlaces& places;
  std::vector<uint32_t> rigBone;  // the rig's bone for each of the original's bones
  float length = kRounding;       // tolerance for positions and translations
  std::vector<uint8_t> file;      // the copy being patched in place (original offsets)
  std::vector<Splice> splices;    // then these, which change lengths
};

void putU8(std::vector<uint8_t>& file, size_t at, uint8_t v);
void putU16(std::vector<uint8_t>& file, size_t at, uint16_t v);
void putU32(std::vector<uint8_t>& file, size_t at, uint32_t v);
void putF32(std::vector<uint8_t>& file, size_t at, float v);
uint32_t getU32(const std::vector<uint8_t>& file, size_t at);
float getF32(const std::vector<uint8_t>& file, size_t at);
// An RwMatrix's twelve values (right, up, at, pos; §1.9) as a column-major matrix: columns
// `columnStride` bytes apart, 16 where a pad follows each (Skin PLG), 12 where none (FrameList).
glm::mat4 getRwMatrix(const std::vector<uint8_t>& file, size_t at, size_t columnStride);
void putRwMatrix(std::vector<uint8_t>& file, size_t at, size_t columnStride, const glm::mat4& m);

bool near(const glm::mat4& a, const glm::mat4& b, float length);

// Every mesh's geometry, skin and inverse bind matrices (dff_onto_geometry.cpp).
Status writeGeometriesOnto(OntoJob& job);

}  // namespace rigport::renderware
