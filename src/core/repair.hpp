// repairRig(): the damage real game files carry that a converter can still make sense of, repaired
// in documented ways (README "Repairs"), each kind reported by one folded warning with its count and
// first indices. Readers keep what the file says; the CLI runs this before export, for every format.
//
//   - a vertex position that is not finite: moved to the bind position of the bone that weighs the
//     vertex most (the origin of the mesh's space when nothing weighs it); a triangle whose three
//     vertices were all moved is dropped;
//   - a normal that is not finite or of zero length: the rig's up axis; a UV that is not finite: (0, 0);
//   - an influence whose weight is negative or not finite: dropped; a skin without influences in a
//     rig without bones: dropped (a glTF skin needs a joint);
//   - a bone rest pose component that is not finite: translation 0, scale 1; a rotation that is
//     not a unit quaternion: normalised, or identity when it cannot be; an inverse bind matrix that
//     is not finite: dropped (the exporter derives one from the bind pose);
//   - a key whose time, value or tangent is not finite, or a zero rotation key: dropped, the
//     channel keeping its other keys; a rotation key whose float squared length overflows or
//     underflows: rescaled to unit length; an event time that is not finite: the event dropped; a
//     clip duration that is not finite: the clip's last time;
//   - an animation with key or event times before 0: every time shifted so it starts at 0.
//
// Readers drop what they cannot repair (a resource that does not decode, a mesh or clip whose
// data is broken, influences naming no bone), each with a warning; dropsDamagedPart() knows
// those warnings, so that strict refuses them as it refuses a repair.
#pragma once

#include <string_view>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

struct RepairOptions {
  // Any repair is an error instead (the path and index of the first damage), the rig left as it was.
  bool strict = false;
  // The skeleton is one a repair found sound already and unchanged since (a package's RIG, kept from
  // one clip's rig to the next: ClipsAssembler::keptSkeleton()): its bones are not looked at again.
  bool bonesSound = false;
  // Normals and UVs repaired too. False leaves them as read: for the read-back check
  // (pipeline/verify.hpp), which poses positions and drops the rig, so that their repair, which
  // only warns there, is not a pass over every vertex for nothing.
  bool vertexAttributes = true;
};

[[nodiscard]] Status repairRig(Rig& rig, const RepairOptions& options = {});
// Mesh m's repairs, those repairRig() makes to it (repairRig = every mesh's, then the animations'),
// for a reader that hands its meshes over one at a time (ReadContext::meshBuilt).
[[nodiscard]] Status repairMesh(Rig& rig, size_t m, const RepairOptions& options = {});

// Whether warning `code` says a damaged or unreadable part of the input (a resource, a mesh, a
// clip, influences, keys) was dropped. A part rigport does not model (an unknown chunk, morph
// targets, lines) is not damage: those warnings are notes.
bool dropsDamagedPart(std::string_view code);
// Strict's answer to such a warning: the first one in `provenance` as an error, else Ok.
[[nodiscard]] Status refuseDroppedParts(const Provenance& provenance);

}  // namespace rigport
