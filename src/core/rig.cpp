#include "core/rig.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <type_traits>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "core/axes.hpp"
#include "core/quat_lanes.hpp"
#include "core/rig_copy.hpp"
#include "core/rotation_keys.hpp"

namespace rigport {

glm::mat4 Bone::localMatrix() const {
  return glm::translate(glm::mat4(1.0f), translation) * glm::mat4_cast(rotation) *
         glm::scale(glm::mat4(1.0f), scale);
}

glm::vec3 inverseScale(const glm::vec3& s) {
  const auto inv = [](float c) { return c != 0.0f ? 1.0f / c : 1.0f; };
  return {inv(s.x), inv(s.y), inv(s.z)};
}

std::vector<glm::mat4> Skeleton::worldBindMatrices() const {
  std::vector<glm::mat4> world(bones.size());
  for (size_t i = 0; i < bones.size(); ++i) {
    glm::mat4 local = bones[i].localMatrix();
    const int32_t p = bones[i].parent;
    if (p < 0 || static_cast<size_t>(p) >= i) {
      world[i] = local;
      continue;
    }
    const Bone& parent = bones[static_cast<size_t>(p)];
    if (!inheritScale && parent.scale != glm::vec3(1.0f)) {
      local = glm::translate(glm::mat4(1.0f), bones[i].translation) * glm::scale(glm::mat4(1.0f), inverseScale(parent.scale)) *
              glm::mat4_cast(bones[i].rotation) * glm::scale(glm::mat4(1.0f), bones[i].scale);
    }
    world[i] = world[static_cast<size_t>(p)] * local;
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

double MorphTarget::longestDelta() const {
  double longest = 0.0;
  for (const glm::vec3& d : positionDeltas) longest = std::max(longest, glm::length(glm::dvec3(d)));
  return longest;
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
  for (const MorphWeightTrack& m : morphWeights) n += m.times.size();
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

namespace {

template <class T>
bool sameBits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Copy-assigns a JSON value only when it would be written differently: nlohmann's assignment
// allocates anew.
void assignJson(nlohmann::json& to, const nlohmann::json& from) {
  if (!writtenAlike(to, from)) to = from;
}

}  // namespace

bool writtenAlike(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type() || a.size() != b.size()) return false;
  if (a.is_object()) {
    for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
      if (x.key() != y.key() || !writtenAlike(*x, *y)) return false;
    }
    return true;
  }
  if (a.is_array()) return std::equal(a.begin(), a.end(), b.begin(), [](const nlohmann::json& x, const nlohmann::json& y) { return writtenAlike(x, y); });
  if (a.is_number_float()) return sameBits(a.get<double>(), b.get<double>());
  return a == b;  // null, boolean, integer, string, binary
}

bool identical(const Bone& a, const Bone& b) {
  return a.name == b.name && a.parent == b.parent && sameBits(a.translation, b.translation) && sameBits(a.rotation, b.rotation) &&
         sameBits(a.scale, b.scale) && a.inverseBind.has_value() == b.inverseBind.has_value() &&
         (!a.inverseBind || sameBits(*a.inverseBind, *b.inverseBind)) && a.id == b.id && a.nameHash == b.nameHash &&
         a.nameHashKind == b.nameHashKind && writtenAlike(a.extras, b.extras);
}

bool identical(const Skeleton& a, const Skeleton& b) {
  return a.bones.size() == b.bones.size() && a.joints == b.joints && a.inheritScale == b.inheritScale && writtenAlike(a.extras, b.extras) &&
         std::equal(a.bones.begin(), a.bones.end(), b.bones.begin(), [](const Bone& x, const Bone& y) { return identical(x, y); });
}

bool assignWithoutAnimations(Rig& to, const Rig& from) {
  const bool kept = assignWithoutMeshesOrAnimations(to, from);
  to.meshes = from.meshes;
  return kept;
}

bool assignWithoutMeshesOrAnimations(Rig& to, const Rig& from) {
  to.name = from.name;
  to.itemIds = from.itemIds;
  const bool kept = identical(to.skeleton, from.skeleton);
  if (!kept) to.skeleton = from.skeleton;
  to.materials = from.materials;
  to.textures = from.textures;
  to.animations.clear();
  to.provenance = from.provenance;
  assignJson(to.extras, from.extras);
  return kept;
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

namespace {

template <class T>
void sortAndMerge(Keys<T>& keys) {
  // Keys already in strictly increasing time (nearly every file's) are left as they are, which is
  // what the sort below would give them. Every pair is compared, into an integer flag, without
  // stopping at the first out of order (a NaN time is out of order, as it was): GCC vectorises
  // neither a loop that can stop nor one folding a bool, and the look was 12.7 M instructions of a
  // 1,000-clip IFP (4.0 M + 3.6 M now, BENCHMARKS.md, issue 30), where no key set is out of order.
  if (keys.times.size() == keys.values.size()) {
    const float* times = keys.times.data();
    uint32_t outOfOrder = 0;
    for (size_t k = 1; k < keys.times.size(); ++k) outOfOrder |= !(times[k - 1] < times[k]) ? 1u : 0u;
    if (outOfOrder == 0) return;
  }
  const size_t n = std::min(keys.times.size(), keys.values.size());
  // Tangents travel with their keys; a cubic key set without one tangent per key is left for
  // validate() to reject rather than silently realigned.
  const bool tangents = keys.inTangents.size() == n && keys.outTangents.size() == n && n > 0;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys.times[a] < keys.times[b]; });
  std::vector<size_t> kept;  // the source index of each output key: the last of equal times wins
  kept.reserve(n);
  for (size_t i : order) {
    if (!kept.empty() && keys.times[kept.back()] == keys.times[i]) {
      kept.back() = i;
      continue;
    }
    kept.push_back(i);
  }
  auto pick = [&](const auto& from) {
    std::decay_t<decltype(from)> out;
    out.reserve(kept.size());
    for (size_t i : kept) out.push_back(from[i]);
    return out;
  };
  if (tangents) {
    keys.inTangents = pick(keys.inTangents);
    keys.outTangents = pick(keys.outTangents);
  }
  keys.values = pick(keys.values);
  keys.times = pick(keys.times);
}

}  // namespace

void normalizeRotationKeys(std::vector<glm::quat>& values, bool flip, const AxisChange* turn) {
  size_t k = 0;
#if RIGPORT_SSE2_LANES
  // The turn's lanes set once for the array; the branch on it goes the same way at every key.
  const std::optional<lanes::Conjugation> turnLanes = turn ? std::optional(turn->rotationLanes()) : std::nullopt;
  // Four keys at a time, each lane glm's normalize in the same IEEE order. The sign rule needs the
  // previous key as written, -n or n; dot(q, -p) is exactly -dot(q, p) (round to nearest is
  // symmetric), so key k flips when dot(n_k, n_k-1) is below 0 and key k-1 kept its sign, or
  // above 0 and it flipped (0 and NaN never flip), which is the loop's rule below key by key.
  const __m128 zero = _mm_setzero_ps();
  const __m128 signBit = _mm_set1_ps(-0.0f);
  bool lastFlipped = false;
  __m128 prevX = zero, prevY = zero, prevZ = zero, prevW = zero;  // the last lane's n of the block before
  for (; k + 4 <= values.size(); k += 4) {
    const lanes::Quats q = lanes::load(values.data() + k);
    lanes::Quats n = lanes::normalize(turnLanes ? (*turnLanes)(q) : q);
    __m128 &nx = n.x, &ny = n.y, &nz = n.z, &nw = n.w;
    if (flip) {
      // Each lane's previous key: lanes 0-2 of this block moved up one, the block before's lane 3 first.
      auto previous = [](__m128 now, __m128 before) {
        return _mm_castsi128_ps(_mm_or_si128(_mm_slli_si128(_mm_castps_si128(now), 4), _mm_srli_si128(_mm_castps_si128(before), 12)));
      };
      const __m128 px = previous(nx, prevX), py = previous(ny, prevY), pz = previous(nz, prevZ), pw = previous(nw, prevW);
      const __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(nw, pw), _mm_mul_ps(nx, px)), _mm_add_ps(_mm_mul_ps(ny, py), _mm_mul_ps(nz, pz)));
      const int below = _mm_movemask_ps(_mm_cmplt_ps(d, zero));
      const int above = _mm_movemask_ps(_mm_cmpgt_ps(d, zero));
      int flips = 0;
      for (int lane = 0; lane < 4; ++lane) {
        const bool first = k == 0 && lane == 0;
        const bool flipped = !first && (lastFlipped ? (above >> lane & 1) != 0 : (below >> lane & 1) != 0);
        flips |= flipped ? 1 << lane : 0;
        lastFlipped = flipped;
      }
      prevX = nx, prevY = ny, prevZ = nz, prevW = nw;
      if (flips != 0) {
        const __m128 mask = _mm_and_ps(signBit, _mm_castsi128_ps(_mm_set_epi32(flips & 8 ? -1 : 0, flips & 4 ? -1 : 0, flips & 2 ? -1 : 0,
                                                                               flips & 1 ? -1 : 0)));
        nx = _mm_xor_ps(nx, mask), ny = _mm_xor_ps(ny, mask), nz = _mm_xor_ps(nz, mask), nw = _mm_xor_ps(nw, mask);
      }
    }
    lanes::store(n, values.data() + k);
  }
