// Skeleton of a RenderModelData (rw4_arena.md §4.1, §9; walkthrough §3 "Bind pose").
#include "formats/rw4/bind_skeleton.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "core/decompose.hpp"

namespace rigport::rw4 {
namespace {

// Axis cosines of an unsheared float basis stay below ~1e-6; scale as written by tools is exact
// to a few ulps. Both tolerances only decide what is reported.
constexpr float kShearTolerance = 1e-4f;
constexpr float kScaleTolerance = 1e-4f;
constexpr size_t kNamed = 3;

// Collects up to kNamed bone names for one folded warning.
struct Report {
  size_t count = 0;
  float worst = 0.0f;
  std::string named;
  void add(const std::string& name, float amount) {
    if (count < kNamed) named += fmt::format("{}'{}'", count == 0 ? "" : ", ", name);
    worst = std::max(worst, amount);
    ++count;
  }
  std::string list() const { return named + (count > kNamed ? fmt::format(" and {} more", count - kNamed) : ""); }
};

std::vector<int32_t> manifestParents(const ModelData& md, const BoneParentMap& manifest, Provenance& prov) {
  const size_t n = md.boneNames.size();
  std::unordered_map<std::string, int32_t> byName;
  Report duplicate, missing, unknownParent;
  for (size_t b = 0; b < n; ++b) {
    if (!byName.emplace(md.boneNames[b], static_cast<int32_t>(b)).second) duplicate.add(md.boneNames[b], 0);
  }
  std::vector<int32_t> parent(n, -1);
  for (size_t b = 0; b < n; ++b) {
    const auto it = manifest.find(md.boneNames[b]);
    if (it == manifest.end()) {
      missing.add(md.boneNames[b], 0);
      continue;
    }
    if (it->second.empty()) continue;
    const auto p = byName.find(it->second);
    if (p == byName.end()) {
      unknownParent.add(md.boneNames[b], 0);
      continue;
    }
    parent[b] = p->second;
  }
  if (duplicate.count > 0) {
    prov.warn("rw4-duplicate-bone", fmt::format("{} bone name(s) occur twice ({}); the manifest's parents name the first", duplicate.count,
                                                duplicate.list()));
  }
  if (missing.count > 0) {
    prov.warn("rw4-hierarchy", fmt::format("{} bone(s) are not in the hierarchy manifest ({}); they are roots", missing.count,
                                           missing.list()));
  }
  if (unknownParent.count > 0) {
    prov.warn("rw4-hierarchy", fmt::format("{} bone(s) have a parent the arena does not hold ({}); they are roots",
                                           unknownParent.count, unknownParent.list()));
  }
  return parent;
}

}  // namespace


Result<std::vector<uint32_t>> buildSkeleton(const ModelData& md, const ParentSource& src, Rig& rig) {
  const size_t n = md.boneNames.size();
  Provenance& prov = rig.provenance;
  std::vector<int32_t> parent(n, -1);
  const char* from = "the hierarchy manifest";
  if (src.manifest != nullptr) {
    parent = manifestParents(md, *src.manifest, prov);
  } else if (src.skeletonObject && src.skeletonObject->size() == n) {
    from = "the RW Skeleton object";
    size_t bad = 0;
    for (size_t b = 0; b < n; ++b) {
      const int32_t p = (*src.skeletonObject)[b];
      const bool ok = p >= -1 && p < static_cast<int32_t>(n) && p != static_cast<int32_t>(b);
      parent[b] = ok ? p : -1;
      bad += ok ? 0 : 1;
    }
    if (bad > 0) prov.warn("rw4-hierarchy", fmt::format("{} parent index(es) of the RW Skeleton object name no bone; those bones are roots", bad));
  } else {
    for (size_t b = 1; b < n; ++b) parent[b] = 0;
    if (n > 1) {
      prov.warn("rw4-no-hierarchy", fmt::format("the arena stores no bone parents (RenderModelData row {}): all {} bones hang "
                                                "under the first, '{}'; give the real tree with --hierarchy FILE "
                                                "(docs/hierarchy_manifest.md)",
                                                md.index, n - 1, md.boneNames[0]));
    }
  }

  // Parents first, otherwise in file order: walk each bone's unplaced ancestors and place them top down.
  std::vector<uint8_t> state(n, 0);  // 0 unplaced, 1 on the current chain, 2 placed
  std::vector<uint32_t> order, chain;
  order.reserve(n);
  for (size_t b = 0; b < n; ++b) {
    chain.clear();
    int32_t cur = static_cast<int32_t>(b);
    while (cur >= 0 && state[static_cast<size_t>(cur)] == 0) {
      state[static_cast<size_t>(cur)] = 1;
      chain.push_back(static_cast<uint32_t>(cur));
      cur = parent[static_cast<size_t>(cur)];
    }
    if (cur >= 0 && state[static_cast<size_t>(cur)] == 1) {
      Error e = makeError(ErrorCode::BadValue, fmt::format("{} makes a cycle of parents through bone '{}'", from,
                                                           md.boneNames[static_cast<size_t>(cur)]));
      e.path = "hierarchy";
      return e;
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      order.push_back(*it);
      state[*it] = 2;
    }
  }
  std::vector<uint32_t> fileToRig(n);
  for (size_t i = 0; i < n; ++i) fileToRig[order[i]] = static_cast<uint32_t>(i);

  // Bind pose: world = inverse(IBM); local = inverse(parent world) · world.
  std::vector<glm::mat4> world(n);
  Report singular, scaled, sheared;
  Skeleton& sk = rig.skeleton;
  sk.bones.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t fb = order[i];
    Bone& bone = sk.bones[i];
    bone.name = md.boneNames[fb];
    bone.parent = parent[fb] >= 0 ? static_cast<int32_t>(fileToRig[static_cast<size_t>(parent[fb])]) : -1;
    bone.inverseBind = md.inverseBind[fb];
    const glm::mat4 parentWorld = bone.parent >= 0 ? world[static_cast<size_t>(bone.parent)] : glm::mat4(1.0f);
    const float det = glm::determinant(md.inverseBind[fb]);
    if (!std::isfinite(det) || std::fabs(det) < 1e-12f) {
      singular.add(bone.name, 0);
      world[i] = parentWorld;  // the bone sits on its parent; its stored IBM is kept for skinning
      continue;
    }
    world[i] = glm::inverse(md.inverseBind[fb]);
    const float shear = decomposeTrs(glm::inverse(parentWorld) * world[i], bone);
    if (shear > kShearTolerance) sheared.add(bone.name, shear);
    const float scaleOff = glm::length(glm::abs(bone.scale) - glm::vec3(1.0f));
    if (scaleOff > kScaleTolerance) scaled.add(bone.name, scaleOff);
  }
  if (singular.count > 0) {
    prov.warn("rw4-singular-bind", fmt::format("{} inverse bind matrix(es) cannot be inverted ({}): those bones rest on their "
                                               "parent, their matrices are kept for skinning",
                                               singular.count, singular.list()));
  }
  if (scaled.count > 0) {
    prov.warn("rw4-bind-scale", fmt::format("{} bone(s) have a scaled bind pose ({}; |scale - 1| up to {:.3g}); kept as node scale",
                                            scaled.count, scaled.list(), scaled.worst));
  }
  if (sheared.count > 0) {
    prov.warn("rw4-bind-shear", fmt::format("{} bone(s) have a sheared bind pose ({}; axis cosines up to {:.3g}); glTF nodes hold "
                                            "no shear, so the nodes drop it while the inverse bind matrices stay the file's own",
                                            sheared.count, sheared.list(), sheared.worst));
  }
  sk.joints.assign(fileToRig.begin(), fileToRig.end());
  return fileToRig;
}

}  // namespace rigport::rw4
