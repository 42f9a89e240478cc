#include "pipeline/inputs.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "core/hierarchy_manifest.hpp"
#include "core/repair.hpp"
#include "formats/registry.hpp"

namespace rigport {
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

Result<SharedInputs> loadSharedInputs(const LoadOptions& o) {
  SharedInputs shared;
  if (o.memoryLimit != 0) shared.read.memoryLimit = o.memoryLimit;
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
  RP_CHECK(refuseDroppedParts(asset.provenance));
  for (const Rig& r : asset.rigs) RP_CHECK(refuseDroppedParts(r.provenance));
  for (const ClipSet& c : asset.clips) RP_CHECK(refuseDroppedParts(c.provenance));
  return Ok{};
}

namespace {

Result<std::vector<AssembledRig>> repaired(Result<std::vector<AssembledRig>> rigs, bool strict) {
  if (!rigs) return rigs;
  for (AssembledRig& r : *rigs) RP_CHECK(repairRig(r.rig, RepairOptions{strict}));
  return rigs;
}

}  // namespace

Result<std::vector<AssembledRig>> assembleInput(Asset asset, const SharedInputs& shared) {
  if (shared.strict) RP_CHECK(refuseDroppedParts(asset));
  const Rig* skeleton = shared.skeleton ? &*shared.skeleton : nullptr;
  return repaired(assemble(std::move(asset), shared.animations, skeleton, shared.assemble), shared.strict);
}

Result<std::vector<AssembledRig>> assembleInput(Asset asset, SharedInputs&& shared) {
  if (shared.strict) RP_CHECK(refuseDroppedParts(asset));
  const Rig* skeleton = shared.skeleton ? &*shared.skeleton : nullptr;
  return repaired(assembleTaking(std::move(asset), std::move(shared.animations), skeleton, shared.assemble), shared.strict);
}

Result<std::vector<AssembledRig>> loadInput(const std::string& path, const SharedInputs& shared) {
  RP_ASSIGN(Asset asset, loadAsset(path, shared.read));
  return assembleInput(std::move(asset), shared);
}

Result<std::vector<AssembledRig>> loadInput(const std::string& path, SharedInputs&& shared) {
  RP_ASSIGN(Asset asset, loadAsset(path, shared.read));
  return assembleInput(std::move(asset), std::move(shared));
}

}  // namespace rigport
