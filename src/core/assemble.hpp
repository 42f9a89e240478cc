// assemble(): from what one input file holds (its Asset), the clip sets given beside it (--anim) and
// a skeleton the user names (--skeleton), the rigs to export. This is the library's answer to
// "which skeleton does this clip play on":
//   - each rig of the input is exported with the --anim clips bound to it;
//   - each clip set of the input plays on, in this order, the skeleton the user named, the rig the
//     clip set says it wants, or the rig of the input its tracks cover best; that rig is exported
//     once per clip set (named after the clip set), not again on its own;
//   - a rig the user did not name must hold at least half of the clip set's tracks
//     (kMinCoverage): a package's object RIG holds 1 of a Sim clip's 112 tracks, and bound to it
//     the clip would lose every other track and not move at all. Below that the clips play on
//     their own nodes, named by the hashes their tracks carry, with a warning giving the coverage;
//   - every bind re-resolves tracks against the chosen skeleton and reports its coverage, naming
//     that skeleton.
// Keys are converted into the skeleton's axes first, so bones and keys agree.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/asset.hpp"
#include "core/bind.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

struct AssembleOptions {
  std::vector<std::string> items;  // keep only these items of the input (id or name); empty = all
  std::vector<std::string> clips;  // keep only the clips with these names; empty = all
  BindOptions bind;
};

// The least share of a clip set's tracks a skeleton the user did not name must hold: one half.
inline constexpr double kMinCoverage = 0.5;

// Which rig of `rigs` a clip set plays on when the user names none (assemble()'s rule); warnings
// (a wanted rig that is missing, a best rig below kMinCoverage) go to `warn`.
struct SkeletonChoice {
  std::optional<size_t> rig;  // none: no rig of the input holds enough of the tracks
  std::optional<size_t> best; // the rig holding most tracks (ties: the first), even when refused
  size_t found = 0;           // tracks found on `best`
  size_t tracks = 0;          // tracks of the clip set
};
SkeletonChoice chooseSkeleton(const ClipSet& clips, std::span<const Rig> rigs, Provenance& warn);

struct AssembledRig {
  Rig rig;
  BindReport coverage;  // of every clip bound onto it (empty when none was)
};

// assemble() item by item, for an input whose reader hands its clip sets on one at a time
// (ReadOptions::clipsRead), none picked by --item or --clip (options.items and clips empty):
// play() gives the rig each clip set plays on as it comes, rest() the input's rigs that played
// none once the read is done. In that order they are assemble()'s rigs, the same.
class ClipsAssembler {
 public:
  // `extraClips` and `skeleton` outlive it; the --anim clips are copied onto every rig.
  ClipsAssembler(std::span<const ClipSet> extraClips, const Rig* skeleton, const AssembleOptions& options)
      : extras_(extraClips), skeleton_(skeleton), options_(options) {}
  // The rig the input's clip set `clips` plays on; `input` holds the input's rigs (every one of
  // them, the same at each call) and its file-level warnings. The clip set's animations are moved.
  Result<AssembledRig> play(ClipSet& clips, const Asset& input);
  Result<std::vector<AssembledRig>> rest(Asset input);
  // Gives back a rig play() gave, once exported (its arrays may be the export's storage), for the
  // next play() to make its copy of the skeleton's rig in: a skeleton unchanged is not copied again.
  void recycle(Rig&& spent) { spare_ = std::move(spent); }
  // Whether the last play() kept the skeleton of the rig given back (assignWithoutAnimations()):
  // that skeleton went through everything the clip before's rig did (its repair, its export)
  // unchanged.
  bool keptSkeleton() const { return keptSkeleton_; }

 private:
  std::span<const ClipSet> extras_;
  const Rig* skeleton_;
  const AssembleOptions& options_;
  std::vector<bool> playsClips_;  // per rig of the input
  bool played_ = false;
  Rig spare_;  // recycle()'s
  bool keptSkeleton_ = false;
};

Result<std::vector<AssembledRig>> assemble(Asset input, std::span<const ClipSet> extraClips, const Rig* skeleton,
                                           const AssembleOptions& options);
// assemble() with clip sets the caller gives up: the last rig to play them takes their animations
// instead of a copy (a single input's --anim clips: a 1,000-clip IFP is most of what it holds).
Result<std::vector<AssembledRig>> assembleTaking(Asset input, std::vector<ClipSet>&& extraClips, const Rig* skeleton,
                                                 const AssembleOptions& options);

}  // namespace rigport
