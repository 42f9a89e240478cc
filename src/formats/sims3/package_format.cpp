// DBPF package entry points: list every resource, read every CLIP and RIG in it, write a rig and
// its clips as one package (sims3_clip.md §4). A damaged resource is skipped with a warning naming
// it; the rest of the package is still read.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/hash.hpp"
#include "formats/sims3/clip_resource_key.hpp"
#include "formats/sims3/dbpf_layout.hpp"
#include "formats/sims3/package.hpp"
#include "formats/sims3/sims3.hpp"

namespace rigport::sims3 {
namespace {

using namespace dbpf;
using NameMap = std::unordered_map<uint64_t, std::string>;

const char* kindOf(uint32_t type) {
  switch (type) {
    case kTypeClip: return "clip";
    case kTypeRig: return "rig";
    case kTypeNameMap: return "name-map";
    default: return "resource";
  }
}

// Every name map of the package, merged; a damaged one is a warning.
NameMap readNames(const ByteReader& r, const std::vector<PackageEntry>& entries, Provenance& warn) {
  NameMap names;
  for (const PackageEntry& e : entries) {
    if (e.type != kTypeNameMap) continue;
    auto bytes = packageResource(r, e);
    auto map = bytes ? parseNameMap(ByteReader(*bytes)) : Result<NameMap>(bytes.error());
    if (!map) {
      warn.warn("name-map", fmt::format("name map {} skipped: {}", entryId(e), map.error().describe()));
      continue;
    }
    names.merge(*map);
  }
  return names;
}

// Name maps may file a name with its instance appended, "walk_0x<16 hex digits>" (§6): that name
// names its instance by construction.
bool namesItsInstance(const std::string& name, uint64_t instance) {
  const std::string suffix = fmt::format("_0x{:016X}", instance);
  if (name.size() <= suffix.size()) return false;
  const std::string tail = name.substr(name.size() - suffix.size());
  return std::equal(tail.begin(), tail.end(), suffix.begin(), [](char a, char b) { return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b)); });
}

// Where a resource was read from, in extras["sims3"]["resource"]: its key, its name-map name and,
// for a clip, the name the clip had. Written back into a package, the clip or rig is filed there
// again (a clip's key is not always its name's, §2.13, and its group cannot be derived); a clip
// renamed since (a copy made into another clip) is filed under its new name's key.
void keepResource(nlohmann::json& extras, const PackageEntry& e, const std::string& name, const std::string& clip = {}) {
  if (!extras.is_object()) extras = nlohmann::json::object();
  nlohmann::json resource{{"key", entryId(e)}};
  if (!name.empty()) resource["name"] = name;
  if (!clip.empty()) resource["clip"] = clip;
  extras["sims3"]["resource"] = std::move(resource);
}

struct KeptResource {
  PackageEntry key;
  std::string name;  // empty when the package named it nothing
};

// The resource keepResource() recorded, when it is one of `type` and, for a clip (`clip` set), the
// clip still has the name it was read with.
std::optional<KeptResource> keptResource(const nlohmann::json& extras, uint32_t type, const std::string* clip = nullptr) {
  if (!extras.is_object() || !extras.contains("sims3") || !extras["sims3"].is_object()) return std::nullopt;
  const nlohmann::json resource = extras["sims3"].value("resource", nlohmann::json::object());
  if (!resource.is_object()) return std::nullopt;
  const auto key = parseEntryId(resource.value("key", std::string()));
  if (!key || key->type != type) return std::nullopt;
  if (clip != nullptr && resource.value("clip", std::string()) != *clip) return std::nullopt;
  return KeptResource{*key, resource.value("name", std::string())};
}

Error inEntry(Error e, const PackageEntry& entry, size_t index) {
  e.within(ErrorFrame{fmt::format("entry {} ({} {})", index, kindOf(entry.type), entryId(entry)), entry.offset});
  return e;
}

}  // namespace

bool probePackage(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 4) != 0) return false;
  uint32_t major;
  std::memcpy(&major, bytes.data() + 4, 4);
  return major == kMajor;
}

Result<std::vector<ItemInfo>> listPackage(const Source& source, ReadContext& ctx) {
  ByteReader r = ctx.reader(source.bytes());
  RP_ASSIGN(const std::vector<PackageEntry> entries, parsePackageIndex(r));
  Provenance ignored;
  const NameMap names = readNames(r, entries, ignored);
  std::vector<ItemInfo> items;
  items.reserve(entries.size());
  for (const PackageEntry& e : entries) {
    auto name = names.find(e.instance);
    items.push_back(ItemInfo{entryId(e), kindOf(e.type), name == names.end() ? std::string() : name->second, e.memSize});
  }
  return items;
}

