#include "core/validate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/finite_scan.hpp"

namespace rigport {
namespace {

// Whether an influence names a bone >= nb or has an unusable weight, in SSE2 lanes (finite_scan.hpp):
// it is a pass over every influence of every model read.
bool anyBadInfluence(const InfluenceList& influences, size_t nb) {
  const uint32_t bones = static_cast<uint32_t>(std::min<size_t>(nb, UINT32_MAX));
  return anyBadInfluence(influences.data(), influences.size(), bones, true) || nb > UINT32_MAX;
}

// `path()` names the key set; it is formatted only for an error (a clip package has tens of
// thousands of key sets, and formatting every path took most of validate()'s time on one).
template <class T, class Path>
Status checkKeys(const Keys<T>& keys, const Path& path) {
  if (keys.times.size() != keys.values.size()) {
    return invalidModel(path(), fmt::format("{} key times but {} values", keys.times.size(), keys.values.size()));
  }
  // A pass without early exit first (finite_scan.hpp), the first offender looked for only when there is one.
  if (anyNonFinite(keys.times)) {
    const auto k = std::find_if(keys.times.begin(), keys.times.end(), [](float t) { return !std::isfinite(t); }) - keys.times.begin();
    return invalidModel(fmt::format("{}/times[{}]", path(), k), "key time is not finite");
  }
  // Tangents belong to CUBICSPLINE only (rig.hpp, Keys); elsewhere they would be dropped silently.
  const size_t tangents = keys.interpolation == Interpolation::CubicSpline ? keys.times.size() : 0;
  if (keys.inTangents.size() != tangents || keys.outTangents.size() != tangents) {
    return invalidModel(path(), fmt::format("{} in- and {} out-tangents for {} {} keys", keys.inTangents.size(), keys.outTangents.size(),
                                          keys.times.size(), keys.interpolation == Interpolation::CubicSpline ? "cubic-spline" : "step/linear"));
  }
  return Ok{};
}

// A morph weight track's arrays agree with its times and target count, and a bound one drives a
// mesh with that many targets.
Status checkMorphWeights(const Rig& rig, const MorphWeightTrack& track, const std::string& path) {
  if (track.meshIndex < -1 || (track.meshIndex >= 0 && static_cast<size_t>(track.meshIndex) >= rig.meshes.size())) {
    return invalidModel(path, fmt::format("track names mesh {} of {}", track.meshIndex, rig.meshes.size()));
  }
  if (track.meshIndex >= 0 && rig.meshes[static_cast<size_t>(track.meshIndex)].morphTargets.size() != track.targetCount) {
    return invalidModel(path, fmt::format("{} weights per key, but mesh '{}' has {} morph targets", track.targetCount,
                                          rig.meshes[static_cast<size_t>(track.meshIndex)].name,
                                          rig.meshes[static_cast<size_t>(track.meshIndex)].morphTargets.size()));
  }
  const size_t n = track.times.size() * track.targetCount;
  const size_t tangents = track.interpolation == Interpolation::CubicSpline ? n : 0;
  if (track.weights.size() != n || track.inTangents.size() != tangents || track.outTangents.size() != tangents) {
    return invalidModel(path, fmt::format("{} weights, {} in- and {} out-tangents for {} keys of {} targets", track.weights.size(),
                                          track.inTangents.size(), track.outTangents.size(), track.times.size(), track.targetCount));
  }
  if (anyNonFinite(track.times)) return invalidModel(path + "/times", "a key time is not finite");
  return Ok{};
}

// Extras are merged into glTF objects (core/rig.hpp), so anything but null or an object is a bug.
// `path()` names the object, formatted only for an error, as checkKeys' (a package's rig is
// validated once per clip, and formatting each bone's path was half of validate()'s time on one).
template <class Path>
Status checkExtras(const nlohmann::json& extras, const Path& path) {
  if (extras.is_null() || extras.is_object()) return Ok{};
  return invalidModel(path() + "/extras", fmt::format("extras are a JSON {}, not an object", extras.type_name()));
}

// checkExtras' paths: a name, or element i of a list ("list[i]").
auto named(const char* name) {
  return [name] { return std::string(name); };
}
auto element(const char* list, size_t i) {
  return [list, i] { return fmt::format("{}[{}]", list, i); };
}

// Every bound texture exists and its first level holds width x height RGBA pixels.
Status checkTextures(const Rig& rig) {
  for (size_t m = 0; m < rig.materials.size(); ++m) {
    const auto t = rig.materials[m].baseColorTexture;
    if (t && *t >= rig.textures.size()) return invalidModel(fmt::format("materials[{}]/baseColorTexture", m), fmt::format("texture {} of {}", *t, rig.textures.size()));
    const auto n = rig.materials[m].normalTexture;
    if (n && *n >= rig.textures.size()) return invalidModel(fmt::format("materials[{}]/normalTexture", m), fmt::format("texture {} of {}", *n, rig.textures.size()));
  }
  for (size_t t = 0; t < rig.textures.size(); ++t) {
    const std::vector<ImageLevel>& levels = rig.textures[t].image.levels;
    if (levels.empty()) return invalidModel(fmt::format("textures[{}]", t), "an image without levels");
    const ImageLevel& l = levels.front();
    if (l.width == 0 || l.height == 0 || l.rgba.size() != size_t{l.width} * l.height * 4) {
      return invalidModel(fmt::format("textures[{}]/levels[0]", t), fmt::format("{}x{} pixels in {} bytes", l.width, l.height, l.rgba.size()));
    }
  }
  return Ok{};
}

// validateMesh() of `mesh`, mesh m of `rig` or the mesh read in its place.
Status checkMesh(const Rig& rig, const Mesh& mesh, size_t m, MeshChecks checks) {
  const size_t nb = rig.skeleton.bones.size();
  const size_t nv = mesh.positions.size();
  const std::string mp = fmt::format("meshes[{}]", m);
  if (!mesh.normals.empty() && mesh.normals.size() != nv) return invalidModel(mp, "normal count differs from vertex count");
  if (!mesh.uvs.empty() && mesh.uvs.size() != nv) return invalidModel(mp, "UV count differs from vertex count");
  if (mesh.indices.size() % 3 != 0) return invalidModel(mp, "index count is not a multiple of 3");
  const bool everyElement = checks == MeshChecks::Every;
  // Each per-element check is a pass without early exit (cheap on a valid model, which is every
  // model a reader returns), then a search for the first offender only when there is one.
  if (everyElement && !mesh.indices.empty()) {
    uint32_t largestIndex = 0;
    for (uint32_t i : mesh.indices) largestIndex = std::max(largestIndex, i);
    if (largestIndex >= nv) {
      const size_t i = static_cast<size_t>(std::find_if(mesh.indices.begin(), mesh.indices.end(), [&](uint32_t x) { return x >= nv; }) -
                                           mesh.indices.begin());
      return invalidModel(fmt::format("{}/indices[{}]", mp, i), fmt::format("index {} >= {} vertices", mesh.indices[i], nv));
    }
  }
  // Parts tile the index list in order, so every triangle has exactly one material.
  uint64_t covered = 0;
  for (size_t k = 0; k < mesh.parts.size(); ++k) {
    const MeshPart& part = mesh.parts[k];
    const std::string pp = fmt::format("{}/parts[{}]", mp, k);
    if (part.material >= rig.materials.size()) return invalidModel(pp, fmt::format("material {} of {}", part.material, rig.materials.size()));
    if (part.firstIndex != covered || part.indexCount % 3 != 0) {
      return invalidModel(pp, fmt::format("indices [{}, +{}) do not continue the previous part at {} in whole triangles",
                                          part.firstIndex, part.indexCount, covered));
    }
    covered += part.indexCount;
  }
  if (!mesh.parts.empty() && covered != mesh.indices.size()) {
    return invalidModel(mp, fmt::format("parts cover {} of {} indices", covered, mesh.indices.size()));
  }
  if (!mesh.morphWeights.empty() && mesh.morphWeights.size() != mesh.morphTargets.size()) {
    return invalidModel(mp, fmt::format("{} default morph weights for {} targets", mesh.morphWeights.size(), mesh.morphTargets.size()));
  }
  for (size_t t = 0; t < mesh.morphTargets.size(); ++t) {
    const MorphTarget& target = mesh.morphTargets[t];
    const std::string tp = fmt::format("{}/morphTargets[{}]", mp, t);
    if (target.positionDeltas.size() != nv) return invalidModel(tp, fmt::format("{} position deltas for {} vertices", target.positionDeltas.size(), nv));
    if (!target.normalDeltas.empty() && target.normalDeltas.size() != nv) {
      return invalidModel(tp, fmt::format("{} normal deltas for {} vertices", target.normalDeltas.size(), nv));
    }
    // repairRig() replaces deltas that are not finite, as it does positions.
    if (everyElement && (anyNonFinite(target.positionDeltas) || anyNonFinite(target.normalDeltas))) return invalidModel(tp, "a delta is not finite");
  }
  if (mesh.attachBone < -1 || (mesh.attachBone >= 0 && static_cast<size_t>(mesh.attachBone) >= nb)) {
    return invalidModel(mp, fmt::format("attached to bone {} of {}", mesh.attachBone, nb));
  }
  if (!mesh.skinned()) return Ok{};
  if (mesh.influenceOffsets.size() != nv + 1 || mesh.influenceOffsets.front() != 0 ||
      mesh.influenceOffsets.back() != mesh.influences.size()) {
    return invalidModel(mp, "influence offsets do not cover the vertices and influences");
  }
  if (!everyElement) return Ok{};
  uint32_t decreasing = 0;
  const uint32_t* offsets = mesh.influenceOffsets.data();
  for (size_t v = 0; v < nv; ++v) decreasing |= static_cast<uint32_t>(offsets[v] > offsets[v + 1]);
  if (decreasing != 0) {
    for (size_t v = 0; v < nv; ++v) {
      if (mesh.influenceOffsets[v] > mesh.influenceOffsets[v + 1]) return invalidModel(fmt::format("{}/vertex[{}]", mp, v), "influence offsets decrease");
    }
  }
  bool anyBad = anyBadInfluence(mesh.influences, nb);
  for (size_t i = 0; anyBad && i < mesh.influences.size(); ++i) {
    const Influence& inf = mesh.influences[i];
    if (inf.bone >= nb) return invalidModel(fmt::format("{}/influences[{}]", mp, i), fmt::format("bone {} of {}", inf.bone, nb));
    if (!std::isfinite(inf.weight) || inf.weight < 0.0f) {
      return invalidModel(fmt::format("{}/influences[{}]", mp, i), fmt::format("weight {} is negative or not finite", inf.weight));
    }
  }
  return Ok{};
}

}  // namespace

Status validateMesh(const Rig& rig, size_t m, MeshChecks checks) { return checkMesh(rig, rig.meshes[m], m, checks); }

bool unitRotation(const glm::quat& q) {
  const float length = glm::length(glm::vec4(q.x, q.y, q.z, q.w));
  return std::isfinite(length) && std::fabs(length - 1.0f) <= 1e-3f;
}

Status validateAnimation(const Rig& rig, const Animation& anim, size_t a) {
  const size_t nb = rig.skeleton.bones.size();
  RP_CHECK(checkExtras(anim.extras, element("animations", a)));
  for (size_t t = 0; t < anim.tracks.size(); ++t) {
    const BoneTrack& tr = anim.tracks[t];
    const auto at = [a, t](const char* channel) { return [a, t, channel] { return fmt::format("animations[{}]/tracks[{}]{}", a, t, channel); }; };
    if (tr.bone < -1 || (tr.bone >= 0 && static_cast<size_t>(tr.bone) >= nb)) {
      return invalidModel(at("")(), fmt::format("track names bone {} of {}", tr.bone, nb));
    }
    RP_CHECK(checkKeys(tr.translation, at("/translation")));
    RP_CHECK(checkKeys(tr.rotation, at("/rotation")));
    RP_CHECK(checkKeys(tr.scale, at("/scale")));
  }
  for (size_t s = 0; s < anim.scalars.size(); ++s) {
    RP_CHECK(checkKeys(anim.scalars[s].keys, [a, s] { return fmt::format("animations[{}]/scalars[{}]", a, s); }));
  }
  for (size_t w = 0; w < anim.morphWeights.size(); ++w) RP_CHECK(checkMorphWeights(rig, anim.morphWeights[w], fmt::format("animations[{}]/morphWeights[{}]", a, w)));
  return Ok{};
}

Status validate(const Rig& rig, MeshChecks meshes, AnimationChecks animations) { return validate(rig, rig.meshes, meshes, animations); }

Status validate(const Rig& rig, const std::vector<Mesh>& meshes, MeshChecks checks, AnimationChecks animations) {
  const auto& bones = rig.skeleton.bones;
  RP_CHECK(checkExtras(rig.extras, named("rig")));
  RP_CHECK(checkExtras(rig.skeleton.extras, named("skeleton")));
  for (size_t m = 0; m < rig.materials.size(); ++m) RP_CHECK(checkExtras(rig.materials[m].extras, element("materials", m)));
  RP_CHECK(checkTextures(rig));
  const size_t nb = bones.size();
  for (size_t i = 0; i < nb; ++i) {
    const Bone& b = bones[i];
    RP_CHECK(checkExtras(b.extras, element("skeleton/bones", i)));
    if (b.parent < -1 || (b.parent >= 0 && static_cast<size_t>(b.parent) >= i)) {
      return invalidModel(fmt::format("skeleton/bones[{}]", i),
                     fmt::format("bone '{}' has parent {}; parents must precede their children", b.name, b.parent));
    }
    if (!unitRotation(b.rotation)) {
      const float q = glm::length(glm::vec4(b.rotation.x, b.rotation.y, b.rotation.z, b.rotation.w));
      return invalidModel(fmt::format("skeleton/bones[{}]", i), fmt::format("bone '{}' rotation has length {}", b.name, q));
    }
  }
  std::vector<bool> isJoint(nb, false);
  for (size_t j = 0; j < rig.skeleton.joints.size(); ++j) {
    const uint32_t bone = rig.skeleton.joints[j];
    if (bone >= nb) return invalidModel(fmt::format("skeleton/joints[{}]", j), fmt::format("joint names bone {} of {}", bone, nb));
    if (isJoint[bone]) {
      return invalidModel(fmt::format("skeleton/joints[{}]", j), fmt::format("bone '{}' is listed twice", bones[bone].name));
    }
    isJoint[bone] = true;
  }
  for (size_t m = 0; m < meshes.size(); ++m) RP_CHECK(checkMesh(rig, meshes[m], m, checks));
  if (animations == AnimationChecks::None) return Ok{};
  for (size_t a = 0; a < rig.animations.size(); ++a) RP_CHECK(validateAnimation(rig, rig.animations[a], a));
  return Ok{};
}

}  // namespace rigport
