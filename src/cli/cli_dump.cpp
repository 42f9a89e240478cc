// `rigport dump FILE [--json]`: the whole parsed model as JSON on stdout.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "export/json_report.hpp"

namespace rigport::cli {
namespace {

struct DumpSettings {
  std::string file;
  std::vector<std::string> animations;
};

int runDump(const DumpSettings& s) {
  size_t failures = 0;
  const std::vector<Rig> animations = loadAnimationFiles(s.animations, failures);
  if (failures != 0) return kExitInputFailed;
  auto rig = loadModel(s.file, animations);
  if (!rig) {
    printError(rig.error());
    return kExitInputFailed;
  }
  fmt::print("{}\n", rigToJson(*rig, JsonDetail::Full).dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  return kExitOk;
}

}  // namespace

void addDumpCommand(CLI::App& app, int& exitCode) {
  auto s = std::make_shared<DumpSettings>();
  CLI::App* cmd = app.add_subcommand("dump", "Print the whole parsed model (bones, vertices, influences, keys) as JSON");
  cmd->add_option("file", s->file, "Input file")->required();
  cmd->add_option("--anim", s->animations, "Animation files to bind to the input's skeleton");
  // JSON is the only dump form, so it is the default; the flag stays accepted.
  cmd->add_flag("--json")->description("Write JSON (the default)");
  cmd->callback([s, &exitCode] { exitCode = runDump(*s); });
}

}  // namespace rigport::cli
