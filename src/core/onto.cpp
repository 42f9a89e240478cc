#include "core/onto.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

namespace rigport {
namespace {

// How many bones bear each name.
std::unordered_map<std::string, uint32_t> nameCounts(const Skeleton& skeleton) {
  std::unordered_map<std::string, uint32_t> out;
  for (const Bone& b : skeleton.bones) ++out[b.name];
  return out;
}

std::string nameOrNothing(const Skeleton& skeleton, int32_t bone) { return bone < 0 ? "nothing" : skeleton.bones[static_cast<size_t>(bone)].name; }

// Names both sides hold once match by name. The bones left (a renamed bone, or names that repeat)
// pair among themselves, parents first: each takes, of the rig's bones left under the bone its
// parent matched, the one nearest its rest translation (a rename keeps a bone's place and rest
// pose, and Blender may list renamed siblings in another order), else the next left in order (the
// parent check then refuses a bone replaced, not renamed).
std::vector<uint32_t> pairBones(const Skeleton& base, const Skeleton& rig) {
  const auto inBase = nameCounts(base);
  const auto inRig = nameCounts(rig);
  auto unique = [&](const std::string& name) {
    const auto b = inBase.find(name);
    const auto r = inRig.find(name);
    return b != inBase.end() && r != inRig.end() && b->second == 1 && r->second == 1;
  };
  std::unordered_map<std::string, uint32_t> rigByName;
  std::vector<uint32_t> rigLeft;
  for (size_t i = 0; i < rig.bones.size(); ++i) {
    if (unique(rig.bones[i].name)) {
      rigByName.emplace(rig.bones[i].name, static_cast<uint32_t>(i));
    } else {
      rigLeft.push_back(static_cast<uint32_t>(i));
    }
  }
  std::vector<uint32_t> match(base.bones.size());
  std::vector<bool> taken(rig.bones.size(), false);
  for (size_t i = 0; i < base.bones.size(); ++i) {
    const Bone& bone = base.bones[i];
    if (const auto it = rigByName.find(bone.name); it != rigByName.end()) {
      match[i] = it->second;
      continue;
    }
    const int32_t parent = bone.parent < 0 ? -1 : static_cast<int32_t>(match[static_cast<size_t>(bone.parent)]);
    std::optional<uint32_t> pick;
    float nearest = 0.0f;
    for (const uint32_t r : rigLeft) {
      if (taken[r] || rig.bones[r].parent != parent) continue;
      const float d = glm::length(rig.bones[r].translation - bone.translation);
      if (!pick || d < nearest) pick = r, nearest = d;
    }
    if (!pick) pick = *std::find_if(rigLeft.begin(), rigLeft.end(), [&](uint32_t r) { return !taken[r]; });
    match[i] = *pick;
    taken[*pick] = true;
  }
  return match;
}

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
  const std::vector<uint32_t> match = pairBones(base, rig);
  for (size_t i = 0; i < base.bones.size(); ++i) {
    const int32_t was = base.bones[i].parent;
    const int32_t now = rig.bones[match[i]].parent;
    if (was < 0 ? now < 0 : now == static_cast<int32_t>(match[static_cast<size_t>(was)])) continue;
    const std::string& name = rig.bones[match[i]].name;
    const std::string which = name == base.bones[i].name ? fmt::format("bone '{}'", name)
                                                         : fmt::format("the original's bone '{}' is not in the rig by name, and the rig's "
                                                                       "bone in its place, '{}',",
                                                                       base.bones[i].name, name);
    return refuse(store.bonePaths[i] + "/parent", fmt::format("{} hangs under '{}' in the rig, under '{}' in the original; --base keeps "
                                                              "the original's hierarchy ({})",
                                                              which, nameOrNothing(rig, now), nameOrNothing(base, was), store.hierarchy));
  }
  const auto inRig = nameCounts(rig);
  for (size_t i = 0; i < base.bones.size(); ++i) {
    const std::string& now = rig.bones[match[i]].name;
    if (now == base.bones[i].name) continue;
    if (inRig.at(now) > 1) {
      return refuse(store.bonePaths[i] + store.nameField,
                    fmt::format("bone '{}' is renamed '{}' in the rig, the name of another bone too; --base gives each bone its own name",
                                base.bones[i].name, now));
    }
    if (!store.noRenames.empty()) {
      return refuse(store.bonePaths[i] + store.nameField,
                    fmt::format("bone '{}' is renamed '{}' in the rig; {}, so --base cannot write a new name", base.bones[i].name, now, store.noRenames));
    }
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
