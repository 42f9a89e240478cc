// KeyframeAnim 0x70001 (rw4_arena.md §5, Spore layout): channels named by the same u32 ids as the
// RW Skeleton's bone name hashes, keys LocRotScale / LocRot (absolute local TRS) or BlendFactor
// (blend-shape weights). Pointers as in rw_skeleton.hpp, except the channel positions, which are
// object-relative on every platform (§5, measured).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "core/byte_writer.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/rw4/arena.hpp"
#include "formats/rw4/spore_mesh.hpp"

namespace rigport::rw4 {

// An arena's KeyframeAnim as an Animation: tracks name their bone by hash (BoneRef::nameHash, kind
// None: only stored hashes compare), bound later against a skeleton that carries the same hashes;
// BlendFactor channels become a morph weight track of the blend-shape mesh whose BlendShape id is the
// clip's skeleton id (the Blender add-on's anim_exporter gives it so), else whose shape ids hold every
// channel's id: channel i keys shape i when there is one channel a shape (the add-on: "Spore only seems
// to care about the order"; a warning when the ids say otherwise), else the shape of its id; each
// shape's weight sampled (linearly) at the union
// of the channels' key times, 0 where no channel keys a shape; where no mesh matches they stay scalar
// channels (a `rw4-blend-factor` warning). The last channel's keys end at the object's padding end or
// after the key whose time reaches the length (the note: no count is stored for it).
Result<Animation> readKeyframeAnim(const Arena& arena, ByteReader obj, uint32_t row, const std::vector<SporeMorphMesh>& morphs,
                                   Provenance& prov);

// Spore's Animations objects (0xFF0001, docs/spore_meshes.md): KeyframeAnim row → the id the game
// knows the clip by (the first an arena gives it). A damaged map is skipped with a warning naming
// its row and field.
std::map<uint32_t, uint32_t> readAnimationIds(const Arena& arena, const ByteReader& root, Provenance& prov);

// Appends a KeyframeAnim of `anim` (absolute tracks bound to `skeleton`'s bones; each bone's keys at
// the union of its channels' times, LocRotScale) at w's end; `hashes` are the bones' channel ids.
void writeKeyframeAnim(ByteWriter& w, const Animation& anim, const Skeleton& skeleton, const std::vector<uint32_t>& hashes,
                       uint32_t skeletonId, bool absolutePointers);

// Appends a KeyframeAnim of BlendFactor channels (8-byte keys: factor, time), one per shape of
// `shapeIds` in order, keyed at the track's times with its stored weights, as the Blender add-on
// writes a shape-key action (rw4_exporter.py process_blend_shape_action); the skeleton id is the
// BlendShape's id. A STEP or CUBICSPLINE track keeps its key values only (Spore's keys are linear).
void writeBlendFactorAnim(ByteWriter& w, const MorphWeightTrack& track, float duration, const std::vector<uint32_t>& shapeIds,
                          uint32_t blendShapeId, bool absolutePointers);

}  // namespace rigport::rw4
