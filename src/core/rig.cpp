#include "core/rig.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace rigport {

glm::mat4 Bone::localMatrix() const {
  return glm::translate(glm::mat4(1.0f), translation) * glm::mat4_cast(rotation) *
         glm::scale(glm::mat4(1.0f), scale);
}

std::vector<glm::mat4> Skeleton::worldBindMatrices() const {
  std::vector<glm::mat4> world(bones.size());
  for (size_t i = 0; i < bones.size(); ++i) {
    const glm::mat4 local = bones[i].localMatrix();
    const int32_t p = bones[i].parent;
    world[i] = (p >= 0 && static_cast<size_t>(p) < i) ? world[static_cast<size_t>(p)] * local : local;
  }
  return world;
}

bool allFinite(const glm::mat4& m) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      if (!std::isfinite(m[c][r])) return false;
  return true;
}

std::optional<glm::mat4> inverseOfBindPose(const glm::mat4& world) {
  // A determinant out of float's range leaves a NaN (its own cofactor times 1/det) and zeros or infinities.
  if (const glm::mat4 inverse = glm::inverse(world); allFinite(inverse)) return inverse;
  const glm::mat4 inverse(glm::inverse(glm::dmat4(world)));
  if (allFinite(inverse)) return inverse;
  return std::nullopt;
}

int32_t Skeleton::find(const std::string& name) const {
  for (size_t i = 0; i < bones.size(); ++i) {
    if (bones[i].name == name) return static_cast<int32_t>(i);
  }
  return -1;
}

std::vector<uint32_t> Skeleton::jointList() const {
  if (!joints.empty()) return joints;
  std::vector<uint32_t> all(bones.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint32_t>(i);
  return all;
}

size_t Mesh::maxInfluences() const {
  size_t best = 0;
  for (size_t v = 0; v + 1 < influenceOffsets.size(); ++v) {
    best = std::max<size_t>(best, influenceOffsets[v + 1] - influenceOffsets[v]);
  }
  return best;
}

size_t Animation::keyCount() const {
  size_t n = 0;
  for (const BoneTrack& t : tracks) n += t.translation.times.size() + t.rotation.times.size() + t.scale.times.size();
  for (const ScalarChannel& s : scalars) n += s.keys.times.size();
  return n;
}

void Provenance::warn(std::string code, std::string message, uint32_t times) {
  if (index_.size() != warnings.size()) {  // `warnings` was edited directly: rebuild the index
    index_.clear();
    for (size_t i = 0; i < warnings.size(); ++i) index_.emplace(warnings[i].code + '\n' + warnings[i].message, i);
  }
  std::string key = code + '\n' + message;
  if (auto it = index_.find(key); it != index_.end()) {
    warnings[it->second].count += times;
    return;
  }
  if (warnings.size() >= kMaxListedWarnings) {
    message = "further warnings of this kind are not listed";
    key = code + '\n' + message;
    if (auto it = index_.find(key); it != index_.end()) {
      warnings[it->second].count += times;
      return;
    }
  }
  index_.emplace(std::move(key), warnings.size());
  warnings.push_back(Warning{std::move(code), std::move(message), times});
}

size_t Provenance::warningCount() const {
  size_t n = 0;
  for (const Warning& w : warnings) n += w.count;
  return n;
}

void Provenance::absorb(const Provenance& other) {
  for (const Warning& w : other.warnings) warn(w.code, w.message, w.count);
}

size_t Rig::vertexCount() const {
  size_t n = 0;
  for (const Mesh& m : meshes) n += m.vertexCount();
  return n;
}

size_t Rig::maxInfluences() const {
  size_t n = 0;
  for (const Mesh& m : meshes) n = std::max(n, m.maxInfluences());
  return n;
}

}  // namespace rigport
