// The convert path shared by `convert` and `view`: a model file (plus bound --anim files) to a rig
// that can be exported, refusing animation-only inputs with the same message in both commands.
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport::cli {

// loadModel() (inputs.hpp), then a Usage error when the file's format carries only animations.
// Errors carry `path` as their file.
Result<Rig> loadConvertibleModel(const std::string& path, const std::vector<Rig>& animationRigs);

// Total warnings of a loaded rig (each folded warning counts its repeats).
size_t warningCount(const Rig& rig);

}  // namespace rigport::cli
