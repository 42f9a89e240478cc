// `rigport info FILE... [--json]`: what each file holds, in counts.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "core/repair.hpp"
#include "export/json_report.hpp"

namespace rigport::cli {
namespace {

struct InfoSettings {
  std::vector<std::string> files;
  std::vector<std::string> animations;
  bool json = false;
  bool strict = false;  // --strict: a repair convert would make is an error here too
};

void printText(const Rig& rig) {
  const Skeleton& sk = rig.skeleton;
  fmt::print("{}\n", rig.provenance.file);
  fmt::print("  format          {}\n", rig.provenance.format);
  const nlohmann::json rw = rig.extras.is_object() ? rig.extras.value("renderware", nlohmann::json()) : nlohmann::json();
  if (rw.is_object()) fmt::print("  renderware      {} ({})\n", rw.value("version", "?"), rw.value("platform", "?"));
  fmt::print("  bones           {}\n", sk.bones.size());
  fmt::print("  joints          {}\n", sk.jointList().size());
  fmt::print("  meshes          {}\n", rig.meshes.size());
  fmt::print("  vertices        {}\n", rig.vertexCount());
  fmt::print("  max influences  {}\n", rig.maxInfluences());
  fmt::print("  animations      {}\n", rig.animations.size());
  for (const Animation& a : rig.animations) {
    fmt::print("    {:<20} {:8.3f} s {:>8} keys\n", a.name.empty() ? "(unnamed)" : a.name, a.duration, a.keyCount());
  }
  size_t warnings = 0;
  for (const Warning& w : rig.provenance.warnings) warnings += w.count;
  fmt::print("  warnings        {}\n", warnings);
  for (const Warning& w : rig.provenance.warnings) {
    fmt::print("    [{}] {}{}\n", w.code, w.message, w.count > 1 ? fmt::format(" (x{})", w.count) : "");
  }
}

int runInfo(const InfoSettings& s) {
  size_t failures = 0;
  const std::vector<Rig> animations = loadAnimationFiles(s.animations, failures);
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const std::string& path : s.files) {
    auto rig = loadModel(path, animations);
    if (rig) {
      // What convert would repair shows as warnings (or, with --strict, as the error convert would give).
      if (auto repaired = repairRig(*rig, RepairOptions{s.strict}); !repaired) rig = repaired.error();
    }
    if (!rig) {
      printError(rig.error());
      ++failures;
      if (s.json) all.push_back({{"file", path}, {"error", rig.error().describe()}});
      continue;
    }
    if (s.json) {
      all.push_back(rigToJson(*rig, JsonDetail::Summary));
    } else {
      printText(*rig);
    }
  }
  if (s.json) fmt::print("{}\n", all.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  return failures == 0 ? kExitOk : kExitInputFailed;
}

}  // namespace

void addInfoCommand(CLI::App& app, int& exitCode) {
  auto s = std::make_shared<InfoSettings>();
  CLI::App* cmd = app.add_subcommand("info", "Show what each file holds: format, bones, meshes, animations, warnings");
  cmd->add_option("files", s->files, "Input files")->required();
  cmd->add_option("--anim", s->animations, "Animation files to bind to each input's skeleton");
  cmd->add_flag("--json", s->json, "Print a JSON array, one summary object per file");
  cmd->add_flag("--strict", s->strict, "Fail on damage that convert would repair");
  cmd->callback([s, &exitCode] { exitCode = runInfo(*s); });
}

}  // namespace rigport::cli
