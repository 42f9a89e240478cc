// ClipFile <-> the rig model's Animation (sims3_clip.md §2.5-§2.13).
#pragma once

#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"
#include "formats/sims3/clip_file.hpp"

namespace rigport::sims3 {

// Tracks name their bone by the FNV32 of its lower-cased name (R10, R11); morph / driver channels
// (sub-target 7) become scalar channels named "0x<key>"; constant channels one key at time 0;
// rotations are renormalised; events keep every field (payload JSON); actor, source name and IK
// slots go to extras["sims3"].
// `storage`, when given: an animation whose tracks' translation and rotation arrays take the keys
// (track i's arrays for the new track i, emptied first), so that clip after clip converted one at
// a time (a package's, ReadOptions::clipsRead) reuse the arrays the clip before's keys filled
// instead of a fresh allocation for each (80 of a package clip's 290). Nothing else of it is kept:
// the result is the same as without it.
// `keysCounted`: each channel's keys are decoded, counted and let go, for a caller that needs the
// animation's counts, not its keys (ReadOptions::animationRead): its tracks and scalar channels
// are made without keys, and all else (the stored key count in extras, the duration, events,
// warnings) is as without it. A CLIP's keys decoded were 1.8 times its size.
Animation clipToAnimation(const ClipFile& clip, Provenance& warnings, Animation* storage = nullptr, bool keysCounted = false);

// The arrays of the clip decoded before, for readClipInto() to decode the next into: its stored
// form's key bytes (parseClip()) and its animation's keys (clipToAnimation()).
struct ClipStorage {
  ClipFile file;
  Animation animation;
};
// readClip() (sims3.hpp) into `storage`'s arrays; storage.file is then the clip's stored form.
Result<ClipSet> readClipInto(std::span<const uint8_t> bytes, ReadContext& ctx, ClipStorage& storage);

// The writer's side: per channel the encoding the note describes (offset/scale from the value
// range, sign bits, constant types for unchanging channels), events and IK slots from what
// clipToAnimation() kept. Tracks are hashed from `skeleton`'s bone names where they are bound to
// one, else from their BoneRef. Scale keys have no TS3 channel and are not written.
Result<ClipFile> animationToClip(const Animation& anim, const Skeleton* skeleton);

}  // namespace rigport::sims3
