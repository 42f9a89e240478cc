// How glTF output rests and stands (issue 26): --rest-pose CLIP[@SECONDS]|bind takes the rest pose
// from a clip, a format's idle clip stands a model whose bind pose lies on its side, and a model
// whose origin is above its feet is lifted onto the ground unless --no-ground (core/rest_pose.hpp;
// the per-format choices are the registry's StandHints).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport::cli {

struct StanceOptions {
  std::string restPose;   // --rest-pose CLIP[@SECONDS] or "bind"; empty: the format's default
  bool noGround = false;  // --no-ground
};

// Adds --rest-pose, and --no-ground when `ground` (commands that write glTF).
void addStanceOptions(CLI::App& cmd, StanceOptions& options, bool ground);

// Puts `rig` in the rest pose `options` name: a clip's pose (unknown clip: a usage error), the bind
// pose ("bind"), or by default the bind pose unless it lies on its side and the rig's format names
// an idle clip: that clip at 0 s when the rig has it (a "rest-pose" warning says so), else a
// "rest-pose-lies" warning saying how to stand it. Returns the lift (metres along glTF's +Y) that
// puts the posed model's lowest point on the ground: 0 unless `ground`, no --no-ground, and the
// format's origin is above the feet.
Result<float> settleStance(Rig& rig, const StanceOptions& options, bool ground);

}  // namespace rigport::cli