Result<Asset> readPackage(const Source& source, ReadContext& ctx) {
  ByteReader r = ctx.reader(source.bytes());
  Asset asset;
  asset.provenance.format = "sims3-package";
  RP_ASSIGN(const std::vector<PackageEntry> entries, parsePackageIndex(r));
  if (entries.size() > ctx.options.maxItems) {
    return r.error(ErrorCode::TooLarge, fmt::format("{} resources; the limit is {}", entries.size(), ctx.options.maxItems), "indexCount");
  }
  const NameMap names = readNames(r, entries, asset.provenance);
  ReadContext inner = ctx.nested();
  std::optional<Error> firstError;
  size_t skipped = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const PackageEntry& e = entries[i];
    if (e.type != kTypeRig && (e.type != kTypeClip || ctx.options.skeletonsOnly)) continue;
    const auto named = names.find(e.instance);
    const std::string name = named == names.end() ? std::string() : named->second;
    auto skip = [&](Error err) {
      err = inEntry(std::move(err), e, i);
      asset.provenance.warn("resource-skipped", fmt::format("{} skipped: {}", kindOf(e.type), err.describe()));
      if (!firstError) firstError = std::move(err);
      ++skipped;
    };
    auto bytes = packageResource(r, e);
    if (!bytes) {
      skip(bytes.error());
      continue;
    }
    if (e.type == kTypeClip) {
      auto clips = readClip(*bytes, inner);
      if (!clips) {
        skip(clips.error());
        continue;
      }
      clips->item = entryId(e);
      const std::string internal = clips->animations.front().name;
      // Real clips' internal names may differ from the name they are filed under (§2.13): the
      // index key identifies a clip, names are shown as given.
      const ClipKey64 key = clipKey(name.empty() ? internal : name);
      if (key.instance != e.instance && !namesItsInstance(name, e.instance)) {
        clips->provenance.warn("clip-key", fmt::format("clip '{}' ({}) is filed under instance 0x{:016X}, but its name's clip key is "
                                                       "0x{:016X}; identified by the instance",
                                                       name.empty() ? internal : name, entryId(e), e.instance, key.instance));
      }
      clips->name = !name.empty() ? name : !internal.empty() ? internal : entryId(e);
      Animation& anim = clips->animations.front();
      if (anim.name.empty()) anim.name = clips->name;
      keepResource(anim.extras, e, name, anim.name);
      asset.clips.push_back(std::move(*clips));
    } else {
      auto rig = readRig(*bytes, inner);
      if (!rig) {
        skip(rig.error());
        continue;
      }
      // No rule ties a RIG's instance to its name (the note gives none, and the three real named
      // object rigs measured are filed under other instances), so none is checked: --item finds
      // the rig by its id, its name-map name or the name it stores.
      rig->itemIds.push_back(entryId(e));
      if (!name.empty() && !rig->name.empty() && rig->name != name) rig->itemIds.push_back(rig->name);
      if (!name.empty()) rig->name = name;
      if (rig->name.empty()) rig->name = entryId(e);
      keepResource(rig->extras, e, name);
      asset.rigs.push_back(std::move(*rig));
    }
  }
  if (asset.rigs.empty() && asset.clips.empty() && firstError) return *firstError;  // nothing readable: the first reason
  return asset;
}

Result<std::vector<uint8_t>> writePackage(const Rig& rig) {
  std::vector<PackageResource> resources;
  std::vector<std::pair<uint64_t, std::string>> names;
  // A skeleton made of a clip's own track hashes (core/assemble.cpp) was no RIG of the input.
  const bool standIn = rig.extras.is_object() && rig.extras.value("rigportHashNamedSkeleton", false);
  if (!rig.skeleton.bones.empty() && !standIn) {
    const std::optional<KeptResource> kept = keptResource(rig.extras, kTypeRig);
    const std::string rigName = kept && !kept->name.empty() ? kept->name : rig.name.empty() ? std::string("rig") : rig.name;
    const uint32_t group = kept ? kept->key.group : 0;
    const uint64_t instance = kept ? kept->key.instance : fnv1_64Lower(rigName);
    RP_ASSIGN(std::vector<uint8_t> rigBytes, writeRig(rig));
    resources.push_back(PackageResource::make(kTypeRig, group, instance, std::move(rigBytes), false));
    names.emplace_back(instance, rigName);
  }
  std::set<std::pair<uint32_t, uint64_t>> used;
  for (const Animation& anim : rig.animations) {
    // Filed where it was read from; a clip from elsewhere, renamed, or a second copy of one under
    // its name's clip key.
    std::optional<KeptResource> kept = keptResource(anim.extras, kTypeClip, &anim.name);
    if (kept && used.count({kept->key.group, kept->key.instance}) != 0) kept.reset();
    const ClipKey64 byName = clipKey(anim.name);
    const uint32_t group = kept ? kept->key.group : byName.group;
    const uint64_t instance = kept ? kept->key.instance : byName.instance;
    used.insert({group, instance});
    RP_ASSIGN(std::vector<uint8_t> clipBytes, writeClipAnimation(anim, &rig.skeleton));
    resources.push_back(PackageResource::make(kTypeClip, group, instance, std::move(clipBytes), true));
    names.emplace_back(instance, kept && !kept->name.empty() ? kept->name : anim.name);
  }
  if (resources.empty()) return makeError(ErrorCode::Usage, "nothing to write: the rig has no bones and no animations");
  resources.insert(resources.begin(), PackageResource::make(kTypeNameMap, 0, 0, serializeNameMap(names), false));
  return serializePackage(resources);
}

}  // namespace rigport::sims3
