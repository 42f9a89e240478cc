#include "core/repair.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "core/finite_scan.hpp"
#include "core/quat_lanes.hpp"
#include "core/validate.hpp"

namespace rigport {
namespace {

constexpr size_t kListedIndices = 5;

// The readers' warnings for a part dropped because it is damaged (issue 25: --strict accepted 103
// damaged packages that gave fewer clips than the clean one).
constexpr std::array<std::string_view, 22> kDroppedPartCodes{
    "resource-skipped", "name-map", "duplicate-curve", "unknown-event",                    // Sims 3
    "rw4-mesh-skipped", "rw4-mesh-table", "rw4-no-vertices", "rw4-index-range",              // RW4 meshes
    "rw4-palette-slot", "rw4-object-outside", "rw4-skeleton-object", "rw4-animation-skin",   // RW4 objects
    "rw4-keyframe-anim", "rw4-key-time",                                                     // RW4 clips
    "animation-skipped",                                                                     // glTF
    "skin-index", "texture-skipped",                                                         // RenderWare
    "joint-map", "bone-id", "duplicate-block", "duplicate-channel",                          // BattleForge
    "sluggers-skin-bone",                                                                    // Sluggers
};

bool finite(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
bool finite(const glm::vec2& v) { return std::isfinite(v.x) && std::isfinite(v.y); }
bool finite(float v) { return std::isfinite(v); }
bool finite(const glm::quat& q) { return std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w); }
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

// A morph target's delta that is not finite would move its vertex to infinity at any weight above
// zero: it becomes zero (the vertex stays at its base under that target), said once per mesh.
Status repairMorphDeltas(Rig& rig, Mesh& mesh, size_t m, bool strict) {
  std::vector<size_t> damaged;  // targets with a delta repaired
  for (size_t t = 0; t < mesh.morphTargets.size(); ++t) {
    MorphTarget& target = mesh.morphTargets[t];
    bool repaired = false;
    for (auto [deltas, name] : {std::pair{&target.positionDeltas, "positionDeltas"}, std::pair{&target.normalDeltas, "normalDeltas"}}) {
      if (!anyNonFinite(*deltas)) continue;
      for (size_t v = 0; v < deltas->size(); ++v) {
        if (finite((*deltas)[v])) continue;
        if (strict) return notRepaired(fmt::format("meshes[{}]/morphTargets[{}]/{}[{}]", m, t, name, v), "morph target delta is not finite");
        (*deltas)[v] = glm::vec3(0.0f);
        repaired = true;
      }
    }
    if (repaired) damaged.push_back(t);
  }
  if (!damaged.empty()) {
    rig.provenance.warn("repaired-morph-delta", fmt::format("mesh {} '{}': {} morph target(s) with deltas that are not finite ({}); those deltas set to 0",
                                                            m, mesh.name, damaged.size(), firstIndices(damaged)));
  }
  return Ok{};
}

// A normal of zero length (or too short to divide by: the exporter's 1e-12) has no direction, and
// glTF needs unit normals (ACCESSOR_NON_UNIT): it becomes the up axis, as the exporter would make it,
// but said. Real DFFs hold up to 52,335 of them. Runs after repairAttribute, so every normal is finite.
Status repairZeroNormals(Rig& rig, std::vector<glm::vec3>& normals, size_t m, const glm::vec3& up, bool strict) {
  // A pass that only looks, without early exit (it vectorises): nearly every model has none.
  uint32_t any = 0;
  for (const glm::vec3& n : normals) any |= static_cast<uint32_t>(!(glm::dot(n, n) > 1e-24f));
  if (any == 0) return Ok{};
  std::vector<size_t> zero;
  for (size_t v = 0; v < normals.size(); ++v) {
    if (glm::dot(normals[v], normals[v]) > 1e-24f) continue;
    if (strict) return notRepaired(fmt::format("meshes[{}]/normals[{}]", m, v), "normal has zero length");
    zero.push_back(v);
    normals[v] = up;
  }
  if (!zero.empty()) {
    rig.provenance.warn("repaired-normal", fmt::format("mesh {}: {} normal(s) of zero length ({}) set to the up axis", m, zero.size(),
                                                       firstIndices(zero)));
  }
  return Ok{};
}

Status repairWeights(Rig& rig, Mesh& mesh, size_t m, bool strict) {
  if (!mesh.skinned()) return Ok{};
  // A pass that only looks (nearly every model has nothing to repair); the rebuild copies.
  if (!anyBadInfluence(mesh.influences.data(), mesh.influences.size(), 0, false)) return Ok{};
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

// A rest pose glTF cannot carry (a NaN or infinite component, a rotation that is not a unit
// quaternion, an inverse bind matrix that is not finite) would cost the whole model at export.
Status repairBones(Rig& rig, bool strict) {
  std::vector<size_t> damaged;
  for (size_t i = 0; i < rig.skeleton.bones.size(); ++i) {
    Bone& b = rig.skeleton.bones[i];
    const bool inverseBindFinite = !b.inverseBind || allFinite(*b.inverseBind);
    if (finite(b.translation) && finite(b.scale) && unitRotation(b.rotation) && inverseBindFinite) continue;
    if (strict) {
      return notRepaired(fmt::format("skeleton/bones[{}]", i),
                         fmt::format("bone '{}' has a rest pose that is not finite or a rotation that is not unit", b.name));
    }
    damaged.push_back(i);
    for (int c = 0; c < 3; ++c) {
      if (!std::isfinite(b.translation[c])) b.translation[c] = 0.0f;
      if (!std::isfinite(b.scale[c])) b.scale[c] = 1.0f;
    }
    if (!unitRotation(b.rotation)) {
      // A finite non-zero quaternion keeps its direction; one that cannot be normalised is no turn.
      const glm::vec4 q(b.rotation.x, b.rotation.y, b.rotation.z, b.rotation.w);
      const glm::vec4 unit = q / glm::length(q);
      const glm::quat normalised(unit.w, unit.x, unit.y, unit.z);
      b.rotation = unitRotation(normalised) ? normalised : glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
    }
    if (!inverseBindFinite) b.inverseBind.reset();  // the exporter derives it from the bind pose
  }
  // A joint without an inverse bind matrix gets the inverse of its bind pose at export; a pose that
  // cannot be inverted in float (a scale of 0, or scales whose product overflows) gets identity.
  std::vector<size_t> singular;
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  for (uint32_t j : rig.skeleton.jointList()) {
    if (j >= world.size() || rig.skeleton.bones[j].inverseBind || inverseOfBindPose(world[j])) continue;
    if (strict) {
      return notRepaired(fmt::format("skeleton/bones[{}]", j),
                         fmt::format("joint '{}' has no inverse bind matrix and its bind pose cannot be inverted", rig.skeleton.bones[j].name));
    }
    singular.push_back(j);
    rig.skeleton.bones[j].inverseBind = glm::mat4(1.0f);
  }
  std::string what;
  if (!damaged.empty()) {
    what = fmt::format("{} bone(s) with a rest pose that is not finite or a rotation that is not unit ({}): non-finite "
                       "translation components set to 0, scale components to 1, rotations normalised (identity when that "
                       "is impossible), non-finite inverse bind matrices dropped",
                       damaged.size(), firstIndices(damaged));
  }
  if (!singular.empty()) {
    what += fmt::format("{}{} joint(s) without an inverse bind matrix whose bind pose cannot be inverted ({}) given the identity",
                        what.empty() ? "" : "; ", singular.size(), firstIndices(singular));
  }
  if (!what.empty()) rig.provenance.warn("repaired-bone", what);
  return Ok{};
}

// A key value must be finite, and a rotation key non-zero too (a zero quaternion is no rotation at
// all); a tangent may be zero.
template <class T>
bool usableValue(const T& v) { return finite(v); }
bool usableValue(const glm::quat& q) { return finite(q) && !(q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 0.0f); }

// A channel whose arrays disagree in length is left alone: validate() refuses it.
template <class T>
bool consistent(const Keys<T>& keys) {
  const size_t n = keys.times.size();
  const bool tangents = !keys.inTangents.empty() || !keys.outTangents.empty();
  return keys.values.size() == n && (!tangents || (keys.inTangents.size() == n && keys.outTangents.size() == n));
}

// Key k's time, value or tangent is not finite, or its rotation is zero.
template <class T>
bool damagedKey(const Keys<T>& keys, size_t k) {
  const bool tangents = !keys.inTangents.empty();
  return !std::isfinite(keys.times[k]) || !usableValue(keys.values[k]) ||
         (tangents && (!finite(keys.inTangents[k]) || !finite(keys.outTangents[k])));
}

// A finite rotation key whose float squared length overflows or underflows (components near
// FLT_MAX, or denormal): the exporter's float arithmetic (axis change, normalisation) would turn it
// into a zero or NaN quaternion. Its direction, all a rotation key means, fits in double.
bool outOfFloatRange(const glm::quat& q) { return !std::isnormal(glm::dot(q, q)); }

// Whether a key is outOfFloatRange, in a pass without early exit: std::isnormal of the squared
// length is its exponent bits, neither all clear (zero, denormal) nor all set (infinite, NaN). Four
// keys at a time in SSE2 lanes where the build has them, each squared length glm::dot's in glm's
// order (core/quat_lanes.hpp); key by key with a branch, and with the zero look below four compares
// a key, the looks were 36 M instructions of a 1,000-clip IFP's repair, and nearly no key is out.
bool anyOutOfFloatRange(const std::vector<glm::quat>& values) {
  size_t k = 0;
  uint32_t out = 0;
#if RIGPORT_SSE2_LANES
  const __m128i exponent = _mm_set1_epi32(0x7F800000), clear = _mm_setzero_si128();
  __m128i bad = clear;
  for (; k + 4 <= values.size(); k += 4) {
    const __m128i e = _mm_and_si128(_mm_castps_si128(lanes::squaredLength(lanes::load(values.data() + k))), exponent);
    bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi32(e, clear), _mm_cmpeq_epi32(e, exponent)));
  }
  out = static_cast<uint32_t>(_mm_movemask_epi8(bad));
#endif
  for (; k < values.size(); ++k) out |= static_cast<uint32_t>(outOfFloatRange(values[k]));
  return out != 0;
}

// Whether a value of `values` is not usableValue(). A rotation key that is zero, or has a
// component that is not finite, has a squared length of 0, an infinity or NaN, out of float range:
// only where a key is (`outOfRange`, anyOutOfFloatRange's answer; nearly never) are the keys looked
// at one by one, and a second pass over every rotation key for them was 6 M instructions of a
// 1,000-clip IFP's repair.
bool anyUnusable(const std::vector<glm::quat>& values, bool outOfRange) {
  return outOfRange && !std::all_of(values.begin(), values.end(), [](const glm::quat& q) { return usableValue(q); });
}
template <class T>
bool anyUnusable(const std::vector<T>& values, bool) { return anyNonFinite(values); }

// Whether a key of a consistent channel is damaged (damagedKey): passes over whole arrays that
// vectorise, where a key at a time with an early exit did not. Every clip's every channel is
// looked at, and nearly none is damaged. `outOfRange`: whether a rotation value is out of float
// range (anyOutOfFloatRange, looked at once per channel by the caller, which rescales such keys
// after the drop: dropping keys adds none); false for other channels.
template <class T>
bool anyDamagedKey(const Keys<T>& keys, bool outOfRange) {
  if (!consistent(keys)) return false;
  return anyNonFinite(keys.times) || anyUnusable(keys.values, outOfRange) || anyNonFinite(keys.inTangents) || anyNonFinite(keys.outTangents);
}

// The damaged keys of one channel taken out, the rest kept in order; returns how many went.
template <class T>
size_t dropDamagedKeys(Keys<T>& keys, bool outOfRange) {
  if (!anyDamagedKey(keys, outOfRange)) return 0;
  const size_t n = keys.times.size();
  const bool tangents = !keys.inTangents.empty();
  size_t kept = 0;
  for (size_t k = 0; k < n; ++k) {
    if (damagedKey(keys, k)) continue;
    keys.times[kept] = keys.times[k];
    keys.values[kept] = keys.values[k];
    if (tangents) {
      keys.inTangents[kept] = keys.inTangents[k];
      keys.outTangents[kept] = keys.outTangents[k];
    }
    ++kept;
  }
  keys.times.resize(kept);
  keys.values.resize(kept);
  if (tangents) {
    keys.inTangents.resize(kept);
    keys.outTangents.resize(kept);
  }
  return n - kept;
}

// A morph weight key (its time, one of its weights or tangents not finite) out of its track, the
// rest kept in order; returns how many went. A track whose arrays disagree is left to validate().
size_t dropDamagedKeys(MorphWeightTrack& track) {
  const size_t n = track.times.size(), w = track.targetCount;
  const bool tangents = !track.inTangents.empty();
  if (track.weights.size() != n * w || (tangents && (track.inTangents.size() != n * w || track.outTangents.size() != n * w))) return 0;
  if (!anyNonFinite(track.times) && !anyNonFinite(track.weights) && !anyNonFinite(track.inTangents) && !anyNonFinite(track.outTangents)) return 0;
  const auto rowFinite = [w](const std::vector<float>& values, size_t k) {
    return values.empty() || std::all_of(values.begin() + static_cast<std::ptrdiff_t>(k * w),
                                         values.begin() + static_cast<std::ptrdiff_t>((k + 1) * w), [](float v) { return std::isfinite(v); });
  };
  size_t kept = 0;
  for (size_t k = 0; k < n; ++k) {
    if (!std::isfinite(track.times[k]) || !rowFinite(track.weights, k) || !rowFinite(track.inTangents, k) || !rowFinite(track.outTangents, k)) continue;
    track.times[kept] = track.times[k];
    for (std::vector<float>* values : {&track.weights, &track.inTangents, &track.outTangents}) {
      if (!values->empty()) std::copy_n(values->begin() + static_cast<std::ptrdiff_t>(k * w), w, values->begin() + static_cast<std::ptrdiff_t>(kept * w));
    }
    ++kept;
  }
  track.times.resize(kept);
  for (std::vector<float>* values : {&track.weights, &track.inTangents, &track.outTangents}) {
    if (!values->empty()) values->resize(kept * w);
  }
  return n - kept;
}

bool badEventTime(const Event& e) { return !std::isfinite(e.time); }

// The times of one clip, an array at a time: every channel's key times, then each event's time.
template <class F>
void forEachTimeArray(const Animation& anim, F see) {
  for (const BoneTrack& t : anim.tracks) {
    see(std::span<const float>(t.translation.times));
    see(std::span<const float>(t.rotation.times));
    see(std::span<const float>(t.scale.times));
  }
  for (const ScalarChannel& c : anim.scalars) see(std::span<const float>(c.keys.times));
  for (const MorphWeightTrack& m : anim.morphWeights) see(std::span<const float>(m.times));
  for (const Event& e : anim.events) see(std::span<const float>(&e.time, 1));
}

// Every key time of every channel and every event time of one clip.
template <class F>
void forEachTime(const Animation& anim, F see) {
  forEachTimeArray(anim, [&](std::span<const float> times) {
    for (float t : times) see(t);
  });
}

// Whether a time of the clip is below 0, in passes without early exit that vectorise: nearly no
// clip has one, and the least and greatest of every time (std::min and std::max, which do not
// vectorise) were a tenth of a 1,000-clip IFP's repair.
bool anyTimeBelowZero(const Animation& anim) {
  uint32_t below = 0;
  forEachTimeArray(anim, [&below](std::span<const float> times) {
    uint32_t here = 0;
    for (float t : times) here |= static_cast<uint32_t>(t < 0.0f);
    below |= here;
  });
  return below != 0;
}

size_t outOfFloatRange(const Keys<glm::quat>& keys) {
  return static_cast<size_t>(std::count_if(keys.values.begin(), keys.values.end(), [](const glm::quat& q) { return outOfFloatRange(q); }));
}

// Such keys rescaled to unit length (in double); returns how many. Run after dropDamagedKeys, so
// every key left is finite and non-zero.
size_t rescaleOutOfRange(Keys<glm::quat>& keys) {
  size_t rescaled = 0;
  for (glm::quat& q : keys.values) {
    if (!outOfFloatRange(q)) continue;
    const glm::dvec4 v(q.x, q.y, q.z, q.w);
    const glm::dvec4 unit = v / glm::length(v);
    q = glm::quat(static_cast<float>(unit.w), static_cast<float>(unit.x), static_cast<float>(unit.y), static_cast<float>(unit.z));
    ++rescaled;
  }
  return rescaled;
}

// Damaged keys (damagedKey) and events whose time is not finite taken out of one clip, rotation
// keys out of float range rescaled, and a duration that is not finite made the clip's last key or
// event time; one warning for the clip.
// Strict: the first of them is the error, the clip left as it was.
Status dropDamagedKeysAndEvents(Rig& rig, Animation& anim, size_t a, bool strict) {
  if (strict) {
    for (size_t t = 0; t < anim.tracks.size(); ++t) {
      const BoneTrack& track = anim.tracks[t];
      const bool outOfRange = anyOutOfFloatRange(track.rotation.values);
      if (anyDamagedKey(track.translation, false) || anyDamagedKey(track.rotation, outOfRange) || anyDamagedKey(track.scale, false)) {
        return notRepaired(fmt::format("animations[{}]/tracks[{}]", a, t), "a key time, value or tangent is not finite");
      }
      if (outOfRange && outOfFloatRange(track.rotation) > 0) {
        return notRepaired(fmt::format("animations[{}]/tracks[{}]/rotation", a, t), "a rotation key is too long or too short to normalise in float");
      }
    }
    for (size_t c = 0; c < anim.scalars.size(); ++c) {
      if (anyDamagedKey(anim.scalars[c].keys, false)) {
        return notRepaired(fmt::format("animations[{}]/scalars[{}]", a, c), "a key time, value or tangent is not finite");
      }
    }
    for (size_t m = 0; m < anim.morphWeights.size(); ++m) {
      MorphWeightTrack copy = anim.morphWeights[m];
      if (dropDamagedKeys(copy) > 0) return notRepaired(fmt::format("animations[{}]/morphWeights[{}]", a, m), "a key time, weight or tangent is not finite");
    }
    if (const auto e = std::find_if(anim.events.begin(), anim.events.end(), badEventTime); e != anim.events.end()) {
      return notRepaired(fmt::format("animations[{}]/events[{}]", a, e - anim.events.begin()), "event time is not finite");
    }
    if (!std::isfinite(anim.duration)) {
      return notRepaired(fmt::format("animations[{}]", a), fmt::format("animation '{}' has a duration that is not finite", anim.name));
    }
    return Ok{};
  }
  size_t keys = 0, rescaled = 0;
  std::vector<size_t> tracks, scalars;
  for (size_t t = 0; t < anim.tracks.size(); ++t) {
    BoneTrack& track = anim.tracks[t];
    const bool outOfRange = anyOutOfFloatRange(track.rotation.values);
    const size_t dropped = dropDamagedKeys(track.translation, false) + dropDamagedKeys(track.rotation, outOfRange) + dropDamagedKeys(track.scale, false);
    const size_t scaled = outOfRange ? rescaleOutOfRange(track.rotation) : 0;
    keys += dropped;
    rescaled += scaled;
    if (dropped + scaled > 0) tracks.push_back(t);
  }
  for (size_t c = 0; c < anim.scalars.size(); ++c) {
    const size_t dropped = dropDamagedKeys(anim.scalars[c].keys, false);
    keys += dropped;
    if (dropped > 0) scalars.push_back(c);
  }
  std::vector<size_t> morphs;
  for (size_t m = 0; m < anim.morphWeights.size(); ++m) {
    const size_t dropped = dropDamagedKeys(anim.morphWeights[m]);
    keys += dropped;
    if (dropped > 0) morphs.push_back(m);
  }
  const size_t events = std::erase_if(anim.events, badEventTime);
  const bool duration = !std::isfinite(anim.duration);
  if (duration) {
    float last = 0.0f;
    forEachTime(anim, [&](float t) { last = std::max(last, t); });
    anim.duration = last;
  }
  if (keys == 0 && rescaled == 0 && events == 0 && !duration) return Ok{};
  std::string what = fmt::format("{} key(s) with a time, value or tangent that is not finite (or a zero rotation) dropped", keys);
  if (rescaled > 0) what += fmt::format(", {} rotation key(s) too long or too short for float arithmetic rescaled to unit length", rescaled);
  if (!tracks.empty()) what += fmt::format(" (tracks {})", firstIndices(tracks));
  if (!scalars.empty()) what += fmt::format(" (scalar channels {})", firstIndices(scalars));
  if (!morphs.empty()) what += fmt::format(" (morph weight tracks {})", firstIndices(morphs));
  if (events > 0) what += fmt::format("; {} event(s) with a time that is not finite dropped", events);
  if (duration) what += fmt::format("; the duration, not finite, set to the last time {} s", anim.duration);
  rig.provenance.warn("repaired-key", fmt::format("animation '{}': {}", anim.name, what));
  return Ok{};
}

template <class T>
void shift(Keys<T>& keys, float by) {
  for (float& t : keys.times) t += by;
}

// glTF times start at 0 (ACCESSOR_ANIMATION_INPUT_NEGATIVE): a clip starting before 0 is moved
// whole, so its keys keep their spacing and the other clips are untouched.
Status shiftNegativeTimes(Rig& rig, Animation& anim, size_t a, bool strict) {
  if (!anyTimeBelowZero(anim)) return Ok{};  // as below: no time t < 0 leaves `first` at 0 or more
  float first = std::numeric_limits<float>::infinity();
  float last = -std::numeric_limits<float>::infinity();
  forEachTime(anim, [&](float t) {
    first = std::min(first, t);
    last = std::max(last, t);
  });
  if (!(first < 0.0f)) return Ok{};
  if (strict) return notRepaired(fmt::format("animations[{}]", a), fmt::format("animation '{}' starts at {} s, before 0", anim.name, first));
  const float by = -first;
  for (BoneTrack& t : anim.tracks) {
    shift(t.translation, by);
    shift(t.rotation, by);
    shift(t.scale, by);
  }
  for (ScalarChannel& s : anim.scalars) shift(s.keys, by);
  for (MorphWeightTrack& m : anim.morphWeights) {
    for (float& t : m.times) t += by;
  }
  for (Event& e : anim.events) e.time += by;
  anim.duration += by;
  rig.provenance.warn("negative-key-time", fmt::format("animation '{}' starts at {} s; its keys were shifted by {} s to start at 0",
                                                       anim.name, first, by));
  // A shift across float's range (keys at -2e38 and +2e38) makes the last times infinite: those go too.
  if (!std::isfinite(last + by) || !std::isfinite(anim.duration)) return dropDamagedKeysAndEvents(rig, anim, a, strict);
  return Ok{};
}

// A skin with no influence at all, in a rig without bones, names no joint: glTF's skin needs one.
Status dropEmptySkin(Rig& rig, Mesh& mesh, size_t m, bool strict) {
  if (!mesh.skinned() || !mesh.influences.empty() || !rig.skeleton.bones.empty()) return Ok{};
  if (strict) return notRepaired(fmt::format("meshes[{}]", m), "the mesh is skinned, but it has no influences and the rig no bones");
  mesh.influenceOffsets.clear();
  rig.provenance.warn("repaired-skin", fmt::format("mesh {} '{}': skinned with no influences in a rig without bones; exported unskinned", m, mesh.name));
  return Ok{};
}

Status repairMeshAt(Rig& rig, size_t m, const std::vector<glm::vec3>& bindPos, bool strict, bool vertexAttributes = true) {
  Mesh& mesh = rig.meshes[m];
  RP_CHECK(dropEmptySkin(rig, mesh, m, strict));
  const glm::vec3 up = rig.provenance.axes.up == AxisSystem::Up::Z ? glm::vec3(0, 0, 1) : glm::vec3(0, 1, 0);
  // Weights first: the position repair picks the heaviest usable influence.
  RP_CHECK(repairWeights(rig, mesh, m, strict));
  RP_CHECK(repairPositions(rig, mesh, m, bindPos, strict));
  if (vertexAttributes) {
    RP_CHECK(repairAttribute(rig, mesh.normals, m, "normal", up, "the up axis", strict));
    RP_CHECK(repairZeroNormals(rig, mesh.normals, m, up, strict));
    RP_CHECK(repairAttribute(rig, mesh.uvs, m, "uv", glm::vec2(0.0f), "(0, 0)", strict));
  }
  RP_CHECK(repairMorphDeltas(rig, mesh, m, strict));
  return Ok{};
}

}  // namespace

