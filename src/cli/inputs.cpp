#include "cli/inputs.hpp"
#include "cli/streams.hpp"

#include <fmt/format.h>

#include "core/budget.hpp"

namespace rigport::cli {

void addInputOptions(CLI::App& cmd, InputOptions& o) {
  // One value per flag, so `--anim a.ifp model.dff` never takes the model as a second animation.
  cmd.add_option("--anim", o.animations, "Animation file (.anm, .ifp) to bind to each skeleton; repeat for more")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--skeleton", o.skeleton, "Skeleton for clips that carry none: FILE or FILE#ITEM");
  cmd.add_option("--item", o.items, "Only these items of each input (id or name, as `info` lists them); repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--clip", o.clips, "Only the clips with this name; repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_flag("--bind-by-position", o.bindByPosition,
               "Bind clips by node position even when their node count differs from the skeleton's joints");
  cmd.add_flag("--strict", o.strict,
               "Fail on damage that would be repaired or dropped (non-finite vertices, negative key times, a resource that does not decode)");
  cmd.add_option("--memory-limit", o.memoryLimitText, "Most memory one file's read may allocate from sizes in the file (default 1G)")
      ->check([](const std::string& text) { return parseByteSize(text) == 0 ? std::string("not a size like 512M or 2G") : std::string(); });
  cmd.add_option("--txd", o.textureFiles,
                 "Texture file whose textures the models' materials take by name: a RenderWare TXD, a BattleForge DDS, "
                 "an RW4 texture arena (by TOC GUID); after those beside each model; repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_flag("--no-textures", o.noTextures, "Read no texture file: materials keep their colour and texture names only");
  cmd.add_option("--hierarchy", o.hierarchy,
                 "JSON mapping bone name to parent name, for arenas that store no parents (docs/hierarchy_manifest.md)");
}

Result<SharedInputs> loadSharedInputs(const InputOptions& o) {
  LoadOptions load = o;
  if (!o.memoryLimitText.empty()) load.memoryLimit = parseByteSize(o.memoryLimitText);
  return rigport::loadSharedInputs(load);
}

void printError(const Error& error) { message("rigport: error: {}\n", error.describe()); }

}  // namespace rigport::cli
