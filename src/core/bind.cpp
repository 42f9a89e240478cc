#include "core/bind.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/hash.hpp"

namespace rigport {
namespace {

std::string looseName(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  std::string out;
  out.reserve(e - b);
  for (size_t i = b; i < e; ++i) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(s[i]))));
  return out;
}

int32_t resolve(const Skeleton& sk, const BoneRef& ref) {
  const auto& bones = sk.bones;
  if (ref.id) {
    for (size_t i = 0; i < bones.size(); ++i)
      if (bones[i].id == ref.id) return static_cast<int32_t>(i);
  }
  if (ref.nameHash) {
    // A stored hash of the same function; then, where the skeleton stores none (a RIG keeps names,
    // its CLIPs only hashes), the bone's name hashed with the function the track names.
    for (size_t i = 0; i < bones.size(); ++i) {
      const bool sameKind = bones[i].nameHashKind == ref.nameHashKind || bones[i].nameHashKind == HashKind::None ||
                            ref.nameHashKind == HashKind::None;
      if (sameKind && bones[i].nameHash == ref.nameHash) return static_cast<int32_t>(i);
    }
    if (ref.nameHashKind != HashKind::None) {
      for (size_t i = 0; i < bones.size(); ++i) {
        if (!bones[i].name.empty() && hashName(ref.nameHashKind, bones[i].name) == *ref.nameHash) return static_cast<int32_t>(i);
      }
    }
  }
  auto byName = [&](const std::string& name) -> int32_t {
    if (name.empty()) return -1;
    if (int32_t i = sk.find(name); i >= 0) return i;
    const std::string loose = looseName(name);
    for (size_t i = 0; i < bones.size(); ++i)
      if (looseName(bones[i].name) == loose) return static_cast<int32_t>(i);
    return -1;
  };
  if (int32_t i = byName(ref.name); i >= 0) return i;
  for (const std::string& alias : ref.aliases)
    if (int32_t i = byName(alias); i >= 0) return i;
  if (ref.position) {
    // Positions count joints (the skin palette / HAnim node order) when the skeleton has them.
    const std::vector<uint32_t> joints = sk.jointList();
    if (*ref.position < joints.size()) return static_cast<int32_t>(joints[*ref.position]);
  }
  return -1;
}

std::string describe(const BoneRef& ref) {
  std::string s = ref.name.empty() ? std::string("(unnamed)") : "'" + ref.name + "'";
  if (ref.id) s += fmt::format(" id {}", *ref.id);
  if (ref.nameHash) s += fmt::format(" hash 0x{:08X}", *ref.nameHash);
  if (ref.position) s += fmt::format(" position {}", *ref.position);
  return s;
}

constexpr size_t kExamplesPerReason = 5;

// The node count a positional clip (an .anm: one track per HAnim node, named by nothing but its
// position) was made for; 0 when any track carries an id, a hash or a name to bind by instead.
size_t positionalNodeCount(const Animation& anim) {
  size_t nodes = 0;
  for (const BoneTrack& t : anim.tracks) {
    const BoneRef& r = t.target;
    if (!r.position || r.id || r.nameHash || !r.name.empty()) return 0;
    nodes = std::max<size_t>(nodes, *r.position + 1);
  }
  return nodes;
}

void drop(BindReport& report, const char* reason, std::string example) {
  auto it = std::find_if(report.dropped.begin(), report.dropped.end(), [&](const BindReport::Dropped& d) { return d.reason == reason; });
  if (it == report.dropped.end()) it = report.dropped.insert(report.dropped.end(), BindReport::Dropped{reason, 0, {}});
  ++it->count;
  if (it->examples.size() < kExamplesPerReason) it->examples.push_back(std::move(example));
}

std::string describeDropped(const BindReport::Dropped& d) {
  std::string s = fmt::format("{} track{} {}: ", d.count, d.count == 1 ? "" : "s", d.reason);
  for (size_t i = 0; i < d.examples.size(); ++i) s += (i > 0 ? ", " : "") + d.examples[i];
  if (d.count > d.examples.size()) s += fmt::format(" and {} more", d.count - d.examples.size());
  return s;
}

