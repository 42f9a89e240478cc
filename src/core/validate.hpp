// validate(): the rig model's invariants, checked before every export (STYLE.md "Always validate").
// Each failure names the element (bone, mesh, vertex, track) it is about.
#pragma once

#include <cstdint>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

// Parents precede children, influences and tracks name existing bones, weights are finite and
// non-negative, indices address existing vertices, key times are finite and matched by values.
//
// `meshes` says how much of each mesh is looked at. Every: all of it. Structure: the counts, the
// parts and the ends of the influence offsets, without the per-element passes (indices address
// vertices, offsets never decrease, influences name bones with usable weights): for a reader whose
// construction guarantees those, since they are a fifth of its read (the DFF reader, BENCHMARKS.md
// issue 11). Its fuzz target and corpus test check every rig it returns with Every, and export and
// the writers always do.
enum class MeshChecks : uint8_t { Every, Structure };
// `animations`: Every checks them all; None leaves them to validateAnimation(), for the glTF
// exporter, which checks each clip just before its passes over that clip (its keys then in cache),
// where a pass over every clip first was a sweep of its own over the model (BENCHMARKS.md).
enum class AnimationChecks : uint8_t { Every, None };
Status validate(const Rig& rig, MeshChecks meshes = MeshChecks::Every, AnimationChecks animations = AnimationChecks::Every);
// The same with `meshes` (as many as rig.meshes, on the same bones and materials) checked in place
// of rig.meshes: for the glTF exporter's copy of a rig the caller keeps, whose vertex arrays are
// read from the caller's meshes (gltf_document.hpp, OwnMeshes::from).
Status validate(const Rig& rig, const std::vector<Mesh>& meshes, MeshChecks checks, AnimationChecks animations);
// validate()'s checks of `anim`, animation a of the rig (rig.animations[a] or a copy of it).
Status validateAnimation(const Rig& rig, const Animation& anim, size_t a);
// validate()'s rule for a bone's rest rotation: a unit quaternion within 1e-3.
bool unitRotation(const glm::quat& q);
// validate()'s checks of mesh m alone, for a reader that hands its meshes over one at a time
// (ReadOptions::meshBuilt) before the whole rig exists.
Status validateMesh(const Rig& rig, size_t m, MeshChecks checks);

}  // namespace rigport
