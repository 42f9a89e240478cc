// The rig as JSON, for `rigport info --json` (Summary) and `rigport dump --json` (Full), and the
// other things the command line reports as JSON: clip sets, items, bind coverage, errors.
// Units are the rig's own (see provenance.axes); quaternions are [x, y, z, w]; matrices are 16
// numbers, column-major (glTF's layout); bone, joint and track references are indices into
// skeleton.bones.
#pragma once

#include <nlohmann/json.hpp>

#include "core/asset.hpp"
#include "core/bind.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

enum class JsonDetail {
  Summary,  // counts per part, animation names/durations/key counts, warnings
  Full,     // everything: every bone, vertex, influence, key and event
};

nlohmann::ordered_json rigToJson(const Rig& rig, JsonDetail detail);
// A clip set's clips: names, durations, track, key and event counts.
nlohmann::ordered_json clipSetToJson(const ClipSet& clips);
nlohmann::ordered_json itemsToJson(const std::vector<ItemInfo>& items);
nlohmann::ordered_json coverageToJson(const BindReport& report);
// {code, file, trail: [{where, offset}], message, text}: the trail outside in, `text` = describe().
nlohmann::ordered_json errorToJson(const Error& error);

}  // namespace rigport
