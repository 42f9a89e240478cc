#include "support/gltf_validator.hpp"

#include <filesystem>

#include "support/test_support.hpp"

namespace rigport::test {

ValidatorRun validateGltfFile(const std::string& path) {
  ValidatorRun run;
  const std::string source = RIGPORT_SOURCE_DIR;
  if (!std::filesystem::exists(source + "/node_modules/gltf-validator/package.json")) {
    run.output = "node_modules/gltf-validator is missing: run scripts/setup.sh (npm ci in " + source + ")";
    return run;
  }
  const int rc = runCommand("node " + quote(source + "/tools/validate_gltf.mjs") + " " + quote(path), &run.output);
  run.ok = rc == 0;
  if (!run.ok) run.output = "validate_gltf.mjs exit code " + std::to_string(rc) + ": " + run.output;
  return run;
}

}  // namespace rigport::test