bool dropsDamagedPart(std::string_view code) {
  return std::find(kDroppedPartCodes.begin(), kDroppedPartCodes.end(), code) != kDroppedPartCodes.end();
}

Status refuseDroppedParts(const Provenance& provenance) {
  for (const Warning& w : provenance.warnings) {
    if (dropsDamagedPart(w.code)) return makeError(ErrorCode::BadValue, fmt::format("{} ({}; strict: a damaged part is not dropped)", w.message, w.code));
  }
  return Ok{};
}

Status repairMesh(Rig& rig, size_t m, const RepairOptions& options) {
  return repairMeshAt(rig, m, bindPositions(rig.skeleton), options.strict, options.vertexAttributes);
}

Status repairRig(Rig& rig, const RepairOptions& options) {
  if (!rig.meshes.empty()) {  // the bind positions are the meshes' alone (a clip's rig has none)
    const std::vector<glm::vec3> bindPos = bindPositions(rig.skeleton);
    for (size_t m = 0; m < rig.meshes.size(); ++m) RP_CHECK(repairMeshAt(rig, m, bindPos, options.strict, options.vertexAttributes));
  }
  // After the meshes, as for a reader that hands its meshes over (repairMesh) before the rig is
  // whole; a damaged bone's bind position reads as the origin there (bindPositions()).
  if (!options.bonesSound) RP_CHECK(repairBones(rig, options.strict));
  for (size_t a = 0; a < rig.animations.size(); ++a) {
    // Damaged times out first: an infinite one would shift the whole clip to infinity.
    RP_CHECK(dropDamagedKeysAndEvents(rig, rig.animations[a], a, options.strict));
    RP_CHECK(shiftNegativeTimes(rig, rig.animations[a], a, options.strict));
  }
  return Ok{};
}

}  // namespace rigport
