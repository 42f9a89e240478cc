// How far a rig moved on a trip through a format: the largest difference between a source rig and
// what a reader gave back, both already in glTF axes (toGltfAxes), bones matched by name.
#pragma once

#include <string>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

struct RoundTripError {
  // The maximum over:
  //   bone local translation and scale components, metres / unit-less;
  //   bone local rotation components, unit quaternions with the sign that brings them closest;
  //   inverse bind matrix elements (the stored one, or inverse(world bind) where absent);
  //   vertex position components, metres (vertices matched by index);
  //   per-vertex weight per bone (a bone missing on one side counts as weight 0);
  //   animation values sampled at the source's key times (linear / slerp on the result's keys;
  //   a channel the result lacks is its bind pose), same units as the bone TRS.
  double max = 0.0;
  std::string where;  // which value reached `max`, e.g. "walk/thigh_l rotation at 0.533 s"
};

// Fails (ErrorCode::Invalid) when the two rigs differ in structure: a source bone missing from
// the result, or differing mesh or vertex counts.
Result<RoundTripError> compareRigs(const Rig& source, const Rig& result);

}  // namespace rigport
