#include "core/bind.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <type_traits>

#include <fmt/format.h>

namespace rigport {
namespace {

std::string looseName(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  std::string out;
  out.reserve(e - b);
  for (size_t i = b; i < e; ++i) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(s[i]))));
  return out;
}

int32_t resolve(const Skeleton& sk, const BoneRef& ref) {
  const auto& bones = sk.bones;
  if (ref.id) {
    for (size_t i = 0; i < bones.size(); ++i)
      if (bones[i].id == ref.id) return static_cast<int32_t>(i);
  }
  if (ref.nameHash) {
    for (size_t i = 0; i < bones.size(); ++i)
      if (bones[i].nameHash == ref.nameHash) return static_cast<int32_t>(i);
  }
  if (!ref.name.empty()) {
    if (int32_t i = sk.find(ref.name); i >= 0) return i;
    const std::string loose = looseName(ref.name);
    for (size_t i = 0; i < bones.size(); ++i)
      if (looseName(bones[i].name) == loose) return static_cast<int32_t>(i);
  }
  if (ref.position) {
    // Positions count joints (the skin palette / HAnim node order) when the skeleton has them.
    const std::vector<uint32_t> joints = sk.jointList();
    if (*ref.position < joints.size()) return static_cast<int32_t>(joints[*ref.position]);
  }
  return -1;
}

std::string describe(const BoneRef& ref) {
  std::string s = ref.name.empty() ? std::string("(unnamed)") : "'" + ref.name + "'";
  if (ref.id) s += fmt::format(" id {}", *ref.id);
  if (ref.nameHash) s += fmt::format(" hash 0x{:08X}", *ref.nameHash);
  if (ref.position) s += fmt::format(" position {}", *ref.position);
  return s;
}

template <class T>
void sortAndMerge(Keys<T>& keys) {
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

void normalizeKeys(Animation& anim) {
  for (BoneTrack& t : anim.tracks) {
    sortAndMerge(t.translation);
    sortAndMerge(t.rotation);
    sortAndMerge(t.scale);
    // Flipping a key's sign is harmless for STEP and LINEAR (q and -q are one rotation; glTF slerps
    // along the short arc anyway) but changes a CUBICSPLINE segment, which blends the 4 components of
    // both ends and their tangents: such keys keep the signs they were authored with (the BattleForge
    // exporter makes them continuous itself, battleforge_drs.md §9; glTF Appendix C only asks that
    // v_k ≠ −v_k+1). Their values are still normalised (the validator wants unit keys); tangents are
    // left as they are.
    const bool flip = t.rotation.interpolation != Interpolation::CubicSpline;
    for (size_t k = 0; k < t.rotation.values.size(); ++k) {
      glm::quat& q = t.rotation.values[k];
      q = glm::normalize(q);
      if (flip && k > 0 && glm::dot(q, t.rotation.values[k - 1]) < 0.0f) q = -q;
    }
  }
  for (ScalarChannel& s : anim.scalars) sortAndMerge(s.keys);
}

void bindAnimations(Rig& target, std::vector<Animation> animations) {
  for (Animation& anim : animations) {
    std::vector<BoneTrack> kept;
    kept.reserve(anim.tracks.size());
    std::vector<bool> used(target.skeleton.bones.size(), false);
    for (BoneTrack& t : anim.tracks) {
      const int32_t bone = t.bone >= 0 ? t.bone : resolve(target.skeleton, t.target);
      if (bone < 0) {
        target.provenance.warn("unbound-track", fmt::format("animation '{}': track {} matches no bone; dropped", anim.name, describe(t.target)));
        continue;
      }
      if (used[static_cast<size_t>(bone)]) {
        target.provenance.warn("duplicate-track", fmt::format("animation '{}': second track for bone '{}' ({}); dropped", anim.name,
                                                              target.skeleton.bones[static_cast<size_t>(bone)].name, describe(t.target)));
        continue;
      }
      used[static_cast<size_t>(bone)] = true;
      t.bone = bone;
      kept.push_back(std::move(t));
    }
    anim.tracks = std::move(kept);
    target.animations.push_back(std::move(anim));
  }
}

}  // namespace rigport
