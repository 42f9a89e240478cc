// Loading shared by the subcommands: model files, plus animation files (--anim) bound onto them.
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport::cli {

// Prints "rigport: error: <Error::describe()>" on stderr.
void printError(const Error& error);

// Loads every --anim file; a file that fails is reported with printError() and counted in `failures`.
std::vector<Rig> loadAnimationFiles(const std::vector<std::string>& paths, size_t& failures);

// Loads `path` and binds the animations of `animationRigs` to its skeleton (in glTF axes when the
// two files' axes differ, so keys and bones agree).
Result<Rig> loadModel(const std::string& path, const std::vector<Rig>& animationRigs);

}  // namespace rigport::cli
