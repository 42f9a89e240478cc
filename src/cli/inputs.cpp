#include "cli/inputs.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "core/hierarchy_manifest.hpp"
#include "core/repair.hpp"
#include "core/texture_binding.hpp"
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

std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Files in the folder of `path` with its stem (any case) of a format that carries textures.
std::vector<std::string> textureFilesBeside(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path input(path);
  const std::string stem = lowered(input.stem().string());
  std::vector<std::string> found;
  std::error_code ec;
  const fs::path folder = input.has_parent_path() ? input.parent_path() : fs::path(".");
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& candidate = it->path();
    if (lowered(candidate.stem().string()) != stem || candidate == input) continue;
    const std::string name = candidate.string();
    const auto carriesTextures = [&](const FormatInfo& f) { return (f.carries & kCarriesTextures) != 0 && namesFileOf(f, name); };
    if (std::any_of(formats().begin(), formats().end(), carriesTextures)) found.push_back(name);
  }
  std::sort(found.begin(), found.end());
  return found;
}

bool namesATexture(const std::vector<AssembledRig>& rigs) {
  for (const AssembledRig& r : rigs)
    for (const Material& m : r.rig.materials)
      if (!m.textures.empty()) return true;
  return false;
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
  cmd.add_option("--txd", o.textureFiles,
                 "Texture dictionary whose textures the models' materials take by name (after the one beside each model "
                 "with its name); repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_flag("--no-textures", o.noTextures, "Read no texture file: materials keep their colour and texture names only");
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
  shared.noTextures = o.noTextures;
  for (const std::string& path : shared.noTextures ? std::vector<std::string>{} : o.textureFiles) {
    auto asset = loadAsset(path, shared.read);
    if (!asset) return withRole(asset.error(), path, "--txd");
    if (asset->textures.empty()) return withRole(makeError(ErrorCode::Usage, "holds no textures"), path, "--txd");
    for (Texture& t : asset->textures) shared.textures.push_back(std::move(t));
    shared.textureFiles.push_back(path);
  }
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

void bindInputTextures(std::vector<AssembledRig>& rigs, const std::string& path, const SharedInputs& shared) {
  if (shared.noTextures || !namesATexture(rigs)) return;
  std::vector<Asset> beside;
  std::vector<std::string> files;
  Provenance unread;  // texture files beside the input that did not read
  for (const std::string& file : textureFilesBeside(path)) {
    files.push_back(file);
    auto asset = loadAsset(file, shared.read);
    if (!asset) {
      unread.warn("texture-file", fmt::format("{} was not read: {}", file, asset.error().describe()));
      continue;
    }
    beside.push_back(std::move(*asset));
  }
  std::vector<const Texture*> textures;
  for (const Asset& a : beside)
    for (const Texture& t : a.textures) textures.push_back(&t);
  for (const Texture& t : shared.textures) textures.push_back(&t);
  files.insert(files.end(), shared.textureFiles.begin(), shared.textureFiles.end());
  for (AssembledRig& r : rigs) {
    r.rig.provenance.absorb(unread);
    bindTextures(r.rig, textures, files);
  }
}

Result<std::vector<AssembledRig>> loadInput(const std::string& path, const SharedInputs& shared) {
  RP_ASSIGN(Asset asset, loadAsset(path, shared.read));
  RP_ASSIGN(std::vector<AssembledRig> rigs, assembleInput(std::move(asset), shared));
  bindInputTextures(rigs, path, shared);
  return rigs;
}

void printError(const Error& error) { fmt::print(stderr, "rigport: error: {}\n", error.describe()); }

}  // namespace rigport::cli
