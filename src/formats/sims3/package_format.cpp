// DBPF package entry points: list every resource, read every CLIP and RIG in it, write a rig and
// its clips as one package (sims3_clip.md §4). A damaged resource is skipped with a warning naming
// it; the rest of the package is still read.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/hash.hpp"
#include "formats/sims3/clip_model.hpp"
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
  // Made in place, member by member (not from an initializer list, copied pair by pair): once per
  // clip of a package.
  nlohmann::json& resource = extras["sims3"]["resource"];
  resource = nlohmann::json::object();
  resource["key"] = entryId(e);
  if (!name.empty()) resource["name"] = name;
  if (!clip.empty()) resource["clip"] = clip;
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

namespace {

// Reads the package's RIGs and CLIPs into an Asset: in index order, or with
// ReadOptions::clipsRead the RIGs first, then each CLIP handed to the callback as it is decoded.
class PackageReader {
 public:
  PackageReader(const ByteReader& r, const std::vector<PackageEntry>& entries, const ReadContext& ctx)
      : r_(r), entries_(entries), inner_(ctx.nested()), clipsRead_(ctx.options.clipsRead), releaseBytes_(ctx.releaseBytes), budget_(ctx.budget()) {
    asset_.provenance.format = "sims3-package";
    names_ = readNames(r_, entries_, asset_.provenance);
  }

