#include "core/bind.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

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
  auto byName = [&](const std::string& name) -> int32_t {
    if (name.empty()) return -1;
    if (int32_t i = sk.find(name); i >= 0) return i;
    const std::string loose = looseName(name);
    for (size_t i = 0; i < bones.size(); ++i)
      if (looseName(bones[i].name) == loose) return static_cast<int32_t>(i);
    return -1;
  };
  if (int32_t i = byName(ref.name); i >= 0) return i;
  for (const std::string& alias : ref.aliases)
    if (int32_t i = byName(alias); i >= 0) return i;
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
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys.times[a] < keys.times[b]; });
  Keys<T> out;
  out.times.reserve(n);
  out.values.reserve(n);
  for (size_t i : order) {
    if (!out.times.empty() && out.times.back() == keys.times[i]) {
      out.values.back() = keys.values[i];
      continue;
    }
    out.times.push_back(keys.times[i]);
    out.values.push_back(keys.values[i]);
  }
  keys = std::move(out);
}

}  // namespace

void normalizeKeys(Animation& anim) {
  for (BoneTrack& t : anim.tracks) {
    sortAndMerge(t.translation);
    sortAndMerge(t.rotation);
    sortAndMerge(t.scale);
    for (size_t k = 0; k < t.rotation.values.size(); ++k) {
      glm::quat& q = t.rotation.values[k];
      q = glm::normalize(q);
      if (k > 0 && glm::dot(q, t.rotation.values[k - 1]) < 0.0f) q = -q;
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
