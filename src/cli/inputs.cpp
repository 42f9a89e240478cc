#include "cli/inputs.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/hierarchy_manifest.hpp"
#include "core/repair.hpp"
#include "formats/registry.hpp"

namespace rigport::cli {
namespace {

Error withRole(Error e, const std::string& path, const char* role) {
  if (e.file.empty()) e.file = path;
  e.within(ErrorFrame{role, std::nullopt});
  return e;
}

// FILE#ITEM: the rig named ITEM (by name or item id), or the file's only rig.
Result<Rig> loadSkeleton(const std::string& spec, const ReadOptions& read) {
  const size_t hash = spec.rfind('#');
  const std::string path = hash == std::string::npos ? spec : spec.substr(0, hash);
  const std::string item = hash == std::string::npos ? std::string() : spec.substr(hash + 1);
  auto asset = loadAsset(path, read);
  if (!asset) return withRole(asset.error(), path, "--skeleton");
  std::vector<Rig>& rigs = asset->rigs;
  auto usage = [&](std::string message) { return withRole(makeError(ErrorCode::Usage, std::move(message)), path, "--skeleton"); };
  if (rigs.empty()) return usage("holds no skeleton");
  if (item.empty()) {
    if (rigs.size() > 1) return usage(fmt::format("holds {} skeletons; name one as FILE#ITEM", rigs.size()));
    return std::move(rigs.front());
  }
  for (size_t i = 0; i < rigs.size(); ++i) {
    const std::vector<std::string>& ids = rigs[i].itemIds;
    if (rigs[i].name == item || std::to_string(i) == item || std::find(ids.begin(), ids.end(), item) != ids.end()) return std::move(rigs[i]);
  }
  return usage(fmt::format("holds no skeleton named '{}'", item));
}

}  // namespace

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
  cmd.add_option("--memory-limit", o.memoryLimit, "Most memory one file's read may allocate from sizes in the file (default 1G)")
      ->check([](const std::string& text) { return parseByteSize(text) == 0 ? std::string("not a size like 512M or 2G") : std::string(); });
  cmd.add_option("--hierarchy", o.hierarchy,
                 "JSON mapping bone name to parent name, for arenas that store no parents (docs/hierarchy_manifest.md)");
}

Result<SharedInputs> loadSharedInputs(const InputOptions& o) {
  SharedInputs shared;
  if (!o.memoryLimit.empty()) shared.read.memoryLimit = parseByteSize(o.memoryLimit);
  shared.assemble.items = o.items;
  shared.assemble.clips = o.clips;
  shared.assemble.bind.positionAcrossCounts = o.bindByPosition;
  shared.strict = o.strict;
  if (!o.hierarchy.empty()) { RP_ASSIGN(shared.read.boneParents, loadHierarchyManifest(o.hierarchy)); }
  for (const std::string& path : o.animations) {
    auto asset = loadAsset(path, shared.read);
    if (!asset) return withRole(asset.error(), path, "--anim");
    if (asset->clips.empty()) {
      return withRole(makeError(ErrorCode::Usage, "holds no animations; pass a model as an input, not with --anim"), path, "--anim");
    }
    for (ClipSet& c : asset->clips) shared.animations.push_back(std::move(c));
  }
  if (!o.skeleton.empty()) { RP_ASSIGN(shared.skeleton, loadSkeleton(o.skeleton, shared.read)); }
  return shared;
}

Status refuseDroppedParts(const Asset& asset) {
  RP_CHECK(rigport::refuseDroppedParts(asset.provenance));
  for (const Rig& r : asset.rigs) RP_CHECK(rigport::refuseDroppedParts(r.provenance));
  for (const ClipSet& c : asset.clips) RP_CHECK(rigport::refuseDroppedParts(c.provenance));
  return Ok{};
}

Result<std::vector<AssembledRig>> assembleInput(Asset asset, const SharedInputs& shared) {
  if (shared.strict) RP_CHECK(refuseDroppedParts(asset));
  RP_ASSIGN(std::vector<AssembledRig> rigs,
            assemble(std::move(asset), shared.animations, shared.skeleton ? &*shared.skeleton : nullptr, shared.assemble));
  for (AssembledRig& r : rigs) RP_CHECK(repairRig(r.rig, RepairOptions{shared.strict}));
  return rigs;
}

Result<std::vector<AssembledRig>> loadInput(const std::string& path, const SharedInputs& shared) {
  RP_ASSIGN(Asset asset, loadAsset(path, shared.read));
  return assembleInput(std::move(asset), shared);
}

void printError(const Error& error) { fmt::print(stderr, "rigport: error: {}\n", error.describe()); }

}  // namespace rigport::cli
