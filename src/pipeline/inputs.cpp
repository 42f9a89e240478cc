#include "pipeline/inputs.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/hierarchy_manifest.hpp"
#include "core/repair.hpp"
#include "core/texture_binding.hpp"
#include "formats/registry.hpp"
#include "platform/paths.hpp"

namespace rigport {
namespace {

Error withRole(Error e, const std::string& path, const char* role) {
  if (e.file.empty()) e.file = path;
  e.within(ErrorFrame{role, std::nullopt});
  return e;
}

// FILE#ITEM: the rig named ITEM (by name or item id), or the file's only rig.
Result<Rig> loadSkeleton(const std::string& spec, ReadOptions read) {
  const size_t hash = spec.rfind('#');
  const std::string path = hash == std::string::npos ? spec : spec.substr(0, hash);
  const std::string item = hash == std::string::npos ? std::string() : spec.substr(hash + 1);
  read.skeletonsOnly = true;
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

namespace fs = std::filesystem;

// The files in the folder of `path`, by their folded name (file names are compared without case:
// game files come from case-insensitive file systems), each spelt beside `path` as the user spelt
// it (platform::besideSpelled: the warnings that name them read the same on every system).
std::map<std::string, std::string> filesBeside(const std::string& path) {
  const fs::path input(path);
  std::map<std::string, std::string> files;
  std::error_code ec;
  const fs::path folder = input.has_parent_path() ? input.parent_path() : fs::path(".");
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path() == input) continue;
    const std::string name = it->path().filename().string();
    files.emplace(lowered(name), platform::besideSpelled(path, name));
  }
  return files;
}

// Files of `beside` with the input's stem of a format that carries textures (ped.dff takes PED.TXD).
std::vector<std::string> textureFilesByStem(const std::string& path, const std::map<std::string, std::string>& beside) {
  const std::string stem = lowered(fs::path(path).stem().string());
  std::vector<std::string> found;
  for (const auto& entry : beside) {
    const std::string& file = entry.second;
    if (lowered(fs::path(file).stem().string()) != stem) continue;
    const auto carriesTextures = [&](const FormatInfo& f) { return (f.carries & kCarriesTextures) != 0 && namesFileOf(f, file); };
    if (std::any_of(formats().begin(), formats().end(), carriesTextures)) found.push_back(file);
  }
  return found;
}

// The texture names materials bind: each colour map and normal map.
std::vector<std::string> boundNames(const std::vector<AssembledRig>& rigs) {
  std::vector<std::string> names;
  for (const AssembledRig& r : rigs) {
    for (const Material& m : r.rig.materials) {
      if (!m.textures.empty()) names.push_back(m.textures.front());
      if (!m.normalMap.empty()) names.push_back(m.normalMap);
    }
  }
  return names;
}

struct TextureFiles {
  std::vector<std::string> found;      // to read, in this order
  std::vector<std::string> lookedFor;  // named by a material, absent
};

// The texture files of the input at `path`: those with its stem, the one with its stem and the
// format's FormatInfo::textureFileSuffix, then, for a format whose materials name their texture
// files (FormatInfo::textureFileExtension), the file each bound name names.
TextureFiles textureFilesOf(const std::string& path, const std::vector<AssembledRig>& rigs) {
  const std::map<std::string, std::string> beside = filesBeside(path);
  TextureFiles files{textureFilesByStem(path, beside), {}};
  const FormatInfo* format = findFormat(rigs.front().rig.provenance.format);
  if (format != nullptr && !format->textureFileSuffix.empty()) {
    const fs::path input(path);
    const std::string companion = lowered(input.stem().string() + std::string(format->textureFileSuffix) + input.extension().string());
    if (const auto at = beside.find(companion); at != beside.end()) files.found.push_back(at->second);
  }
  const std::string extension = format != nullptr ? std::string(format->textureFileExtension) : std::string();
  if (extension.empty()) return files;
  for (const std::string& name : boundNames(rigs)) {
    const std::string file = lowered(name).ends_with(extension) ? name : name + extension;
    const auto at = beside.find(lowered(file));
    std::vector<std::string>& list = at != beside.end() ? files.found : files.lookedFor;
    const std::string where = at != beside.end() ? at->second : platform::besideSpelled(path, file);
    if (std::find(list.begin(), list.end(), where) == list.end()) list.push_back(where);
  }
  return files;
}

bool namesATexture(const std::vector<AssembledRig>& rigs) {
  for (const AssembledRig& r : rigs)
    for (const Material& m : r.rig.materials)
      if (!m.textures.empty()) return true;
  return false;
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

void bindInputTextures(std::vector<AssembledRig>& rigs, const std::string& path, const SharedInputs& shared) {
  if (shared.noTextures || !namesATexture(rigs)) return;
  const TextureFiles beside = textureFilesOf(path, rigs);
  std::vector<Asset> read;
  std::vector<std::string> files;
  Provenance unread;  // texture files beside the input that did not read
  for (const std::string& file : beside.found) {
    files.push_back(file);
    auto asset = loadAsset(file, shared.read);
    if (!asset) {
      unread.warn("texture-file", fmt::format("{} was not read: {}", file, asset.error().describe()));
      continue;
    }
    read.push_back(std::move(*asset));
  }
  std::vector<const Texture*> textures;
  for (const Asset& a : read)
    for (const Texture& t : a.textures) textures.push_back(&t);
  for (const Texture& t : shared.textures) textures.push_back(&t);
  files.insert(files.end(), shared.textureFiles.begin(), shared.textureFiles.end());
  // No texture file beside it nor given, and none its materials name: converted as a DFF alone always was.
  if (files.empty() && beside.lookedFor.empty()) return;
  for (AssembledRig& r : rigs) {
    r.rig.provenance.absorb(unread);
    bindTextures(r.rig, textures, TextureSearch{files, beside.lookedFor});
  }
}

InputItems::InputItems(std::string path, const SharedInputs& shared)
    : path_(std::move(path)), shared_(shared), assembler_(shared.animations, shared.skeleton ? &*shared.skeleton : nullptr, shared.assemble) {}

Status InputItems::finish(std::vector<AssembledRig>& rigs, bool bonesSound) const {
  for (AssembledRig& r : rigs) RP_CHECK(repairRig(r.rig, RepairOptions{false, bonesSound}));
  bindInputTextures(rigs, path_, shared_);
  return Ok{};
}

Result<AssembledRig> InputItems::play(ClipSet& clips, const Asset& input) {
  std::vector<AssembledRig> rigs(1);
  RP_ASSIGN(rigs.front(), assembler_.play(clips, input));
  // A skeleton kept from the rig given back went through this repair unchanged: it is sound.
  RP_CHECK(finish(rigs, assembler_.keptSkeleton()));
  return std::move(rigs.front());
}

Result<std::vector<AssembledRig>> InputItems::rest(Asset input) {
  RP_ASSIGN(std::vector<AssembledRig> rigs, assembler_.rest(std::move(input)));
  RP_CHECK(finish(rigs));
  return rigs;
}

Result<std::vector<AssembledRig>> loadInput(const std::string& path, const SharedInputs& shared) {
  RP_ASSIGN(Asset asset, loadAsset(path, shared.read));
  RP_ASSIGN(std::vector<AssembledRig> rigs, assembleInput(std::move(asset), shared));
  bindInputTextures(rigs, path, shared);
  return rigs;
}

Result<std::vector<AssembledRig>> loadInput(const std::string& path, SharedInputs&& shared) {
  RP_ASSIGN(Asset asset, loadAsset(path, shared.read));
  RP_ASSIGN(std::vector<AssembledRig> rigs, assembleInput(std::move(asset), std::move(shared)));
  bindInputTextures(rigs, path, shared);  // only the clips were taken
  return rigs;
}

}  // namespace rigport
