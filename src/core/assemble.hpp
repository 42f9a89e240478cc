// assemble(): from what one input file holds (its Asset), the clip sets given beside it (--anim) and
// a skeleton the user names (--skeleton), the rigs to export. This is the library's answer to
// "which skeleton does this clip play on":
//   - each rig of the input is exported with the --anim clips bound to it;
//   - each clip set of the input plays on, in this order, the skeleton the user named, the rig the
//     clip set says it wants, or the rig of the input its tracks cover best; that rig is exported
//     once per clip set (named after the clip set), not again on its own;
//   - every bind re-resolves tracks against the chosen skeleton and reports its coverage.
// Keys are converted into the skeleton's axes first, so bones and keys agree.
#pragma once

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

struct AssembledRig {
  Rig rig;
  BindReport coverage;  // of every clip bound onto it (empty when none was)
};

Result<std::vector<AssembledRig>> assemble(Asset input, std::span<const ClipSet> extraClips, const Rig* skeleton,
                                           const AssembleOptions& options);

}  // namespace rigport
