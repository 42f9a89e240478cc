// `rigport hash NAME... [--json]`: the name hashes The Sims 3 files things under (sims3_clip.md
// R11, R12, §2.9): FNV32 (bone track keys), FNV64 (resource instances), its low 32 bits (morph
// keys) and the clip key a package files a CLIP of that name under.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/streams.hpp"
#include "core/hash.hpp"
#include "formats/sims3/clip_resource_key.hpp"

namespace rigport::cli {
namespace {

struct HashSettings {
  std::vector<std::string> names;
  bool json = false;
};

int runHash(const HashSettings& s) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const std::string& name : s.names) {
    const uint32_t f32 = fnv1_32Lower(name);
    const uint64_t f64 = fnv1_64Lower(name);
    const sims3::ClipKey64 key = sims3::clipKey(name);
    if (s.json) {
      all.push_back({{"name", name}, {"fnv32", fmt::format("0x{:08X}", f32)}, {"fnv64", fmt::format("0x{:016X}", f64)},
                     {"fnv64Low32", fmt::format("0x{:08X}", static_cast<uint32_t>(f64))},
                     {"clipKey", {{"instance", fmt::format("0x{:016X}", key.instance)}, {"group", fmt::format("0x{:08X}", key.group)},
                                  {"genericName", key.genericName}, {"ageMask", fmt::format("0x{:04X}", key.ageMask)}}}});
      continue;
    }
    result("{}\n", name);
    result("  fnv32 (bone track key)      0x{:08X}\n", f32);
    result("  fnv64 (resource instance)   0x{:016X}\n", f64);
    result("  fnv64 low 32 (morph key)    0x{:08X}\n", static_cast<uint32_t>(f64));
    result("  clip key (CLIP instance)    0x{:016X}  group 0x{:08X}  (hashes \"{}\", age mask 0x{:04X})\n", key.instance, key.group,
               key.genericName, key.ageMask);
  }
  if (s.json) result("{}\n", all.dump(2));
  return kExitOk;
}

}  // namespace

void addHashCommand(CLI::App& app, int& exitCode) {
  auto s = std::make_shared<HashSettings>();
  CLI::App* cmd = app.add_subcommand("hash", "Print The Sims 3 hashes of names: FNV32, FNV64 (FNV-1, lower-cased) and the clip key");
  cmd->add_option("names", s->names, "Names: bone names, clip names (e.g. a2o_walk_x), resource names")->required();
  cmd->add_flag("--json", s->json, "Print JSON");
  cmd->callback([s, &exitCode] { exitCode = runHash(*s); });
}

}  // namespace rigport::cli
