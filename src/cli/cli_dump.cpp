// `rigport dump FILE [--json]`: the whole parsed model as JSON on stdout (JSON is the only form).
// A file of clips without a skeleton dumps its clips as a rig with no bones, tracks unbound.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "cli/streams.hpp"
#include "export/json_report.hpp"
#include "formats/registry.hpp"

namespace rigport::cli {
namespace {

struct DumpSettings {
  std::string file;
  InputOptions inputs;
};

Result<Rig> dumpable(const std::string& path, const DumpSettings& s, const SharedInputs& shared) {
  RP_ASSIGN(Asset asset, loadAsset(path, shared.read));
  const bool clipsAlone = asset.rigs.empty() && !shared.skeleton && s.inputs.items.empty();
  if (clipsAlone && asset.clips.size() == 1) {
    ClipSet& clips = asset.clips.front();
    Rig rig;
    rig.name = clips.name;
    rig.animations = std::move(clips.animations);
    rig.provenance = std::move(clips.provenance);
    return rig;
  }
  RP_ASSIGN(std::vector<AssembledRig> rigs, assembleInput(std::move(asset), shared));
  if (rigs.size() > 1) {
    Error e = makeError(ErrorCode::Usage, fmt::format("holds {} rigs; pick one with --item (`rigport info` lists them)", rigs.size()));
    e.file = path;
    return e;
  }
  return std::move(rigs.front().rig);
}

int runDump(const DumpSettings& s) {
  auto shared = loadSharedInputs(s.inputs);
  if (!shared) {
    printError(shared.error());
    return kExitInputFailed;
  }
  auto rig = dumpable(s.file, s, *shared);
  if (!rig) {
    printError(rig.error());
    return kExitInputFailed;
  }
  result("{}\n", rigToJson(*rig, JsonDetail::Full).dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  return kExitOk;
}

}  // namespace

void addDumpCommand(CLI::App& app, int& exitCode) {
  auto s = std::make_shared<DumpSettings>();
  CLI::App* cmd = app.add_subcommand("dump", "Print the whole parsed model (bones, vertices, influences, keys) as JSON");
  cmd->add_option("file", s->file, "Input file")->required();
  addInputOptions(*cmd, s->inputs);
  cmd->add_flag("--json")->description("Write JSON (the default and only form; accepted for scripts that pass it)");
  cmd->callback([s, &exitCode] { exitCode = runDump(*s); });
}

}  // namespace rigport::cli
