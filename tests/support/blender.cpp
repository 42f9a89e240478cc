#include "support/blender.hpp"

#include <fstream>

#include "support/test_support.hpp"

namespace rigport::test {

BlenderRun inspectWithBlender(const std::string& gltfPath, const std::string& reportPath) {
  BlenderRun run;
  std::string blender;
  if (runCommand("command -v blender", &blender) != 0 || blender.empty()) {
    run.output = "blender is not installed: run scripts/setup.sh (apt blender python3-numpy)";
    return run;
  }
  while (!blender.empty() && (blender.back() == '\n' || blender.back() == '\r')) blender.pop_back();
  const std::string script = std::string(RIGPORT_SOURCE_DIR) + "/tools/blender_inspect.py";
  const int rc = runCommand("'" + blender + "' -b --factory-startup --python-exit-code 1 --python '" + script + "' -- '" +
                                gltfPath + "' '" + reportPath + "'",
                            &run.output);
  if (rc != 0) {
    run.output = "blender exit code " + std::to_string(rc) + ": " + run.output;
    return run;
  }
  std::ifstream in(reportPath);
  run.report = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (run.report.is_discarded()) {
    run.output = "blender wrote no readable report at " + reportPath + ": " + run.output;
    return run;
  }
  run.ok = true;
  return run;
}

}  // namespace rigport::test
