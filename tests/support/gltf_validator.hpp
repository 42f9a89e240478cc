// Runs tools/validate_gltf.mjs (the Khronos glTF-Validator under node) from a test.
#pragma once

#include <string>

namespace rigport::test {

struct ValidatorRun {
  bool ok = false;       // 0 errors and 0 warnings
  std::string output;    // the script's summary line(s), or why it could not run
};

// Validates one .glb or .gltf (a .gltf's .bin is read from beside it). When node_modules/gltf-validator
// is missing, ok is false and `output` says to run scripts/setup.sh: a missing validator fails a test,
// it never skips it.
ValidatorRun validateGltfFile(const std::string& path);

}  // namespace rigport::test
