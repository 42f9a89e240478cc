#include "core/repair.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/finite_scan.hpp"

namespace rigport {
namespace {

constexpr size_t kListedIndices = 5;

bool finite(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
bool finite(const glm::vec2& v) { return std::isfinite(v.x) && std::isfinite(v.y); }
bool usable(float weight) { return std::isfinite(weight) && weight >= 0.0f; }

// "first: 3, 9, 12" (at most kListedIndices of them).
std::string firstIndices(const std::vector<size_t>& indices) {
  std::string out = "first: ";
  for (size_t i = 0; i < std::min(indices.size(), kListedIndices); ++i) out += fmt::format("{}{}", i == 0 ? "" : ", ", indices[i]);
  return out;
}

Error notRepaired(std::string path, const std::string& what) {
  return invalidModel(std::move(path), what + " (strict: not repaired)");
}

// Where each bone sits at bind time in mesh space: the inverse of its inverse bind matrix, or of
// its world bind pose when it has none.
std::vector<glm::vec3> bindPositions(const Skeleton& skeleton) {
  const std::vector<glm::mat4> world = skeleton.worldBindMatrices();
  std::vector<glm::vec3> out(world.size());
  for (size_t b = 0; b < world.size(); ++b) {
    const glm::mat4 bind = skeleton.bones[b].inverseBind ? glm::inverse(*skeleton.bones[b].inverseBind) : world[b];
    out[b] = finite(glm::vec3(bind[3])) ? glm::vec3(bind[3]) : glm::vec3(0.0f);
  }
  return out;
}

// The bone with the largest usable weight on vertex v, or -1.
int64_t heaviestBone(const Mesh& mesh, size_t v) {
  if (v + 1 >= mesh.influenceOffsets.size()) return -1;  // not skinned (validate() checks the offsets)
  int64_t best = -1;
  float weight = 0.0f;
  for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1] && i < mesh.influences.size(); ++i) {
    const Influence& inf = mesh.influences[i];
    if (usable(inf.weight) && inf.weight > weight) {
      weight = inf.weight;
      best = inf.bone;
    }
  }
  return best;
}

Status repairPositions(Rig& rig, Mesh& mesh, size_t m, const std::vector<glm::vec3>& bindPos, bool strict) {
  if (!anyNonFinite(mesh.positions)) return Ok{};
  std::vector<size_t> damaged;
  for (size_t v = 0; v < mesh.positions.size(); ++v) {
    if (finite(mesh.positions[v])) continue;
    if (strict) return notRepaired(fmt::format("meshes[{}]/positions[{}]", m, v), "position is not finite");
    damaged.push_back(v);
  }
  if (damaged.empty()) return Ok{};
  std::vector<bool> isDamaged(mesh.positions.size(), false);
  for (size_t v : damaged) {
    isDamaged[v] = true;
    const int64_t bone = heaviestBone(mesh, v);
    const bool known = bone >= 0 && static_cast<size_t>(bone) < bindPos.size();
    mesh.positions[v] = known ? bindPos[static_cast<size_t>(bone)] : glm::vec3(0.0f);
  }
  // A triangle standing only on moved vertices would be a speck at a joint: dropped.
  std::vector<uint32_t> kept;
  kept.reserve(mesh.indices.size());
  std::vector<uint32_t> keptBefore{0};  // triangles kept before triangle t, for the parts' ranges
  for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
    const uint32_t* tri = &mesh.indices[t];
    auto moved = [&](uint32_t v) { return v < isDamaged.size() && isDamaged[v]; };  // validate() checks the range
    if (!(moved(tri[0]) && moved(tri[1]) && moved(tri[2]))) kept.insert(kept.end(), tri, tri + 3);
    keptBefore.push_back(static_cast<uint32_t>(kept.size() / 3));
  }
  for (MeshPart& part : mesh.parts) {
    const size_t first = std::min<size_t>(part.firstIndex / 3, keptBefore.size() - 1);
    const size_t end = std::min<size_t>((part.firstIndex + part.indexCount) / 3, keptBefore.size() - 1);
    part.firstIndex = keptBefore[first] * 3;
    part.indexCount = (keptBefore[end] - keptBefore[first]) * 3;
  }
  const size_t dropped = (mesh.indices.size() - kept.size()) / 3;
  mesh.indices = std::move(kept);
  rig.provenance.warn("repaired-position",
                      fmt::format("mesh {} '{}': {} vertex position(s) not finite ({}) moved to the bind position of "
                                  "the bone weighing each most; {} triangle(s) standing only on them dropped",
                                  m, mesh.name, damaged.size(), firstIndices(damaged), dropped));
  return Ok{};
}

template <class V>
Status repairAttribute(Rig& rig, std::vector<V>& values, size_t m, const char* name, const V& replacement,
                       const std::string& replacementText, bool strict) {
  if (!anyNonFinite(values)) return Ok{};
  std::vector<size_t> damaged;
  for (size_t v = 0; v < values.size(); ++v) {
    if (finite(values[v])) continue;
    if (strict) return notRepaired(fmt::format("meshes[{}]/{}s[{}]", m, name, v), fmt::format("{} is not finite", name));
    damaged.push_back(v);
    values[v] = replacement;
  }
  if (!damaged.empty()) {
    rig.provenance.warn(fmt::format("repaired-{}", name), fmt::format("mesh {}: {} {}(s) not finite ({}) set to {}", m,
                                                                      damaged.size(), name, firstIndices(damaged), replacementText));
  }
  return Ok{};
}

