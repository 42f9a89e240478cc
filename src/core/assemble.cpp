#include "core/assemble.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/axes.hpp"
#include "core/rig_copy.hpp"

namespace rigport {
namespace {

bool listed(const std::vector<std::string>& names, const std::string& a, const std::string& b = {}) {
  return std::find(names.begin(), names.end(), a) != names.end() || (!b.empty() && std::find(names.begin(), names.end(), b) != names.end());
}

// A clip set not picked whole keeps the animations picked by their own item id (none, when it
// lists none).
void keepListedAnimations(ClipSet& clips, const std::vector<std::string>& items) {
  std::vector<Animation> kept;
  for (size_t a = 0; a < clips.animations.size() && a < clips.animationItems.size(); ++a) {
    if (listed(items, clips.animationItems[a])) kept.push_back(std::move(clips.animations[a]));
  }
  clips.animations = std::move(kept);
  clips.animationItems.clear();
}

Error usage(std::string message, const std::string& file) {
  Error e = makeError(ErrorCode::Usage, std::move(message));
  e.file = file;
  return e;
}

// Animations from `clips` bound onto `out`, in the rig's axes (a clip set has no bones, so only
// its keys move). They are the clip set's own, moved (an input's clip set plays on one rig), or a
// copy (an --anim clip set plays on every rig), converted in place: one copy at most, since a
// clip package's animations are most of what a conversion holds.
Status bindOnto(AssembledRig& out, std::vector<Animation> animations, const Provenance& clips, const BindOptions& options) {
  Rig carrier;
  carrier.animations = std::move(animations);
  carrier.provenance.axes = clips.axes;
  convertAxes(carrier, out.rig.provenance.axes);
  auto report = bindAnimations(out.rig, std::move(carrier.animations), options);
  if (!report) {
    Error e = report.error();
    e.file = clips.file;
    return e;
  }
  out.coverage.add(*report);
  out.rig.provenance.absorb(clips);
  return Ok{};
}

// Clips whose tracks name bones only by hash (a Sims 3 CLIP) still play with no skeleton at all: on
// a flat one with one node per hash, named "0x<hash>", at the origin (keys give every pose). The
// caller warns. Clips with any other kind of track name have no such stand-in.
std::optional<Rig> hashNamedSkeleton(const ClipSet& clips) {
  Rig rig;
  rig.name = "hash-named nodes";
  rig.provenance.axes = clips.provenance.axes;
  // Writers tell it from a skeleton the input had (a package writer adds no RIG for it).
  rig.extras = {{"rigportHashNamedSkeleton", true}};
  for (const Animation& a : clips.animations) {
    for (const BoneTrack& t : a.tracks) {
      if (!t.target.nameHash || !t.target.name.empty() || t.target.id || t.target.position) return std::nullopt;
      const uint64_t hash = *t.target.nameHash;
      const bool known = std::any_of(rig.skeleton.bones.begin(), rig.skeleton.bones.end(), [&](const Bone& b) { return b.nameHash == hash; });
      if (known) continue;
      Bone b;
      b.name = hash > 0xFFFFFFFFull ? fmt::format("0x{:016X}", hash) : fmt::format("0x{:08X}", hash);
      b.nameHash = hash;
      b.nameHashKind = t.target.nameHashKind;
      rig.skeleton.bones.push_back(std::move(b));
    }
  }
  if (rig.skeleton.bones.empty()) return std::nullopt;
  return rig;
}

size_t keepClips(std::vector<Animation>& animations, const std::vector<std::string>& names) {
  std::erase_if(animations, [&](const Animation& a) { return !listed(names, a.name); });
  return animations.size();
}

size_t trackCount(const ClipSet& clips) {
  size_t n = 0;
  for (const Animation& a : clips.animations) n += a.tracks.size();
  return n;
}

}  // namespace

SkeletonChoice chooseSkeleton(const ClipSet& clips, std::span<const Rig> rigs, Provenance& warn) {
  SkeletonChoice choice;
  choice.tracks = trackCount(clips);
  if (rigs.empty()) return choice;
  if (clips.wants) {
    for (size_t i = 0; i < rigs.size(); ++i) {
      if (rigs[i].name == clips.wants->name || (!clips.wants->item.empty() && rigs[i].name == clips.wants->item)) {
        choice.rig = choice.best = i;
        choice.found = countResolvable(rigs[i].skeleton, clips.animations);
        return choice;
      }
    }
    warn.warn("skeleton-not-found", fmt::format("clips '{}' want skeleton '{}', which the file does not hold; "
                                                "choosing by coverage", clips.name, clips.wants->name));
  }
  choice.best = 0;
  for (size_t i = 0; i < rigs.size(); ++i) {
    const size_t n = countResolvable(rigs[i].skeleton, clips.animations);
    if (n > choice.found) choice.best = i, choice.found = n;
  }
  if (static_cast<double>(choice.found) >= kMinCoverage * static_cast<double>(choice.tracks)) {
    choice.rig = choice.best;
    return choice;
  }
  warn.warn("skeleton-coverage",
            fmt::format("{} '{}': {} of {} tracks found on skeleton '{}', the file's best (under {:.0f} %); kept on its own "
                        "hash-named nodes (--skeleton FILE#ITEM binds it to a skeleton anyway)",
                        clips.animations.size() == 1 ? "clip" : "clips", clips.name, choice.found, choice.tracks,
                        rigs[*choice.best].name, kMinCoverage * 100.0));
  return choice;
}

namespace {

// A copy of `rig` without its animations, made in `spare` when given (assignWithoutAnimations(),
// whose answer goes to *keptSkeleton).
Rig copyOf(const Rig& rig, Rig* spare, bool* keptSkeleton) {
  if (spare == nullptr) {
    Rig copy = rig;
    copy.animations.clear();
    return copy;
  }
  *keptSkeleton = assignWithoutAnimations(*spare, rig);
  return std::move(*spare);
}

// The rig a clip set of the input plays on (assemble()'s rule), its clips moved in and bound; named
// after the clip set by the caller, once the --anim clips are bound under the skeleton's name. The
// skeleton's copy is made in `spare` when given (ClipsAssembler::recycle(); *keptSkeleton says
// whether its skeleton was kept).
Result<AssembledRig> rigPlaying(ClipSet& clips, const std::vector<Rig>& rigs, const Rig* skeleton, std::vector<bool>& playsClips,
                                const std::string& file, const BindOptions& bind, Rig* spare = nullptr, bool* keptSkeleton = nullptr) {
  AssembledRig assembled;
  if (skeleton != nullptr) {
    assembled.rig = copyOf(*skeleton, spare, keptSkeleton);
  } else {
    Provenance choosing;
    const SkeletonChoice choice = chooseSkeleton(clips, rigs, choosing);
    std::optional<Rig> standIn = choice.rig ? std::nullopt : hashNamedSkeleton(clips);
    if (choice.rig) {
      playsClips[*choice.rig] = true;
      assembled.rig = copyOf(rigs[*choice.rig], spare, keptSkeleton);
    } else if (standIn) {
      assembled.rig = std::move(*standIn);
      if (!choice.best) {
        assembled.rig.provenance.warn("no-skeleton", fmt::format("clips '{}' play on no skeleton: their {} bones are nodes named by "
                                                                 "hash at the origin; name one with --skeleton FILE[#ITEM]",
                                                                 clips.name, assembled.rig.skeleton.bones.size()));
      }
    } else if (choice.best) {
      return usage(fmt::format("clips '{}': {} of {} tracks found on skeleton '{}', the file's best; name the skeleton they play "
                               "on with --skeleton FILE[#ITEM]",
                               clips.name, choice.found, choice.tracks, rigs[*choice.best].name),
                   file);
    } else {
      return usage(fmt::format("{} clips carry no skeleton: name one with --skeleton FILE[#ITEM], or pass this file with "
                               "--anim next to a model",
                               clips.provenance.format),
                   file);
    }
    assembled.rig.provenance.absorb(choosing);
  }
  RP_CHECK(bindOnto(assembled, std::move(clips.animations), clips.provenance, bind));
  return assembled;
}

// Binds the --anim clip sets onto `out`: copies, or the caller's own when it gives them up (`take`).
Status bindExtras(AssembledRig& out, std::span<const ClipSet> extras, std::vector<ClipSet>* take, const BindOptions& bind) {
  for (size_t e = 0; e < extras.size(); ++e) {
    std::vector<Animation> animations = take != nullptr ? std::move((*take)[e].animations) : extras[e].animations;
    RP_CHECK(bindOnto(out, std::move(animations), extras[e].provenance, bind));
  }
  return Ok{};
}

// A rig playing the input's clip set `clips`: the --anim clips bound under the skeleton's own name
// (the warnings name it), then named after the clip set, with the file-level warnings.
Status finishPlaying(AssembledRig& out, const ClipSet& clips, std::span<const ClipSet> extras, std::vector<ClipSet>* take,
                     const Provenance& input, const BindOptions& bind) {
  RP_CHECK(bindExtras(out, extras, take, bind));
  out.rig.name = clips.name;
  out.rig.provenance.absorb(input);
  return Ok{};
}

// An input rig exported as it is: the file-level warnings, then the --anim clips.
Status finishRig(AssembledRig& out, std::span<const ClipSet> extras, std::vector<ClipSet>* take, const Provenance& input,
                 const BindOptions& bind) {
  out.rig.provenance.absorb(input);
  return bindExtras(out, extras, take, bind);
}

Error nothingToExport(const std::string& file) { return usage("holds nothing to export (no rig, and no clips)", file); }

// assemble(); `owned` is extraClips when the caller gave them up, else null.
Result<std::vector<AssembledRig>> assembleWith(Asset input, std::span<const ClipSet> extraClips, std::vector<ClipSet>* owned,
                                               const Rig* skeleton, const AssembleOptions& options) {
  const std::string& file = input.provenance.file;
  // --item picks what is exported; a picked clip set still plays on the rig of its file (a Sims 3
  // package's clip on the package's RIG), so every rig stays available as a skeleton.
  std::vector<bool> exported(input.rigs.size(), true);
  if (!options.items.empty()) {
    for (size_t i = 0; i < input.rigs.size(); ++i) {
      const Rig& rig = input.rigs[i];
      exported[i] = listed(options.items, rig.name) ||
                    std::any_of(rig.itemIds.begin(), rig.itemIds.end(), [&](const std::string& id) { return listed(options.items, id); });
    }
    for (ClipSet& c : input.clips) {
      if (listed(options.items, c.name, c.item)) continue;
      keepListedAnimations(c, options.items);
    }
    std::erase_if(input.clips, [](const ClipSet& c) { return c.animations.empty(); });
    if (std::find(exported.begin(), exported.end(), true) == exported.end() && input.clips.empty()) {
      return usage(fmt::format("no item named {} (`rigport info` lists the items)", fmt::join(options.items, ", ")), file);
    }
  }
  // The --anim clip sets: the caller's are copied here only when --clip picks from them.
  std::span<const ClipSet> extras = extraClips;
  std::vector<ClipSet> pickedExtras;
  if (!options.clips.empty()) {
    size_t kept = 0;
    if (owned == nullptr) {
      pickedExtras.assign(extraClips.begin(), extraClips.end());
      owned = &pickedExtras;
      extras = pickedExtras;
    }
    // A glTF's clips come on its rig, a game file's in clip sets: --clip picks from both.
    for (Rig& r : input.rigs) kept += keepClips(r.animations, options.clips);
    for (ClipSet& c : input.clips) kept += keepClips(c.animations, options.clips);
    for (ClipSet& c : *owned) kept += keepClips(c.animations, options.clips);
    if (kept == 0) return usage(fmt::format("no clip named {} (`rigport info` lists the clips)", fmt::join(options.clips, ", ")), file);
  }

  std::vector<AssembledRig> out;
  std::vector<const ClipSet*> playing;  // per rig out: the input's clip set it plays, or null for an input rig
  std::vector<bool> playsClips(input.rigs.size(), false);
  for (ClipSet& clips : input.clips) {
    if (clips.animations.empty()) continue;
    RP_ASSIGN(AssembledRig assembled, rigPlaying(clips, input.rigs, skeleton, playsClips, file, options.bind));
    out.push_back(std::move(assembled));
    playing.push_back(&clips);
  }
  for (size_t i = 0; i < input.rigs.size(); ++i) {
    if (playsClips[i] || !exported[i]) continue;
    out.push_back(AssembledRig{std::move(input.rigs[i]), {}});
    playing.push_back(nullptr);
  }
  if (out.empty()) return nothingToExport(file);
  // Every rig gets the --anim clips; the last takes the caller's own when it gave them up.
  for (size_t r = 0; r < out.size(); ++r) {
    std::vector<ClipSet>* take = owned != nullptr && r + 1 == out.size() ? owned : nullptr;
    if (playing[r] == nullptr) {
      RP_CHECK(finishRig(out[r], extras, take, input.provenance, options.bind));
    } else {
      RP_CHECK(finishPlaying(out[r], *playing[r], extras, take, input.provenance, options.bind));
    }
  }
  return out;
}

}  // namespace

Result<AssembledRig> ClipsAssembler::play(ClipSet& clips, const Asset& input) {
  playsClips_.resize(input.rigs.size(), false);
  keptSkeleton_ = false;
  RP_ASSIGN(AssembledRig out, rigPlaying(clips, input.rigs, skeleton_, playsClips_, input.provenance.file, options_.bind, &spare_, &keptSkeleton_));
  RP_CHECK(finishPlaying(out, clips, extras_, nullptr, input.provenance, options_.bind));
  played_ = true;
  return out;
}

Result<std::vector<AssembledRig>> ClipsAssembler::rest(Asset input) {
  playsClips_.resize(input.rigs.size(), false);
  std::vector<AssembledRig> out;
  for (size_t i = 0; i < input.rigs.size(); ++i) {
    if (!playsClips_[i]) out.push_back(AssembledRig{std::move(input.rigs[i]), {}});
  }
  if (out.empty() && !played_) return nothingToExport(input.provenance.file);
  for (AssembledRig& r : out) RP_CHECK(finishRig(r, extras_, nullptr, input.provenance, options_.bind));
  return out;
}

Result<std::vector<AssembledRig>> assemble(Asset input, std::span<const ClipSet> extraClips, const Rig* skeleton,
                                           const AssembleOptions& options) {
  return assembleWith(std::move(input), extraClips, nullptr, skeleton, options);
}

Result<std::vector<AssembledRig>> assembleTaking(Asset input, std::vector<ClipSet>&& extraClips, const Rig* skeleton,
                                                 const AssembleOptions& options) {
  return assembleWith(std::move(input), extraClips, &extraClips, skeleton, options);
}

}  // namespace rigport
