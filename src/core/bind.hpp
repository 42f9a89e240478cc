// bindAnimations(): attaches standalone animations (an .anm, .ifp, .ska, a Sims 3 CLIP) to a
// skeleton read from another file or resource. Every track is resolved afresh against that
// skeleton, whatever index it carries (an index found against another skeleton means nothing
// here), in this order: id, name hash, exact name, name compared without case and surrounding
// spaces, the aliases the same two ways, then position. Dropped tracks are reported, one folded
// warning per reason.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

struct BindOptions {
  // Binding by node position is only meaningful when the clip was made for a skeleton with the same
  // node count; with a different count it binds unrelated bones, so it is refused unless forced.
  bool positionAcrossCounts = false;
};

// What a bind did: how many tracks found a bone, and why the others were dropped.
struct BindReport {
  struct Dropped {
    std::string reason;                 // "matches no bone", "second track for a bone"
    size_t count = 0;
    std::vector<std::string> examples;  // the first few, "'Root' in 'walk'"
  };
  size_t clips = 0;
  size_t tracks = 0;
  size_t bound = 0;
  std::vector<Dropped> dropped;

  void add(const BindReport& other);
  // "27 of 27 tracks of 3 clips bound" (+ "; 2 dropped: ..." when some were).
  std::string summary() const;
};

// Appends `animations` to target.animations with every track bound to a bone of target.skeleton.
// Fails (ErrorCode::Usage) when a clip binds by position and its node count differs from the
// skeleton's joint count, unless options.positionAcrossCounts.
Result<BindReport> bindAnimations(Rig& target, std::vector<Animation> animations, const BindOptions& options = {});

// How many of `animations`' tracks would find a bone of `skeleton` (for choosing a skeleton).
size_t countResolvable(const Skeleton& skeleton, const std::vector<Animation>& animations);

}  // namespace rigport