// Each morph weight track bound to the target's mesh of its name with as many morph targets (the
// first such mesh no other track of the clip drives); the others dropped and named in `unbound`.
void bindMorphWeights(const Rig& target, Animation& anim, std::vector<std::string>& unbound) {
  std::vector<MorphWeightTrack> kept;
  std::vector<bool> used(target.meshes.size(), false);
  for (MorphWeightTrack& track : anim.morphWeights) {
    track.meshIndex = -1;
    for (size_t m = 0; m < target.meshes.size() && track.meshIndex < 0; ++m) {
      if (!used[m] && track.drives(target.meshes[m])) track.meshIndex = static_cast<int32_t>(m);
    }
    if (track.meshIndex < 0) {
      unbound.push_back(fmt::format("'{}' ({} targets) in '{}'", printable(track.mesh), track.targetCount, printable(anim.name)));
      continue;
    }
    used[static_cast<size_t>(track.meshIndex)] = true;
    kept.push_back(std::move(track));
  }
  anim.morphWeights = std::move(kept);
}

}  // namespace

void BindReport::add(const BindReport& other) {
  clips += other.clips;
  tracks += other.tracks;
  bound += other.bound;
  for (const Dropped& d : other.dropped) {
    auto it = std::find_if(dropped.begin(), dropped.end(), [&](const Dropped& e) { return e.reason == d.reason; });
    if (it == dropped.end()) {
      dropped.push_back(d);
      continue;
    }
    it->count += d.count;
    for (const std::string& e : d.examples)
      if (it->examples.size() < kExamplesPerReason) it->examples.push_back(e);
  }
}

std::string BindReport::summary() const {
  std::string s = fmt::format("{} of {} tracks of {} clip{} bound", bound, tracks, clips, clips == 1 ? "" : "s");
  for (const Dropped& d : dropped) s += "; " + describeDropped(d);
  return s;
}

size_t countResolvable(const Skeleton& skeleton, const std::vector<Animation>& animations) {
  size_t n = 0;
  for (const Animation& a : animations)
    for (const BoneTrack& t : a.tracks) n += resolve(skeleton, t.target) >= 0 ? 1 : 0;
  return n;
}

Result<BindReport> bindAnimations(Rig& target, std::vector<Animation> animations, const BindOptions& options) {
  const Skeleton& sk = target.skeleton;
  const size_t joints = sk.jointList().size();
  for (const Animation& anim : animations) {
    const size_t nodes = positionalNodeCount(anim);
    if (nodes != 0 && nodes != joints && !options.positionAcrossCounts) {
      Error e = makeError(ErrorCode::Usage,
                          fmt::format("animation '{}' binds by node position and was made for {} nodes, but skeleton '{}' has {} joints; "
                                      "its tracks would drive unrelated bones (--bind-by-position binds them anyway)",
                                      anim.name, nodes, target.name, joints));
      e.path = fmt::format("animations/{}", anim.name);
      return e;
    }
  }
  BindReport report;
  std::vector<std::string> unboundMorphs;
  for (Animation& anim : animations) {
    ++report.clips;
    // The kept tracks are moved down over the dropped ones in place: a clip whose every track binds
    // moves none (a package binds 500 clips, each onto a fresh rig).
    size_t kept = 0;
    std::vector<bool> used(sk.bones.size(), false);
    for (BoneTrack& t : anim.tracks) {
      ++report.tracks;
      const int32_t bone = resolve(sk, t.target);
      if (bone < 0) {
        drop(report, "match no bone", fmt::format("{} in '{}'", describe(t.target), anim.name));
        continue;
      }
      if (used[static_cast<size_t>(bone)]) {
        drop(report, "are a second track for a bone",
             fmt::format("{} on '{}' in '{}'", describe(t.target), sk.bones[static_cast<size_t>(bone)].name, anim.name));
        continue;
      }
      used[static_cast<size_t>(bone)] = true;
      t.bone = bone;
      if (&t != &anim.tracks[kept]) anim.tracks[kept] = std::move(t);
      ++kept;
      ++report.bound;
    }
    anim.tracks.erase(anim.tracks.begin() + static_cast<std::ptrdiff_t>(kept), anim.tracks.end());
    bindMorphWeights(target, anim, unboundMorphs);
    target.animations.push_back(std::move(anim));
  }
  if (!unboundMorphs.empty()) {
    target.provenance.warn("unbound-morph-weights", fmt::format("binding to '{}': {} morph weight track{} drive no mesh of that name and target "
                                                                "count (dropped): {}",
                                                                target.name, unboundMorphs.size(), unboundMorphs.size() == 1 ? "" : "s",
                                                                fmt::join(unboundMorphs, ", ")));
  }
  for (const BindReport::Dropped& d : report.dropped) {
    target.provenance.warn(d.reason == "match no bone" ? "unbound-track" : "duplicate-track",
                           fmt::format("binding to skeleton '{}': {} of {} tracks found; {} (dropped)", target.name, report.bound,
                                       report.tracks, describeDropped(d)));
  }
  return report;
}

}  // namespace rigport
