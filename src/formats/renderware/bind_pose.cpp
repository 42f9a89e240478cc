#include "formats/renderware/bind_pose.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/decompose.hpp"
#include "formats/renderware/clump_rig.hpp"

namespace rigport::renderware {
namespace {

// Skin matrices vs frame matrices (§1.9): real peds agree to < 1e-5; 1e-3 leaves room for files
// written with single-precision round trips.
constexpr float kBindPoseTolerance = 1e-3f;
// Axis dot products of an unsheared float frame stay below ~1e-6; real GTA III frames reach 0.01.
constexpr float kShearTolerance = 1e-4f;
constexpr size_t kNamedFrames = 3;
// A clump frame turned by less than this (degrees) is float noise (acos of a w one ulp below 1
// gives 0.04), not a turn to drop.
constexpr float kTurnTolerance = 0.1f;

float shear(const glm::mat4& m) {
  const glm::vec3 x(m[0]), y(m[1]), z(m[2]);
  const float lx = glm::length(x), ly = glm::length(y), lz = glm::length(z);
  if (!(lx > 0.0f && ly > 0.0f && lz > 0.0f)) return 0.0f;  // a collapsed axis is a scale, not a shear
  return std::max({std::fabs(glm::dot(x, y)) / (lx * ly), std::fabs(glm::dot(x, z)) / (lx * lz),
                   std::fabs(glm::dot(y, z)) / (ly * lz)});
}

nlohmann::json poseJson(const Bone& b) {
  return {{"translation", {b.translation.x, b.translation.y, b.translation.z}},
          {"rotation", {b.rotation.x, b.rotation.y, b.rotation.z, b.rotation.w}},
          {"scale", {b.scale.x, b.scale.y, b.scale.z}}};
}

// Bones whose skin matrix carries a shear a node cannot hold: how many, the worst shear, the first
// few names and how far joint world × inverse bind ends up off identity.
struct ShearedSkin {
  size_t count = 0;
  float worst = 0.0f;
  float offIdentity = 0.0f;
  std::string named;
  void add(const std::string& name, float shear, float off) {
    if (count < kNamedFrames) named += fmt::format("{}'{}' ({:.3g})", count == 0 ? "" : ", ", name, shear);
    worst = std::max(worst, shear);
    offIdentity = std::max(offIdentity, off);
    ++count;
  }
};

float offIdentity(const glm::mat4& m) {
  float worst = 0.0f;
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < 4; ++k) worst = std::max(worst, std::fabs(m[c][k] - (c == k ? 1.0f : 0.0f)));
  return worst;
}

// Replaces each joint's TRS by its bind pose: world = inverse(invMat) (the skin's space, §1.9),
// local relative to the parent's new world; other bones keep their local TRS and follow their parent.
void adoptBindPose(Rig& rig, const std::vector<uint32_t>& nodeBones, const std::vector<glm::mat4>& inverseMatrices,
                   size_t atomicIndex) {
  auto& bones = rig.skeleton.bones;
  std::vector<int64_t> nodeOfBone(bones.size(), -1);
  for (size_t n = 0; n < std::min(nodeBones.size(), inverseMatrices.size()); ++n) nodeOfBone[nodeBones[n]] = static_cast<int64_t>(n);
  std::vector<glm::mat4> world(bones.size());
  ShearedSkin sheared;
  for (size_t b = 0; b < bones.size(); ++b) {
    Bone& bone = bones[b];
    const glm::mat4 parentWorld = bone.parent >= 0 ? world[static_cast<size_t>(bone.parent)] : glm::mat4(1.0f);
    if (nodeOfBone[b] < 0) {
      world[b] = parentWorld * bone.localMatrix();
      continue;
    }
    const glm::mat4& invMat = inverseMatrices[static_cast<size_t>(nodeOfBone[b])];
    Bone bind = bone;
    const float shear = decomposeTrs(glm::inverse(parentWorld) * glm::inverse(invMat), bind);
    if (!std::isfinite(glm::length(bind.translation)) || !std::isfinite(glm::length(bind.scale))) {
      world[b] = parentWorld * bone.localMatrix();  // a singular skin matrix: this bone keeps its frame
      continue;
    }
    if (!bone.extras.is_object()) bone.extras = nlohmann::json::object();
    bone.extras["framePose"] = poseJson(bone);
    bone.translation = bind.translation;
    bone.rotation = bind.rotation;
    bone.scale = bind.scale;
    world[b] = parentWorld * bone.localMatrix();
    if (shear > kShearTolerance) sheared.add(bone.name, shear, offIdentity(world[b] * invMat));
  }
  if (sheared.count == 0) return;
  rig.provenance.warn("skin-shear",
                      fmt::format("atomic {}: the skin's bind pose of {} joint(s) needs a shear (axis dot products up to {:.3g}): "
                                  "{}{}; glTF nodes hold only translation, rotation and scale, so the rest pose drops it and "
                                  "joint world × inverse bind is off identity there by up to {:.3g}",
                                  atomicIndex, sheared.count, sheared.worst, sheared.named,
                                  sheared.count > kNamedFrames ? fmt::format(" and {} more", sheared.count - kNamedFrames) : "",
                                  sheared.offIdentity));
}

}  // namespace

