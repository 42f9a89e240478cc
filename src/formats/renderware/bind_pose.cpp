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

// Replaces each joint's TRS by its bind pose: world = atomic LTM · inverse(invMat), local relative
// to the parent's new world; other bones keep their local TRS and follow their parent.
void adoptBindPose(Rig& rig, const glm::mat4& atomicWorld, const std::vector<uint32_t>& nodeBones,
                   const std::vector<glm::mat4>& inverseMatrices) {
  auto& bones = rig.skeleton.bones;
  std::vector<int64_t> nodeOfBone(bones.size(), -1);
  for (size_t n = 0; n < std::min(nodeBones.size(), inverseMatrices.size()); ++n) nodeOfBone[nodeBones[n]] = static_cast<int64_t>(n);
  std::vector<glm::mat4> world(bones.size());
  for (size_t b = 0; b < bones.size(); ++b) {
    Bone& bone = bones[b];
    const glm::mat4 parentWorld = bone.parent >= 0 ? world[static_cast<size_t>(bone.parent)] : glm::mat4(1.0f);
    if (nodeOfBone[b] < 0) {
      world[b] = parentWorld * bone.localMatrix();
      continue;
    }
    world[b] = atomicWorld * glm::inverse(inverseMatrices[static_cast<size_t>(nodeOfBone[b])]);
    Bone bind = bone;
    decomposeTrs(glm::inverse(parentWorld) * world[b], bind);
    if (!std::isfinite(glm::length(bind.translation)) || !std::isfinite(glm::length(bind.scale))) {
      world[b] = parentWorld * bone.localMatrix();  // a singular skin matrix: this bone keeps its frame
      continue;
    }
    if (!bone.extras.is_object()) bone.extras = nlohmann::json::object();
    bone.extras["framePose"] = poseJson(bone);
    bone.translation = bind.translation;
    bone.rotation = bind.rotation;
    bone.scale = bind.scale;
  }
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

bool chooseRestPose(Rig& rig, uint32_t atomicBone, const std::vector<uint32_t>& nodeBones,
                    const std::vector<glm::mat4>& inverseMatrices, const std::vector<glm::mat4>& frameWorld,
                    size_t atomicIndex, bool adopt) {
  const size_t n = std::min(inverseMatrices.size(), nodeBones.size());
  if (n == 0) return false;
  const glm::mat4 toAtomic = glm::inverse(frameWorld[atomicBone]);
  float worst = 0.0f;
  size_t worstNode = 0;
  for (size_t i = 0; i < n; ++i) {
    const glm::mat4 m = toAtomic * frameWorld[nodeBones[i]] * inverseMatrices[i];
    for (int c = 0; c < 4; ++c) {
      for (int k = 0; k < 4; ++k) {
        const float err = std::fabs(m[c][k] - (c == k ? 1.0f : 0.0f));
        if (!(err <= worst)) {  // also catches NaN
          worst = err;
          worstNode = i;
        }
      }
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
  adoptBindPose(rig, frameWorld[atomicBone], nodeBones, inverseMatrices);
  rig.provenance.warn("bind-pose", what + "; the rest pose is the skin's bind pose, the pose the mesh was modelled in "
                                          "(so it stands as modelled without a clip), and each joint keeps the "
                                          "FrameList pose in extras.framePose");
  return true;
}

}  // namespace rigport::renderware
