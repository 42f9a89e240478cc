// Which pose a DFF rig rests in (format note renderware.md §1.9): the FrameList pose, unless the
// skin's inverse bind matrices disagree with it, in which case the skin's bind pose (the pose the
// mesh was modelled in; most real SA peds have their frame hierarchy turned against it). Also
// reports frames a glTF node cannot hold (shear).
#pragma once

#include <vector>

#include <glm/glm.hpp>

#include "core/rig.hpp"
#include "formats/renderware/dff_layout.hpp"

namespace rigport::renderware {

// World matrix of every bone from the file's own frame matrices (shear included, which the bones'
// TRS drops); bones without a frame (appended after the frame bones) use their TRS.
// `order[i]` is the frame of bone i.
std::vector<glm::mat4> frameWorldMatrices(const Skeleton& skeleton, const std::vector<RwFrame>& frames,
                                          const std::vector<uint32_t>& order);

// One "frame-shear" warning naming the sheared frames (axis dot products above a tolerance) and the
// largest amount: glTF nodes hold translation, rotation and scale only, so the shear is dropped.
void warnShearedFrames(const Skeleton& skeleton, const std::vector<RwFrame>& frames, const std::vector<uint32_t>& order,
                       Provenance& prov);

// §1.9 cross-check of one skinned atomic against the file's frame matrices (`frameWorld`, so shear
// alone never counts): for every node, inverse(atomic LTM) · bone LTM · invMat = identity. When it
// fails and `adopt`, every joint's local TRS becomes the skin's bind pose (bone world = atomic LTM ·
// inverse(invMat), relative to the parent's), the old TRS goes to the bone's extras.framePose, and
// the "bind-pose" warning says so. Returns whether the pose was replaced.
bool chooseRestPose(Rig& rig, uint32_t atomicBone, const std::vector<uint32_t>& nodeBones,
                    const std::vector<glm::mat4>& inverseMatrices, const std::vector<glm::mat4>& frameWorld,
                    size_t atomicIndex, bool adopt);

}  // namespace rigport::renderware
