// Which pose a rig rests in when no clip plays, and where it stands. Game models are often bound in
// a pose nobody sees in the game (renderware.md §1.9: most SA peds' skins lie on their side), and
// their origin is not always at the feet (a GTA ped's is its pelvis): the rest pose can be taken
// from a clip (the game's idle stance), a rest pose that lies is recognised, and the lowest point
// of the posed model tells the exporter how far to lift it onto the ground (GltfOptions::groundLift).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <glm/glm.hpp>

#include "core/rig.hpp"

namespace rigport {

// The index of the animation named `name`, compared without case (clip names differ in case between
// a game's packages: IDLE_stance, idle_stance); nullopt when none is.
std::optional<size_t> findClip(const Rig& rig, std::string_view name);

// Every bone a bound track of animation `clip` moves rests in the clip's pose at `seconds` (a key
// set's first or last value outside its keys); the other bones keep their pose. Each joint keeps
// the inverse bind matrix it had (one without is given the inverse of its old world bind pose), so
// the meshes stay bound to the pose they were modelled in and, when no clip plays, deform into the
// clip's: joint world × inverse bind is no longer the identity. Tracks relative to the bind pose
// are taken against the old pose (core/track_space.hpp).
void restPoseFromClip(Rig& rig, size_t clip, float seconds);

// The axis-aligned box of the rig as its rest pose shows it, in the rig's axes and units: every
// mesh vertex posed (a skinned one by its influences' joint world × inverse bind, weights taken
// over their sum; an unskinned one by its bone's world), or, for a rig without vertices (or whose
// meshes were let go, as `info` does), the bones' world positions. Nullopt when there is neither.
struct RestBounds {
  glm::vec3 lo;
  glm::vec3 hi;
};
std::optional<RestBounds> restPoseBounds(const Rig& rig);

// Height (along `axes`' up) and the longest horizontal side of `bounds`.
struct Stance {
  float height;
  float length;
  // A standing figure is about as tall as it is long or more (arms spread in a T-pose give
  // length ≈ height); one lying down is several times longer than tall.
  bool lies() const { return height < 0.5f * length; }
};
Stance stanceOf(const RestBounds& bounds, const AxisSystem& axes);

}  // namespace rigport
