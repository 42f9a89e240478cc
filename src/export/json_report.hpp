// The rig as JSON, for `rigport info --json` (Summary) and `rigport dump --json` (Full).
// Units are the rig's own (see provenance.axes); quaternions are [x, y, z, w]; matrices are 16
// numbers, column-major (glTF's layout); bone, joint and track references are indices into
// skeleton.bones.
#pragma once

#include <nlohmann/json.hpp>

#include "core/rig.hpp"

namespace rigport {

enum class JsonDetail {
  Summary,  // counts per part, animation names/durations/key counts, warnings
  Full,     // everything: every bone, vertex, influence, key and event
};

nlohmann::ordered_json rigToJson(const Rig& rig, JsonDetail detail);

}  // namespace rigport
