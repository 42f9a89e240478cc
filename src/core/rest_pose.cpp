#include "core/rest_pose.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/key_sample.hpp"
#include "core/track_space.hpp"

namespace rigport {
namespace {

bool sameWithoutCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool finite(const glm::vec3& p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); }

// Joint world × inverse bind of every bone: where the rest pose takes a point of the bind space.
// A bone whose bind pose has no inverse moves nothing (identity).
std::vector<glm::mat4> skinMatrices(const Skeleton& skeleton, const std::vector<glm::mat4>& world) {
  std::vector<glm::mat4> skin(world.size(), glm::mat4(1.0f));
  for (size_t b = 0; b < world.size(); ++b) {
    const Bone& bone = skeleton.bones[b];
    if (const std::optional<glm::mat4> ibm = bone.inverseBind ? bone.inverseBind : inverseOfBindPose(world[b])) skin[b] = world[b] * *ibm;
  }
  return skin;
}

// Vertex v as the rest pose shows it (the exporter's skinning: weights over their sum).
glm::vec3 posedVertex(const Mesh& mesh, size_t v, const std::vector<glm::mat4>& skin, const std::vector<glm::mat4>& world) {
  const glm::vec4 p(mesh.positions[v], 1.0f);
  if (!mesh.skinned()) {
    const size_t bone = static_cast<size_t>(mesh.attachBone);
    return mesh.attachBone >= 0 && bone < world.size() ? glm::vec3(world[bone] * p) : mesh.positions[v];
  }
  glm::vec3 sum(0.0f);
  float weights = 0.0f;
  for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1] && i < mesh.influences.size(); ++i) {
    const Influence& inf = mesh.influences[i];
    if (inf.bone >= skin.size()) continue;
    sum += inf.weight * glm::vec3(skin[inf.bone] * p);
    weights += inf.weight;
  }
  return weights > 0.0f ? sum / weights : mesh.positions[v];
}

}  // namespace

std::optional<size_t> findClip(const Rig& rig, std::string_view name) {
  for (size_t a = 0; a < rig.animations.size(); ++a) {
    if (sameWithoutCase(rig.animations[a].name, name)) return a;
  }
  return std::nullopt;
}

void restPoseFromClip(Rig& rig, size_t clip, float seconds) {
  Skeleton& skeleton = rig.skeleton;
  const std::vector<glm::mat4> world = skeleton.worldBindMatrices();
  for (uint32_t j : skeleton.jointList()) {
    Bone& bone = skeleton.bones[j];
    if (!bone.inverseBind) bone.inverseBind = inverseOfBindPose(world[j]);
  }
  // Tracks relative to the bind pose mean the old one: every clip is made absolute before it moves.
  for (Animation& anim : rig.animations) makeAbsolute(anim, skeleton);
  for (const BoneTrack& track : rig.animations[clip].tracks) {
    if (track.bone < 0 || static_cast<size_t>(track.bone) >= skeleton.bones.size()) continue;
    Bone& bone = skeleton.bones[static_cast<size_t>(track.bone)];
    bone.translation = sampleKeys(track.translation, seconds, bone.translation);
    bone.rotation = sampleKeys(track.rotation, seconds, bone.rotation);
    bone.scale = sampleKeys(track.scale, seconds, bone.scale);
  }
  if (!rig.extras.is_object()) rig.extras = nlohmann::json::object();
  rig.extras["restPose"] = {{"clip", rig.animations[clip].name}, {"seconds", seconds}};
}

std::optional<RestBounds> restPoseBounds(const Rig& rig) {
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  const std::vector<glm::mat4> skin = skinMatrices(rig.skeleton, world);
  constexpr float kMax = std::numeric_limits<float>::max();
  RestBounds bounds{glm::vec3(kMax), glm::vec3(-kMax)};
  bool any = false;
  auto grow = [&](const glm::vec3& p) {
    if (!finite(p)) return;
    bounds.lo = glm::min(bounds.lo, p);
    bounds.hi = glm::max(bounds.hi, p);
    any = true;
  };
  for (const Mesh& mesh : rig.meshes) {
    for (size_t v = 0; v < mesh.vertexCount(); ++v) grow(posedVertex(mesh, v, skin, world));
  }
  if (!any) {
    for (const glm::mat4& w : world) grow(glm::vec3(w[3]));
  }
  if (!any) return std::nullopt;
  return bounds;
}

Stance stanceOf(const RestBounds& bounds, const AxisSystem& axes) {
  const glm::vec3 size = bounds.hi - bounds.lo;
  if (axes.up == AxisSystem::Up::Z) return Stance{size.z, std::max(size.x, size.y)};
  return Stance{size.y, std::max(size.x, size.z)};
}

}  // namespace rigport