  Result<Asset> read(bool skeletonsOnly) {
    // Handing clips on, the RIGs are read first (each clip is assembled on them); their damage is
    // recorded in its place in the index, as a read in index order records it, so that the
    // file-level warnings a clip is handed with are those a whole read has up to that clip.
    const bool handing = clipsRead_ && !skeletonsOnly;
    std::map<size_t, Error> damagedRigs;
    if (handing) {
      for (size_t i = 0; i < entries_.size(); ++i) {
        if (entries_[i].type != kTypeRig) continue;
        if (auto damage = readRigEntry(i)) damagedRigs.emplace(i, std::move(*damage));
      }
      clipCount_ = static_cast<size_t>(std::count_if(entries_.begin(), entries_.end(), [](const PackageEntry& e) { return e.type == kTypeClip; }));
    }
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].type == kTypeRig && !handing) {
        if (auto damage = readRigEntry(i)) skip(std::move(*damage), i);
      }
      if (const auto damage = damagedRigs.find(i); damage != damagedRigs.end()) skip(std::move(damage->second), i);
      if (entries_[i].type == kTypeClip && !skeletonsOnly) { RP_CHECK(readClipEntry(i)); }
    }
    releaseHeld();
    if (asset_.rigs.empty() && asset_.clips.empty() && handed_ == 0 && firstError_) return *firstError_;  // nothing readable: the first reason
    return std::move(asset_);
  }

 private:
  std::string nameOf(const PackageEntry& e) const {
    const auto named = names_.find(e.instance);
    return named == names_.end() ? std::string() : named->second;
  }

  void skip(Error err, size_t i) {
    const PackageEntry& e = entries_[i];
    err = inEntry(std::move(err), e, i);
    asset_.provenance.warn("resource-skipped", fmt::format("{} skipped: {}", kindOf(e.type), err.describe()));
    if (!firstError_) firstError_ = std::move(err);
  }

  // The RIG of entry i into the asset, or why it cannot be read.
  std::optional<Error> readRigEntry(size_t i) {
    const PackageEntry& e = entries_[i];
    const std::string name = nameOf(e);
    auto bytes = packageResource(r_, e, resource_);
    auto rig = bytes ? readRig(*bytes, inner_) : Result<Rig>(bytes.error());
    if (!rig) return std::move(rig.error());
    // No rule ties a RIG's instance to its name (the note gives none, and the three real named
    // object rigs measured are filed under other instances), so none is checked: --item finds
    // the rig by its id, its name-map name or the name it stores.
    rig->itemIds.push_back(entryId(e));
    if (!name.empty() && !rig->name.empty() && rig->name != name) rig->itemIds.push_back(rig->name);
    if (!name.empty()) rig->name = name;
    if (rig->name.empty()) rig->name = entryId(e);
    keepResource(rig->extras, e, name);
    asset_.rigs.push_back(std::move(*rig));
    return std::nullopt;
  }

  // A damaged clip is skipped with its warning; only the callback's error ends the read.
  Status readClipEntry(size_t i) {
    const size_t clipIndex = clipIndex_++;
    const uint64_t held = budget_.used();
    const Status handed = handClip(i, clipIndex);
    if (clipsRead_) {
      // The clip is the callback's, or was skipped: neither its decoding nor its stored bytes are
      // held any more. Only whole pages are given back, so the range runs from the clip before
      // when that lies before it (as a package's clips follow one another): the page the two share
      // goes too. Whatever lies between was read already, or is never read (another resource's
      // pages, the file's, are read again if it is). The clips' ranges are given back
      // kReleaseStep at a time, not clip by clip: a call to the kernel per clip (13 KB) cost as
      // much as the pages.
      budget_.release(budget_.used() - held);
      const PackageEntry& e = entries_[i];
      const size_t from = previousClip_ && previousClip_->offset <= e.offset ? previousClip_->offset : e.offset;
      const size_t to = size_t{e.offset} + e.fileSize;
      if (releaseTo_ > releaseFrom_ && (from < releaseFrom_ || from > releaseTo_)) releaseHeld();  // not next to the range held
      if (releaseTo_ == releaseFrom_) releaseFrom_ = from;
      releaseTo_ = std::max(releaseTo_, to);
      if (releaseTo_ - releaseFrom_ >= kReleaseStep || !handed) releaseHeld();
      previousClip_ = &e;
    }
    return handed;
  }

  // Gives back the stored bytes of the clips decoded since the last call.
  void releaseHeld() {
    if (releaseBytes_ && releaseTo_ > releaseFrom_) releaseBytes_(r_.data().subspan(releaseFrom_, releaseTo_ - releaseFrom_));
    releaseFrom_ = releaseTo_ = 0;
  }

  Status handClip(size_t i, size_t clipIndex) {
    const PackageEntry& e = entries_[i];
    auto bytes = packageResource(r_, e, resource_);
    auto clips = bytes ? readClipInto(*bytes, inner_, storage_) : Result<ClipSet>(bytes.error());
    if (!clips) {
      skip(clips.error(), i);
      return Ok{};
    }
    const std::string name = nameOf(e);
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
    asset_.clips.push_back(std::move(*clips));
    if (!clipsRead_) return Ok{};
    ++handed_;
    const Status taken = clipsRead_(asset_, clipIndex, clipCount_);
    std::vector<Animation>& left = asset_.clips.front().animations;
    if (!left.empty()) storage_.animation = std::move(left.front());
    asset_.clips.clear();
    return taken;
  }

  const ByteReader& r_;
  const std::vector<PackageEntry>& entries_;
  ReadContext inner_;
  const std::function<Status(Asset&, size_t, size_t)>& clipsRead_;
  const std::function<void(std::span<const uint8_t>)>& releaseBytes_;
  Budget& budget_;
  Asset asset_;
  NameMap names_;
  std::optional<Error> firstError_;
  size_t clipIndex_ = 0, clipCount_ = 0, handed_ = 0;
  const PackageEntry* previousClip_ = nullptr;  // handing on: the clip read before, its bytes given back
  // Handing on: the clip decoded before, whose arrays the next is decoded into: its stored form,
  // and the animation the callback left in the clip set it was handed (ReadOptions::clipsRead).
  ClipStorage storage_;
  // Each resource's bytes, decompressed into the allocation the one before was.
  RefPackBytes resource_;
  // Handing on: the stored bytes of the clips decoded and not given back yet, [from, to) of the file.
  static constexpr size_t kReleaseStep = 128 << 10;
  size_t releaseFrom_ = 0, releaseTo_ = 0;
};

}  // namespace

Result<Asset> readPackage(const Source& source, ReadContext& ctx) {
  ByteReader r = ctx.reader(source.bytes());
  RP_ASSIGN(const std::vector<PackageEntry> entries, parsePackageIndex(r));
  if (entries.size() > ctx.options.maxItems) {
    return r.error(ErrorCode::TooLarge, fmt::format("{} resources; the limit is {}", entries.size(), ctx.options.maxItems), "indexCount");
  }
  PackageReader reader(r, entries, ctx);
  return reader.read(ctx.options.skeletonsOnly);
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