Status repairWeights(Rig& rig, Mesh& mesh, size_t m, bool strict) {
  if (!mesh.skinned()) return Ok{};
  // A pass that only looks (nearly every model has nothing to repair); the rebuild copies.
  uint32_t unusable = 0;
  for (const Influence& inf : mesh.influences) unusable |= unusableWeight(inf.weight);
  if (unusable == 0) return Ok{};
  std::vector<size_t> damaged;  // vertices that lost an influence
  InfluenceList kept;
  std::vector<uint32_t> offsets{0};
  kept.reserve(mesh.influences.size());
  for (size_t v = 0; v + 1 < mesh.influenceOffsets.size(); ++v) {
    for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1] && i < mesh.influences.size(); ++i) {
      if (usable(mesh.influences[i].weight)) {
        kept.push_back(mesh.influences[i]);
        continue;
      }
      if (strict) return notRepaired(fmt::format("meshes[{}]/influences[{}]", m, i), "weight is negative or not finite");
      if (damaged.empty() || damaged.back() != v) damaged.push_back(v);
    }
    offsets.push_back(static_cast<uint32_t>(kept.size()));
  }
  if (damaged.empty()) return Ok{};
  mesh.influences = std::move(kept);
  mesh.influenceOffsets = std::move(offsets);
  rig.provenance.warn("repaired-weight", fmt::format("mesh {}: {} vertex(es) with a negative or non-finite weight ({}); "
                                                     "those influences dropped", m, damaged.size(), firstIndices(damaged)));
  return Ok{};
}

template <class T>
void shift(Keys<T>& keys, float by) {
  for (float& t : keys.times) t += by;
}

// glTF times start at 0 (ACCESSOR_ANIMATION_INPUT_NEGATIVE): a clip starting before 0 is moved
// whole, so its keys keep their spacing and the other clips are untouched.
Status shiftNegativeTimes(Rig& rig, Animation& anim, size_t a, bool strict) {
  float first = std::numeric_limits<float>::infinity();
  auto see = [&](const std::vector<float>& times) {
    for (float t : times) first = std::min(first, t);
  };
  for (const BoneTrack& t : anim.tracks) {
    see(t.translation.times);
    see(t.rotation.times);
    see(t.scale.times);
  }
  for (const ScalarChannel& s : anim.scalars) see(s.keys.times);
  for (const Event& e : anim.events) first = std::min(first, e.time);
  if (!(first < 0.0f)) return Ok{};
  if (strict) return notRepaired(fmt::format("animations[{}]", a), fmt::format("animation '{}' starts at {} s, before 0", anim.name, first));
  const float by = -first;
  for (BoneTrack& t : anim.tracks) {
    shift(t.translation, by);
    shift(t.rotation, by);
    shift(t.scale, by);
  }
  for (ScalarChannel& s : anim.scalars) shift(s.keys, by);
  for (Event& e : anim.events) e.time += by;
  anim.duration += by;
  rig.provenance.warn("negative-key-time", fmt::format("animation '{}' starts at {} s; its keys were shifted by {} s to start at 0",
                                                       anim.name, first, by));
  return Ok{};
}

Status repairMeshAt(Rig& rig, size_t m, const std::vector<glm::vec3>& bindPos, bool strict) {
  Mesh& mesh = rig.meshes[m];
  const glm::vec3 up = rig.provenance.axes.up == AxisSystem::Up::Z ? glm::vec3(0, 0, 1) : glm::vec3(0, 1, 0);
  // Weights first: the position repair picks the heaviest usable influence.
  RP_CHECK(repairWeights(rig, mesh, m, strict));
  RP_CHECK(repairPositions(rig, mesh, m, bindPos, strict));
  RP_CHECK(repairAttribute(rig, mesh.normals, m, "normal", up, "the up axis", strict));
  RP_CHECK(repairAttribute(rig, mesh.uvs, m, "uv", glm::vec2(0.0f), "(0, 0)", strict));
  return Ok{};
}

}  // namespace

Status repairMesh(Rig& rig, size_t m, const RepairOptions& options) {
  return repairMeshAt(rig, m, bindPositions(rig.skeleton), options.strict);
}

Status repairRig(Rig& rig, const RepairOptions& options) {
  const std::vector<glm::vec3> bindPos = bindPositions(rig.skeleton);
  for (size_t m = 0; m < rig.meshes.size(); ++m) RP_CHECK(repairMeshAt(rig, m, bindPos, options.strict));
  for (size_t a = 0; a < rig.animations.size(); ++a) RP_CHECK(shiftNegativeTimes(rig, rig.animations[a], a, options.strict));
  return Ok{};
}

}  // namespace rigport