#endif
  for (; k < values.size(); ++k) {
    glm::quat& q = values[k];
    q = glm::normalize(turn ? turn->rotation(q) : q);
    if (flip && k > 0 && glm::dot(q, values[k - 1]) < 0.0f) q = -q;
  }
}

void normalizeTrack(BoneTrack& t, const AxisChange* turn) {
  sortAndMerge(t.translation);
  sortAndMerge(t.rotation);
  sortAndMerge(t.scale);
  // Flipping a key's sign is harmless for STEP and LINEAR (q and -q are one rotation; glTF slerps
  // along the short arc anyway) but changes a CUBICSPLINE segment, which blends the 4 components of
  // both ends and their tangents: such keys keep the signs they were authored with (the BattleForge
  // exporter makes them continuous itself, battleforge_drs.md §9; glTF Appendix C only asks that
  // v_k ≠ −v_k+1). Their values are still normalised (the validator wants unit keys); tangents are
  // left as they are.
  normalizeRotationKeys(t.rotation.values, t.rotation.interpolation != Interpolation::CubicSpline, turn);
}

void normalizeScalars(Animation& anim) {
  for (ScalarChannel& s : anim.scalars) sortAndMerge(s.keys);
}

void normalizeKeys(Animation& anim) {
  for (BoneTrack& t : anim.tracks) normalizeTrack(t);
  normalizeScalars(anim);
}

}  // namespace rigport
