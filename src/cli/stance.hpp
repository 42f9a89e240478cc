// The CLI's face of pipeline/stance.hpp: --rest-pose CLIP[@SECONDS]|bind and --no-ground.
#pragma once

#include <CLI/CLI.hpp>

#include "pipeline/stance.hpp"

namespace rigport::cli {

// Adds --rest-pose, and --no-ground when `ground` (commands that write glTF).
void addStanceOptions(CLI::App& cmd, StanceOptions& options, bool ground);

}  // namespace rigport::cli
