// `convert --to sims3-package --base ORIGINAL` (issue 28): the rig's package written into a copy of
// the original. Every resource of the original stays, under its key, with its stored bytes (compressed
// as they were), except where the rig's package holds a resource of the same key that is edited:
// that one is replaced. What came back from Blender is re-encoded, so "edited" is judged on what the
// two resources decode to, not on their bytes: a RIG with other bones, parents or bind pose (beyond
// float32 rounding); a CLIP with other tracks, events or morph channels, or whose keys pose apart at
// any 1/30 s frame by more than two of its quantisation steps (sims3_clip.md §2.5: 10-bit
// translations, 12-bit rotations over each channel's range) and 0.1 mm. Resources the original lacks are added
// after its own. The original's name map is kept unless the rig brings a name it lacks. The header
// keeps the original's fields but the index's place and size (§4).
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "core/hash.hpp"
#include "core/key_sample.hpp"
#include "formats/sims3/dbpf_layout.hpp"
#include "formats/sims3/package.hpp"
#include "formats/sims3/sims3.hpp"

namespace rigport::sims3 {
namespace {

using namespace dbpf;
using Key = std::tuple<uint32_t, uint32_t, uint64_t>;
using NameMap = std::unordered_map<uint64_t, std::string>;

Key keyOf(const PackageEntry& e) { return {e.type, e.group, e.instance}; }

// The entry as stored: its bytes untouched, its compression and size as the index gives them.
Result<PackageResource> storedResource(const ByteReader& r, const PackageEntry& e) {
  RP_ASSIGN(ByteReader stored, r.window(e.offset, e.fileSize, "resource"));
  RP_CHECK(stored.charge(e.fileSize, "fileSize"));
  RP_ASSIGN(const auto bytes, stored.bytes(e.fileSize, "resource"));
  return PackageResource{e.type, e.group, e.instance, std::vector<uint8_t>(bytes.begin(), bytes.end()), e.memSize, e.compression};
}

Result<NameMap> namesOf(const ByteReader& r, const PackageEntry& e) {
  RP_ASSIGN(const std::vector<uint8_t> bytes, packageResource(r, e));
  return parseNameMap(ByteReader(bytes));
}

// The original's name map, or one that adds the rig's new names to it (sorted by instance: the
// original's order is not kept once the map changes).
Result<PackageResource> mergedNames(const ByteReader& base, const PackageEntry& baseMap, const NameMap& added) {
  RP_ASSIGN(NameMap names, namesOf(base, baseMap));
  bool changed = false;
  for (const auto& [instance, name] : added) {
    const auto it = names.find(instance);
    if (it != names.end() && it->second == name) continue;
    names[instance] = name;
    changed = true;
  }
  if (!changed) return storedResource(base, baseMap);
  std::vector<std::pair<uint64_t, std::string>> sorted(names.begin(), names.end());
  std::sort(sorted.begin(), sorted.end());
  return PackageResource::make(kTypeNameMap, baseMap.group, baseMap.instance, serializeNameMap(sorted), baseMap.compression == kCompressedRefPack);
}

constexpr float kFloatRounding = 1e-5f;
constexpr float kTranslationSteps = 2.0f / 1023.0f;  // of a channel's range, 10 bits
// Less than a translation differs by: keys Blender bakes for a bone at rest stray up to 3e-5 from
// its bind translation (measured on the demo's walk clip).
constexpr float kTranslationFloor = 1e-4f;
constexpr float kRotationStep = 2.0f * 2.0f / 4095.0f;  // a component in [-1, 1], 12 bits

bool near(const glm::vec3& a, const glm::vec3& b, float tolerance) { return glm::all(glm::lessThanEqual(glm::abs(a - b), glm::vec3(tolerance))); }
// q and -q are the same turn.
bool near(const glm::quat& a, const glm::quat& b, float tolerance) {
  const glm::vec4 d = glm::abs(glm::vec4(a.x, a.y, a.z, a.w) - glm::vec4(b.x, b.y, b.z, b.w));
  const glm::vec4 e = glm::abs(glm::vec4(a.x, a.y, a.z, a.w) + glm::vec4(b.x, b.y, b.z, b.w));
  return glm::all(glm::lessThanEqual(d, glm::vec4(tolerance))) || glm::all(glm::lessThanEqual(e, glm::vec4(tolerance)));
}

bool sameRig(const Rig& a, const Rig& b) {
  if (a.skeleton.bones.size() != b.skeleton.bones.size()) return false;
  for (size_t i = 0; i < a.skeleton.bones.size(); ++i) {
    const Bone& x = a.skeleton.bones[i];
    const Bone& y = b.skeleton.bones[i];
    if (x.name != y.name || x.parent != y.parent || x.nameHash != y.nameHash || !near(x.translation, y.translation, kFloatRounding) ||
        !near(x.rotation, y.rotation, kFloatRounding) || !near(x.scale, y.scale, kFloatRounding)) {
      return false;
    }
  }
  return true;
}

// Tracks with keys, by the hash a CLIP names its bone by.
std::map<uint64_t, const BoneTrack*> keyedTracks(const Animation& anim) {
  std::map<uint64_t, const BoneTrack*> out;
  for (const BoneTrack& t : anim.tracks) {
    if (!t.translation.times.empty() || !t.rotation.times.empty()) out[t.target.nameHash.value_or(0)] = &t;
  }
  return out;
}

// A bone's bind pose, by the hash a CLIP names it by (sims3_clip.md R10: FNV32 of the lower-cased name).
std::map<uint64_t, const Bone*> bonesByHash(const Skeleton& skeleton) {
  std::map<uint64_t, const Bone*> out;
  for (const Bone& b : skeleton.bones) out[fnv1_32Lower(b.name)] = &b;
  return out;
}

float translationTolerance(const Keys<glm::vec3>& keys) {
  glm::vec3 lo(0.0f), hi(0.0f);
  for (size_t i = 0; i < keys.values.size(); ++i) {
    lo = i == 0 ? keys.values[i] : glm::min(lo, keys.values[i]);
    hi = i == 0 ? keys.values[i] : glm::max(hi, keys.values[i]);
  }
  const glm::vec3 range = hi - lo;
  return std::max({range.x, range.y, range.z}) * kTranslationSteps + kTranslationFloor;
}

// A track one clip has and the other lacks plays the same when it holds its bone's bind pose
// throughout (Blender's exporter keys every bone, the game's clips only those that move).
bool samePlay(const Animation& a, const Animation& b, const Skeleton& skeleton) {
  if (std::abs(a.duration - b.duration) > 0.5f / 30.0f || a.events.size() != b.events.size() || a.scalars.size() != b.scalars.size()) return false;
  for (size_t i = 0; i < a.events.size(); ++i) {
    if (a.events[i].type != b.events[i].type || a.events[i].payload != b.events[i].payload || std::abs(a.events[i].time - b.events[i].time) > 0.5f / 30.0f) {
      return false;
    }
  }
  const auto ta = keyedTracks(a);
  const auto tb = keyedTracks(b);
  const auto bones = bonesByHash(skeleton);
  std::map<uint64_t, bool> hashes;
  for (const auto& [hash, track] : ta) hashes[hash] = true;
  for (const auto& [hash, track] : tb) hashes[hash] = true;
  const BoneTrack none;
  const int frames = static_cast<int>(std::ceil(std::max(a.duration, b.duration) * 30.0f));
  for (const auto& [hash, unused] : hashes) {
    const auto inA = ta.find(hash);
    const auto inB = tb.find(hash);
    const auto bone = bones.find(hash);
    if ((inA == ta.end() || inB == tb.end()) && bone == bones.end()) return false;  // no bind pose to hold
    const BoneTrack& x = inA == ta.end() ? none : *inA->second;
    const BoneTrack& y = inB == tb.end() ? none : *inB->second;
    const glm::vec3 restT = bone == bones.end() ? glm::vec3(0.0f) : bone->second->translation;
    const glm::quat restR = bone == bones.end() ? glm::quat(1, 0, 0, 0) : bone->second->rotation;
    const float tolerance = std::max(translationTolerance(x.translation), translationTolerance(y.translation));
    for (int f = 0; f <= frames; ++f) {
      const float t = static_cast<float>(f) / 30.0f;
      if (!near(sampleKeys(x.translation, t, restT), sampleKeys(y.translation, t, restT), tolerance) ||
          !near(sampleKeys(x.rotation, t, restR), sampleKeys(y.rotation, t, restR), kRotationStep)) {
        return false;
      }
    }
  }
  return true;
}

// Whether the rig's resource is edited: it decodes to something else than the original (an
// original that does not decode, e.g. The Sims 4's zlib, counts as edited).
Result<bool> edited(const ByteReader& base, const PackageEntry& was, const ByteReader& own, const PackageEntry& now, const Skeleton& skeleton,
                    ReadContext& ctx) {
  RP_ASSIGN(const std::vector<uint8_t> ours, packageResource(own, now));
  auto theirs = packageResource(base, was);
  if (!theirs) return true;
  if (*theirs == ours) return false;
  ReadContext inner = ctx.nested();
  if (now.type == kTypeRig) {
    RP_ASSIGN(const Rig mine, readRig(ours, inner));
    auto original = readRig(*theirs, inner);
    return !original || !sameRig(*original, mine);
  }
  if (now.type == kTypeClip) {
    RP_ASSIGN(const ClipSet mine, readClip(ours, inner));
    auto original = readClip(*theirs, inner);
    return !original || !samePlay(original->animations.front(), mine.animations.front(), skeleton);
  }
  return true;
}

}  // namespace

Result<std::vector<uint8_t>> writePackageOnto(const Rig& rig, const Source& base, ReadContext& ctx) {
  RP_ASSIGN(const std::vector<uint8_t> written, writePackage(rig));
  const ByteReader baseReader = ctx.reader(base.bytes());
  ByteReader indexReader = baseReader;
  RP_ASSIGN(const std::vector<PackageEntry> baseEntries, parsePackageIndex(indexReader));
  const ByteReader ownReader = ctx.reader(written);
  ByteReader ownIndex = ownReader;
  RP_ASSIGN(const std::vector<PackageEntry> ownEntries, parsePackageIndex(ownIndex));

  std::map<Key, const PackageEntry*> own;
  NameMap ownNames;
  for (const PackageEntry& e : ownEntries) {
    if (e.type != kTypeNameMap) {
      own[keyOf(e)] = &e;
    } else {
      RP_ASSIGN(ownNames, namesOf(ownReader, e));
    }
  }
  std::vector<PackageResource> resources;
  bool namesKept = false;
  for (const PackageEntry& e : baseEntries) {
    if (e.type == kTypeNameMap && !namesKept) {
      RP_ASSIGN(PackageResource names, mergedNames(baseReader, e, ownNames));
      resources.push_back(std::move(names));
      namesKept = true;
      continue;
    }
    const auto replacement = own.find(keyOf(e));
    if (replacement == own.end()) {
      RP_ASSIGN(PackageResource kept, storedResource(baseReader, e));
      resources.push_back(std::move(kept));
      continue;
    }
    RP_ASSIGN(const bool replace, edited(baseReader, e, ownReader, *replacement->second, rig.skeleton, ctx));
    RP_ASSIGN(PackageResource chosen, replace ? storedResource(ownReader, *replacement->second) : storedResource(baseReader, e));
    resources.push_back(std::move(chosen));
    own.erase(replacement);
  }
  for (const PackageEntry& e : ownEntries) {
    const bool added = e.type == kTypeNameMap ? !namesKept : own.count(keyOf(e)) != 0;
    if (!added) continue;
    RP_ASSIGN(PackageResource resource, storedResource(ownReader, e));
    resources.push_back(std::move(resource));
  }
  return serializePackage(resources, base.bytes().first(kHeaderSize));
}

}  // namespace rigport::sims3
