// Which pose a DFF rig rests in (format note renderware.md §1.9): the FrameList pose, unless the
// skin's inverse bind matrices disagree with it, in which case the skin's bind pose (the pose the
// mesh was modelled in; most real SA peds have their frame hierarchy turned against it). The bind
// space is the skin's, as in librw's skinning, where a skinned vertex lands at bone LTM × IBM × v
// and the frame the atomic hangs on cancels out. Also reports what a glTF node cannot hold (shear
// in frames or in the skin's matrices) and drops the turn of the clump's own frame.
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
// alone never counts): for every node, bone LTM · invMat = identity (librw: the atomic's frame
// cancels, so it takes no part). When it fails and `adopt`, every joint's local TRS becomes the
// skin's bind pose (bone world = inverse(invMat), relative to the parent's), the old TRS goes to the
// bone's extras.framePose, the "bind-pose" warning says so, and a "skin-shear" warning names the
// joints whose matrices carry a shear the nodes cannot. Returns whether the pose was replaced.
bool chooseRestPose(Rig& rig, const std::vector<uint32_t>& nodeBones, const std::vector<glm::mat4>& inverseMatrices,
                    const std::vector<glm::mat4>& frameWorld, size_t atomicIndex, bool adopt);

// The clump's own frame (the root above the HAnim hierarchy's frame, when it is not a node of the
// hierarchy) is where the game puts the ped's placement, replacing the matrix stored there: a turn
// kept in it would tip every clip over. Drops the rotation of bone `root` (its file pose goes to
// extras.framePose) with a "clump-root-turn" warning naming the frame and the angle, and moves
// `frameWorld` of every bone under it accordingly; nothing when it is not turned. `frame` is its
// index in the file.
void dropClumpRootTurn(Skeleton& skeleton, uint32_t root, size_t frame, std::vector<glm::mat4>& frameWorld, Provenance& prov);

}  // namespace rigport::renderware