std::vector<glm::mat4> frameWorldMatrices(const Skeleton& skeleton, const std::vector<RwFrame>& frames,
                                          const std::vector<uint32_t>& order) {
  const auto& bones = skeleton.bones;
  std::vector<glm::mat4> world(bones.size());
  for (size_t b = 0; b < bones.size(); ++b) {
    const glm::mat4 local = b < order.size() ? frames[order[b]].matrix : bones[b].localMatrix();
    world[b] = bones[b].parent >= 0 ? world[static_cast<size_t>(bones[b].parent)] * local : local;
  }
  return world;
}

void warnShearedFrames(const Skeleton& skeleton, const std::vector<RwFrame>& frames, const std::vector<uint32_t>& order,
                       Provenance& prov) {
  size_t count = 0;
  float worst = 0.0f;
  std::string named;
  for (size_t b = 0; b < order.size(); ++b) {
    const float s = shear(frames[order[b]].matrix);
    if (!(s > kShearTolerance)) continue;
    if (count < kNamedFrames) named += fmt::format("{}'{}' ({:.3g})", count == 0 ? "" : ", ", skeleton.bones[b].name, s);
    worst = std::max(worst, s);
    ++count;
  }
  if (count == 0) return;
  prov.warn("frame-shear",
            fmt::format("{} frame(s) are sheared (axis dot products up to {:.3g}): {}{}; glTF nodes hold only "
                        "translation, rotation and scale, so the nodes drop the shear while the inverse bind matrices "
                        "stay the file's own",
                        count, worst, named, count > kNamedFrames ? fmt::format(" and {} more", count - kNamedFrames) : ""));
}

bool chooseRestPose(Rig& rig, const std::vector<uint32_t>& nodeBones, const std::vector<glm::mat4>& inverseMatrices,
                    const std::vector<glm::mat4>& frameWorld, size_t atomicIndex, bool adopt) {
  const size_t n = std::min(inverseMatrices.size(), nodeBones.size());
  if (n == 0) return false;
  float worst = 0.0f;
  size_t worstNode = 0;
  for (size_t i = 0; i < n; ++i) {
    const float err = offIdentity(frameWorld[nodeBones[i]] * inverseMatrices[i]);
    if (!(err <= worst)) {  // also catches NaN
      worst = err;
      worstNode = i;
    }
  }
  if (worst <= kBindPoseTolerance) return false;
  const std::string what = fmt::format("atomic {}: skin inverse matrices differ from the FrameList pose by up to {:.3g} "
                                       "(worst: node {}, frame '{}')",
                                       atomicIndex, worst, worstNode, rig.skeleton.bones[nodeBones[worstNode]].name);
  if (!adopt) {
    rig.provenance.warn("bind-pose", what + "; the rest pose was already taken from an earlier atomic's skin");
    return false;
  }
  adoptBindPose(rig, nodeBones, inverseMatrices, atomicIndex);
  rig.provenance.warn("bind-pose", what + "; the rest pose is the skin's bind pose, the pose the mesh was modelled in "
                                          "(so the mesh rests undeformed without a clip), and each joint keeps the "
                                          "FrameList pose in extras.framePose");
  return true;
}

void dropClumpRootTurn(Skeleton& skeleton, uint32_t root, size_t frame, std::vector<glm::mat4>& frameWorld, Provenance& prov) {
  Bone& bone = skeleton.bones[root];
  const float angle = glm::degrees(2.0f * std::acos(std::min(1.0f, std::fabs(bone.rotation.w))));
  if (!(angle > kTurnTolerance)) return;
  // The axis to three decimals, without float noise or a negative zero in the message.
  glm::vec3 axis = glm::normalize(glm::vec3(bone.rotation.x, bone.rotation.y, bone.rotation.z) * (bone.rotation.w < 0.0f ? -1.0f : 1.0f));
  for (int k = 0; k < 3; ++k) axis[k] = std::round(axis[k] * 1000.0f) / 1000.0f + 0.0f;
  if (!bone.extras.is_object()) bone.extras = nlohmann::json::object();
  bone.extras["framePose"] = poseJson(bone);
  const glm::mat4 turned = frameWorld[root];
  bone.rotation = glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
  // Every bone under the root moves with it: world' = root' · inverse(root) · world.
  const glm::mat4 move = bone.localMatrix() * glm::inverse(turned);
  std::vector<bool> under(skeleton.bones.size(), false);
  for (size_t b = 0; b < skeleton.bones.size(); ++b) {
    const int32_t p = skeleton.bones[b].parent;
    under[b] = b == root || (p >= 0 && under[static_cast<size_t>(p)]);
    if (under[b]) frameWorld[b] = move * frameWorld[b];
  }
  prov.warn("clump-root-turn",
            fmt::format("frame {} '{}', the clump's own frame above the HAnim hierarchy, is turned {:.3g} degrees about "
                        "({:.3g}, {:.3g}, {:.3g}); the game replaces it with the ped's placement, so the turn is dropped "
                        "(kept in its extras.framePose) and clips play upright",
                        frame, bone.name, angle, axis.x, axis.y, axis.z));
}

}  // namespace rigport::renderware
