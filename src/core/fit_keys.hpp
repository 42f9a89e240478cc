// The key conversions fitToLimits() makes for formats whose keys are not glTF's (core/fit.hpp):
// each keeps the motion where the target can, and measures and reports what it cannot.
#pragma once

#include <string_view>

#include "core/rig.hpp"

namespace rigport {

// Scale keys dropped from every clip, for a format whose keys carry none (.anm, SKA, CLIP). The
// warning names the bones, the largest deviation from the rest scale, and about how far that
// scale moves the joints below the bone (deviation × their distance from it at rest).
void dropScaleKeys(Rig& rig, std::string_view format);

// STEP and LINEAR translation and rotation keys as cubic Hermite keys with one tangent per key (in
// = out, a BattleForge SKA's). LINEAR: each key's tangent is the mean of its segments' slopes, and
// where the two differ a key 1 ms (at most a quarter segment) to that side carries the segment's
// own slope, so every segment is straight outside those corners. STEP: a key 1 ms before each
// change holds the earlier value, zero tangents. The largest deviation outside the corners (a
// rotation's chord against glTF's slerp) is reported per clip.
void keysToHermite(Rig& rig, std::string_view format);

// Keys on the frames of `fps`, played linearly (a Sims 3 CLIP: 30 fps). A translation or rotation
// channel whose keys are not already LINEAR and on frames is resampled at every frame from 0 to its
// last key; the largest deviation (sampled 8 times per frame) is reported per clip.
void keysOnFrames(Rig& rig, float fps, std::string_view format);

// Tracks on bones that are not joints (an animated armature or clump node: Blender's armature
// object, assimp's root), for a format whose tracks bind to joints only (.anm, by HAnim node
// position). Each such track moves into the bone's children, whose local matrix becomes
// P₀⁻¹·P(t)·C(t) (P the bone's animated local, P₀ its rest, which the file keeps; C the child's),
// keyed at the union of both tracks' key times and played linearly; the bone's own track goes (a
// bone with no bone below has its track dropped, named). Exact at the keys; between them a key is
// added where the composed motion bends away from the line between two keys (by 1e-5 m or 1e-3°,
// each segment halved at most six times); the largest deviation left (sampled) is reported per clip.
void foldNonJointTracks(Rig& rig, std::string_view format);

// Bones that are no joint between two joints (assimp's $AssimpFbx$ helpers, a Blender empty between
// bones: A -> H -> B), for a format whose joints hang on joints: DragonFF parents a DFF's bone only to
// the bone of its parent frame (docs/dragonff.md), and librw poses each HAnim node from its key
// relative to its HAnim parent node, skipping the frames between (HAnimHierarchy::updateMatrices),
// so H would be lost in both. B then hangs on A with rest H₀·B₀, and in every clip H(t)·B(t) keyed as
// foldNonJointTracks() keys: exact at rest and at the keys, the largest deviation between keys
// reported per clip. H stays where it is, for the meshes and bones that are
// no joint below it; its own track is left to foldNonJointTracks().
void foldHelperBones(Rig& rig, std::string_view format);

}  // namespace rigport
