#include "core/onto.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

namespace rigport {
namespace {

// Each name's bone, or nothing where a name repeats (a position is all that tells such bones apart).
std::optional<std::unordered_map<std::string, uint32_t>> bonesByName(const Skeleton& skeleton) {
  std::unordered_map<std::string, uint32_t> out;
  for (size_t i = 0; i < skeleton.bones.size(); ++i) {
    if (!out.emplace(skeleton.bones[i].name, static_cast<uint32_t>(i)).second) return std::nullopt;
  }
  return out;
}

std::string nameOrNothing(const Skeleton& skeleton, int32_t bone) { return bone < 0 ? "nothing" : skeleton.bones[static_cast<size_t>(bone)].name; }

}  // namespace

Error refuse(std::string path, std::string message) {
  Error e = makeError(ErrorCode::Usage, std::move(message));
  e.path = std::move(path);
  return e;
}

Result<std::vector<uint32_t>> matchBones(const Skeleton& base, const Skeleton& rig, const BoneStore& store) {
  if (rig.bones.size() != base.bones.size()) {
    return refuse(store.countPath, fmt::format("the rig has {} bones, the original {}; --base writes onto the original's {} and cannot add or "
                                               "remove one: convert without --base for a new {}",
                                               rig.bones.size(), base.bones.size(), store.records, store.newFile));
  }
  std::vector<uint32_t> match(base.bones.size());
  const auto rigByName = bonesByName(rig);
  const bool byName = rigByName && bonesByName(base);
  for (size_t i = 0; i < base.bones.size(); ++i) {
    match[i] = static_cast<uint32_t>(i);
    if (!byName) continue;
    const auto it = rigByName->find(base.bones[i].name);
    if (it == rigByName->end()) {
      return refuse(store.bonePaths[i] + store.nameField,
                    fmt::format("the original's bone '{}' is not in the rig (renamed or replaced?); --base keeps {}", base.bones[i].name, store.names));
    }
    match[i] = it->second;
  }
  for (size_t i = 0; i < base.bones.size(); ++i) {
    const int32_t was = base.bones[i].parent;
    const int32_t now = rig.bones[match[i]].parent;
    if (was < 0 ? now < 0 : now == static_cast<int32_t>(match[static_cast<size_t>(was)])) continue;
    return refuse(store.bonePaths[i] + "/parent", fmt::format("bone '{}' hangs under '{}' in the rig, under '{}' in the original; --base keeps "
                                                              "the original's hierarchy ({})",
                                                              base.bones[i].name, nameOrNothing(rig, now), nameOrNothing(base, was), store.hierarchy));
  }
  return match;
}

float largestCoordinate(const Rig& rig) {
  float largest = 1.0f;
  auto take = [&](const glm::vec3& p) { largest = std::max({largest, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)}); };
  for (const glm::mat4& m : rig.skeleton.worldBindMatrices()) take(glm::vec3(m[3]));
  for (const Mesh& mesh : rig.meshes)
    for (const glm::vec3& p : mesh.positions) take(p);
  return largest;
}

}  // namespace rigport
