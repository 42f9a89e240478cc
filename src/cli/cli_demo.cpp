// `rigport demo [DIR]`: the procedural character through every writable format, a table of the
// round-trip errors, then the glTF validator (tools/validate_gltf.mjs under node) on every .glb.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "cli/streams.hpp"
#include "demo/demo_run.hpp"
#include "platform/process.hpp"

namespace rigport::cli {
namespace {

namespace fs = std::filesystem;

struct DemoSettings {
  std::string dir = "rigport-demo";
  bool validate = true;  // --no-validate turns the glTF-Validator run off
};

// RIGPORT_TOOLS_DIR, else ../tools beside the executable (which lives in the build folder).
std::optional<fs::path> findValidator() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("RIGPORT_TOOLS_DIR")) candidates.emplace_back(env);
  std::error_code ec;
  if (const std::string exe = platform::executablePath(); !exe.empty()) candidates.push_back(fs::path(exe).parent_path().parent_path() / "tools");
  for (const fs::path& dir : candidates) {
    const fs::path script = dir / "validate_gltf.mjs";
    if (fs::is_regular_file(script, ec)) return script;
  }
  return std::nullopt;
}

void printTable(const DemoReport& report) {
  result("wrote {}\n\n", report.characterGlb);
  constexpr const char* kRow = "{:<16} {:>9} {:>6} {:>9} {:>7} {:>10}  {}\n";
  result(kRow, "format", "bytes", "bones", "vertices", "keys", "max error", "where");
  for (const DemoRow& r : report.rows) {
    if (r.failure) {
      result("{:<16} error: {}\n", r.format, r.failure->describe());
      continue;
    }
    result(kRow, r.format, r.bytes, r.bones, r.vertices, r.keys, fmt::format("{:.3g}", r.error.max), r.error.where);
  }
  result("\nmax error: the largest difference after the round trip, both sides in glTF axes: metres for\n"
             "positions, translations and inverse-bind translation columns; unit-less for quaternion\n"
             "components, scales, weights and the other inverse-bind elements. Animation keys are sampled\n"
             "at the source key times; a format that brings back no animations is measured without them.\n\n");
}

int runDemoCommand(const DemoSettings& s) {
  auto report = runDemo(s.dir);
  if (!report) {
    printError(report.error());
    return report.error().code == ErrorCode::Io ? kExitOutputFailed : kExitInputFailed;
  }
  printTable(*report);
  bool rowFailed = false;
  for (const DemoRow& r : report->rows) rowFailed = rowFailed || r.failure.has_value();

  if (!s.validate) {
    result("validation skipped (--no-validate)\n");
    return rowFailed ? kExitInputFailed : kExitOk;
  }
  // The demo's promise is validator-clean output: without the validator it cannot keep it.
  const std::optional<fs::path> validator = findValidator();
  if (!validator) {
    message("rigport: error: cannot validate: tools/validate_gltf.mjs not found (set RIGPORT_TOOLS_DIR, "
                       "run scripts/setup.sh, or pass --no-validate)\n");
    return kExitValidationFailed;
  }
  std::vector<std::string> args{"node", validator->string()};
  for (const std::string& glb : report->glbFiles()) args.push_back(glb);
  result("validating {} file{} with {}\n", args.size() - 2, args.size() == 3 ? "" : "s", validator->string());
  std::fflush(stdout);
  const std::optional<int> status = platform::runProgram(args);
  if (!status) {
    message("rigport: error: cannot validate: node is not installed (run scripts/setup.sh, or pass --no-validate)\n");
    return kExitValidationFailed;
  }
  if (*status != 0) {
    // 1: a file has errors or warnings; 2: the validator could not run (see its message above).
    message("rigport: error: validation FAILED (validator exit status {})\n", *status);
    return kExitValidationFailed;
  }
  result("validation passed: 0 errors, 0 warnings\n");
  return rowFailed ? kExitInputFailed : kExitOk;
}

}  // namespace

void addDemoCommand(CLI::App& app, int& exitCode) {
  auto s = std::make_shared<DemoSettings>();
  CLI::App* cmd = app.add_subcommand("demo", "Build a procedural character, round-trip it through every writable format, validate the .glb files");
  cmd->add_option("dir", s->dir, "Output directory")->capture_default_str();
  cmd->add_flag("!--no-validate", s->validate, "Skip the glTF-Validator run (otherwise a missing validator is an error)");
  cmd->callback([s, &exitCode] { exitCode = runDemoCommand(*s); });
}

}  // namespace rigport::cli
