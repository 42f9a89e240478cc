#include "support/blender_reexport.hpp"

#include <filesystem>

#include "support/test_support.hpp"

namespace rigport::test {

ReexportRun reexportWithBlender(const std::string& inPath, const std::string& outPath) {
  ReexportRun run;
  std::string blender;
  if (runCommand("command -v blender", &blender) != 0 || blender.empty()) {
    run.output = "blender is not installed: run scripts/setup.sh (apt blender python3-numpy)";
    return run;
  }
  while (!blender.empty() && (blender.back() == '\n' || blender.back() == '\r')) blender.pop_back();
  const std::string script = std::string(RIGPORT_SOURCE_DIR) + "/tools/blender_reexport.py";
  const int rc = runCommand(quote(blender) + " -b --factory-startup --python-exit-code 1 --python " + quote(script) + " -- " + quote(inPath) +
                                " " + quote(outPath),
                            &run.output);
  if (rc != 0 || !std::filesystem::exists(outPath)) {
    run.output = "blender exit code " + std::to_string(rc) + ": " + run.output;
    return run;
  }
  run.ok = true;
  return run;
}

}  // namespace rigport::test
