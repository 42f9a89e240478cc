// How glTF output rests and stands (issue 26): the rest pose taken from a clip or kept as the bind
// pose, a format's idle clip standing a model whose bind pose lies on its side, and a model whose
// origin is above its feet lifted onto the ground (core/rest_pose.hpp; the per-format choices are
// the registry's StandHints).
#pragma once

#include <string>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

inline constexpr const char* kBindPose = "bind";

struct StanceOptions {
  std::string restPose;   // CLIP[@SECONDS] or kBindPose; empty: the format's default (CLI: --rest-pose)
  bool noGround = false;  // keep the origin where the file has it (CLI: --no-ground)
};

// CLIP[@SECONDS] (SECONDS a finite number, at least 0) or kBindPose.
bool isRestPoseSpec(const std::string& text);

// Puts `rig` in the rest pose `options` name: a clip's pose (unknown clip: a usage error), the bind
// pose (kBindPose), or by default the bind pose unless it lies on its side and the rig's format names
// an idle clip: that clip at 0 s when the rig has it (a "rest-pose" warning says so), else a
// "rest-pose-lies" warning saying how to stand it. Returns the lift (metres along glTF's +Y) that
// puts the posed model's lowest point on the ground: 0 unless `ground`, no --no-ground, and the
// format's origin is above the feet.
Result<float> settleStance(Rig& rig, const StanceOptions& options, bool ground);

}  // namespace rigport
