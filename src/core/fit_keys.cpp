#include "core/fit_keys.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/decompose.hpp"
#include "core/error.hpp"
#include "core/key_sample.hpp"
#include "core/track_space.hpp"

namespace rigport {
namespace {

// The corner and step width of keysToHermite(): far below a game frame (1/30 s), far above float's
// resolution of SKA's normalised times.
constexpr float kCornerSeconds = 1e-3f;
// Sample points per segment (or frame) where a deviation is measured.
constexpr int kSamplesPerSegment = 8;
// keysOnFrames() leaves a channel longer than this many frames to the writer, which refuses it (a
// CLIP's frame index is 16-bit) rather than allocating every frame of a hostile key time.
constexpr double kMaxFrames = 65536.0;

double deviation(const glm::vec3& a, const glm::vec3& b) { return glm::distance(glm::dvec3(a), glm::dvec3(b)); }
// Degrees between two rotations: the angle of a⁻¹·b, from atan2 in double (acos of their dot in
// float would read 0.04° for equal rotations one rounding apart).
double deviation(const glm::quat& a, const glm::quat& b) {
  const glm::dquat d = glm::conjugate(glm::normalize(glm::dquat(a))) * glm::normalize(glm::dquat(b));
  return glm::degrees(2.0 * std::atan2(glm::length(glm::dvec3(d.x, d.y, d.z)), std::fabs(d.w)));
}

// The largest deviation of `after` from `before`, sampled at every key of either and
// kSamplesPerSegment points inside each segment of `after`, skipping times within `skip` of a key
// of `before` (the corners a conversion leaves). Also the time of that deviation.
template <class T>
std::pair<double, float> largestDeviation(const Keys<T>& before, const Keys<T>& after, const T& rest, float skip) {
  std::vector<float> times = before.times;
  times.insert(times.end(), after.times.begin(), after.times.end());
  for (size_t k = 1; k < after.times.size(); ++k) {
    for (int i = 1; i < kSamplesPerSegment; ++i) {
      times.push_back(after.times[k - 1] + (after.times[k] - after.times[k - 1]) * static_cast<float>(i) / kSamplesPerSegment);
    }
  }
  std::pair<double, float> worst{0.0, 0.0f};
  for (float t : times) {
    const auto near = std::lower_bound(before.times.begin(), before.times.end(), t - skip);
    if (skip > 0.0f && near != before.times.end() && *near <= t + skip && *near != t) continue;
    const double d = deviation(sampleKeys(before, t, rest), sampleKeys(after, t, rest));
    if (d > worst.first) worst = {d, t};
  }
  return worst;
}

// The largest deviation of any key from `rest`, and its time.
template <class T>
std::pair<double, float> largestDeviation(const Keys<T>& keys, const T& rest) {
  std::pair<double, float> worst{0.0, 0.0f};
  for (size_t k = 0; k < keys.values.size(); ++k)
    if (const double d = deviation(keys.values[k], rest); d > worst.first) worst = {d, keys.times[k]};
  return worst;
}

// Consecutive rotations in one hemisphere, so that a blend of components takes the short way.
void continuousSigns(Keys<glm::quat>& keys) {
  for (size_t k = 1; k < keys.values.size(); ++k) {
    if (glm::dot(keys.values[k], keys.values[k - 1]) < 0.0f) keys.values[k] = -keys.values[k];
  }
}
void continuousSigns(Keys<glm::vec3>&) {}

glm::vec3 zeroLike(const glm::vec3&) { return glm::vec3(0.0f); }
glm::quat zeroLike(const glm::quat&) { return glm::quat(0.0f, 0.0f, 0.0f, 0.0f); }

template <class T>
void push(Keys<T>& out, float t, const T& value, const T& tangent) {
  out.times.push_back(t);
  out.values.push_back(value);
  out.inTangents.push_back(tangent);
  out.outTangents.push_back(tangent);
}

template <class T>
Keys<T> hermiteOf(Keys<T> keys) {
  continuousSigns(keys);
  const size_t n = keys.times.size();
  Keys<T> out;
  out.interpolation = Interpolation::CubicSpline;
  if (keys.interpolation == Interpolation::Step) {
    for (size_t k = 0; k < n; ++k) {
      push(out, keys.times[k], keys.values[k], zeroLike(keys.values[k]));
      if (k + 1 < n && keys.values[k + 1] != keys.values[k]) {
        const float e = std::min(kCornerSeconds, (keys.times[k + 1] - keys.times[k]) / 4.0f);
        if (keys.times[k] < keys.times[k + 1] - e) push(out, keys.times[k + 1] - e, keys.values[k], zeroLike(keys.values[k]));
      }
    }
    return out;
  }
  std::vector<T> slope(n - 1);
  for (size_t k = 0; k + 1 < n; ++k) {
    const float d = keys.times[k + 1] - keys.times[k];
    slope[k] = d > 0.0f ? (keys.values[k + 1] - keys.values[k]) / d : zeroLike(keys.values[k]);  // equal times: a jump, no slope
  }
  const auto tangent = [&](size_t k) { return k == 0 ? slope[0] : k + 1 == n ? slope[n - 2] : (slope[k - 1] + slope[k]) * 0.5f; };
  for (size_t k = 0; k < n; ++k) {
    push(out, keys.times[k], keys.values[k], tangent(k));
    if (k + 1 == n) break;
    // A corner key only where it falls strictly between the two (a segment of a few ulps has none).
    const float e = std::min(kCornerSeconds, (keys.times[k + 1] - keys.times[k]) / 4.0f);
    const float after = keys.times[k] + e, before = keys.times[k + 1] - e;
    const bool room = keys.times[k] < after && after < before && before < keys.times[k + 1];
    if (room && tangent(k) != slope[k]) push(out, after, keys.values[k] + slope[k] * e, slope[k]);
    if (room && tangent(k + 1) != slope[k]) push(out, before, keys.values[k + 1] - slope[k] * e, slope[k]);
  }
  return out;
}

template <class T>
bool playsAsIs(const Keys<T>& keys, float fps) {
  if (static_cast<double>(keys.times.back()) * fps > kMaxFrames) return true;  // beyond the format: its writer refuses it
  if (keys.interpolation != Interpolation::Linear && keys.times.size() > 1) return false;
  for (size_t k = 0; k < keys.times.size(); ++k) {
    const double f = static_cast<double>(keys.times[k]) * fps;
    if (std::fabs(f - std::round(f)) > 1e-3) return false;
  }
  return true;
}

template <class T>
Keys<T> resampled(const Keys<T>& keys, float fps, const T& rest) {
  Keys<T> out;
  const auto frames = static_cast<size_t>(std::ceil(static_cast<double>(keys.times.back()) * fps - 1e-3));
  for (size_t f = 0; f <= frames; ++f) {
    const float t = static_cast<float>(static_cast<double>(f) / fps);
    out.times.push_back(t);
    out.values.push_back(sampleKeys(keys, t, rest));
  }
  return out;
}

std::string boneName(const Rig& rig, const BoneTrack& t) {
  if (t.bone >= 0 && static_cast<size_t>(t.bone) < rig.skeleton.bones.size()) return rig.skeleton.bones[static_cast<size_t>(t.bone)].name;
  return t.target.name;
}

const Bone* boneOf(const Rig& rig, const BoneTrack& t) {
  return t.bone >= 0 && static_cast<size_t>(t.bone) < rig.skeleton.bones.size() ? &rig.skeleton.bones[static_cast<size_t>(t.bone)] : nullptr;
}

// The worst deviation of one clip's conversion, per kind of channel.
struct Worst {
  double metres = 0.0, degrees = 0.0;
  std::string translationAt, rotationAt;
  void add(const Rig& rig, const BoneTrack& t, std::pair<double, float> translation, std::pair<double, float> rotation) {
    const double m = translation.first * rig.provenance.axes.metresPerUnit;
    if (m > metres) {
      metres = m;
      translationAt = fmt::format("'{}' at {:.3f} s", boneName(rig, t), translation.second);
    }
    if (rotation.first > degrees) {
      degrees = rotation.first;
      rotationAt = fmt::format("'{}' at {:.3f} s", boneName(rig, t), rotation.second);
    }
  }
  std::string describe() const {
    return fmt::format("{:.3g} m{}, {:.3g}°{}", metres, translationAt.empty() ? "" : " (" + translationAt + ")", degrees,
                       rotationAt.empty() ? "" : " (" + rotationAt + ")");
  }
};

// A bone's local matrix at time t of `track` (its rest where the track has no keys, or no track).
glm::mat4 localAt(const Bone& bone, const BoneTrack* track, float t) {
  if (track == nullptr) return bone.localMatrix();
  Bone at = bone;
  at.translation = sampleKeys(track->translation, t, bone.translation);
  at.rotation = sampleKeys(track->rotation, t, bone.rotation);
  at.scale = sampleKeys(track->scale, t, bone.scale);
  return at.localMatrix();
}

void addKeyTimes(std::vector<float>& times, const BoneTrack* track) {
  if (track == nullptr) return;
  for (const auto* keys : {&track->translation.times, &track->rotation.times, &track->scale.times}) times.insert(times.end(), keys->begin(), keys->end());
}

BoneTrack* trackOn(Animation& anim, int32_t bone) {
  for (BoneTrack& t : anim.tracks)
    if (t.bone == bone) return &t;
  return nullptr;
}

// Where a composed pose strays from the straight line between two of its keys by more than this
// (a product of two slerps is no slerp), a key is added halfway, each segment halved at most
// kFoldHalvings times: 1e-3° moves a joint 1 m away by 1.7e-5 m, below float32 formats' 1e-4 × size.
constexpr double kFoldMetres = 1e-5, kFoldDegrees = 1e-3;
constexpr int kFoldHalvings = 6;

// `times` with the keys a composed pose needs between them to play linearly within kFoldMetres and
// kFoldDegrees (checked at the quarter points of each segment).
std::vector<float> refinedTimes(const std::vector<float>& times, const std::function<Bone(float)>& composed, double metresPerUnit) {
  std::vector<float> out;
  const std::function<void(float, const Bone&, float, const Bone&, int)> split = [&](float t0, const Bone& p0, float t1, const Bone& p1, int depth) {
    const float mid = t0 + (t1 - t0) * 0.5f;
    if (depth == kFoldHalvings || !(t0 < mid && mid < t1)) return;
    bool straight = true;
    for (float s : {0.25f, 0.5f, 0.75f}) {
      const Bone truth = composed(t0 + (t1 - t0) * s);
      straight = straight && deviation(truth.translation, glm::mix(p0.translation, p1.translation, s)) * metresPerUnit <= kFoldMetres &&
                 deviation(truth.rotation, glm::slerp(p0.rotation, p1.rotation, s)) <= kFoldDegrees;
    }
    if (straight) return;
    const Bone pm = composed(mid);
    split(t0, p0, mid, pm, depth + 1);
    out.push_back(mid);
    split(mid, pm, t1, p1, depth + 1);
  };
  for (size_t k = 0; k < times.size(); ++k) {
    if (k > 0) split(times[k - 1], composed(times[k - 1]), times[k], composed(times[k]), 0);
    out.push_back(times[k]);
  }
  return out;
}

// The child's track whose local matrix at time t is prefix(t)·C(t) (C the child's own track, or its
// rest), keyed at `keyTimes` and where refinedTimes() adds keys, played linearly; `rest` is the
// child's rest after the change (a scale track is kept only where it leaves it). `worst` takes the
// deviation between keys (the composed pose against the linear keys, kSamplesPerSegment per segment).
BoneTrack composedTrack(const Rig& rig, int32_t child, const BoneTrack* own, const std::vector<float>& keyTimes,
                        const std::function<glm::mat4(float)>& prefix, const Bone& rest, Worst& worst) {
  const Bone& c = rig.skeleton.bones[static_cast<size_t>(child)];
  const std::function<Bone(float)> composed = [&](float t) {
    Bone pose;
    decomposeTrs(prefix(t) * localAt(c, own, t), pose);
    return pose;
  };
  const std::vector<float> times = refinedTimes(keyTimes, composed, rig.provenance.axes.metresPerUnit);
  BoneTrack out;
  if (own != nullptr) {
    out.target = own->target;
  } else {
    out.target.name = c.name;
    out.target.id = c.id;
  }
  out.bone = child;
  bool scaled = own != nullptr && !own->scale.empty();
  for (float t : times) {
    const Bone pose = composed(t);
    out.translation.times.push_back(t);
    out.translation.values.push_back(pose.translation);
    out.rotation.times.push_back(t);
    out.rotation.values.push_back(pose.rotation);
    out.scale.times.push_back(t);
    out.scale.values.push_back(pose.scale);
    scaled = scaled || deviation(pose.scale, rest.scale) > 1e-6;
  }
  continuousSigns(out.rotation);
  if (!scaled) out.scale = {};
  std::pair<double, float> moved{0.0, 0.0f}, turned{0.0, 0.0f};
  for (size_t k = 1; k < times.size(); ++k) {
    for (int i = 1; i < kSamplesPerSegment; ++i) {
      const float t = times[k - 1] + (times[k] - times[k - 1]) * static_cast<float>(i) / kSamplesPerSegment;
      const Bone truth = composed(t);
      if (const double d = deviation(truth.translation, sampleKeys(out.translation, t, rest.translation)); d > moved.first) moved = {d, t};
      if (const double d = deviation(truth.rotation, sampleKeys(out.rotation, t, rest.rotation)); d > turned.first) turned = {d, t};
    }
  }
  worst.add(rig, out, moved, turned);
  return out;
}

std::vector<float> unionOfKeyTimes(const std::vector<const BoneTrack*>& tracks) {
  std::vector<float> times;
  for (const BoneTrack* t : tracks) addKeyTimes(times, t);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

// The child's track with the parent's motion P₀⁻¹·P(t) folded in.
BoneTrack folded(const Rig& rig, const BoneTrack& parent, int32_t child, const BoneTrack* own, Worst& worst) {
  const Bone& p = rig.skeleton.bones[static_cast<size_t>(parent.bone)];
  const glm::mat4 restInverse = glm::inverse(p.localMatrix());
  return composedTrack(rig, child, own, unionOfKeyTimes({&parent, own}), [&](float t) { return restInverse * localAt(p, &parent, t); },
                       rig.skeleton.bones[static_cast<size_t>(child)], worst);
}

}  // namespace

void foldNonJointTracks(Rig& rig, std::string_view format) {
  const auto& bones = rig.skeleton.bones;
  std::vector<bool> joint(bones.size(), false);
  for (uint32_t j : rig.skeleton.jointList())
    if (j < bones.size()) joint[j] = true;
  for (Animation& anim : rig.animations) {
    const auto onNonJoint = [&](const BoneTrack& t) { return t.bone >= 0 && static_cast<size_t>(t.bone) < bones.size() && !joint[static_cast<size_t>(t.bone)]; };
    if (std::none_of(anim.tracks.begin(), anim.tracks.end(), onNonJoint)) continue;
    makeAbsolute(anim, rig.skeleton);  // P(t) and C(t) are local poses, not offsets from the bind
    Worst worst;
    std::vector<std::string> names, dropped;
    Worst lost;
    // Parents come before children in bone order, so a chain of non-joint bones folds down to the joints.
    for (size_t b = 0; b < bones.size(); ++b) {
      if (joint[b]) continue;
      const auto it = std::find_if(anim.tracks.begin(), anim.tracks.end(), [&](const BoneTrack& t) { return t.bone == static_cast<int32_t>(b); });
      if (it == anim.tracks.end()) continue;
      const BoneTrack parent = std::move(*it);
      anim.tracks.erase(it);
      bool children = false;
      for (size_t c = b + 1; c < bones.size(); ++c) {
        if (bones[c].parent != static_cast<int32_t>(b)) continue;
        children = true;
        BoneTrack* own = trackOn(anim, static_cast<int32_t>(c));
        BoneTrack moved = folded(rig, parent, static_cast<int32_t>(c), own, worst);
        if (own != nullptr) *own = std::move(moved);
        else anim.tracks.push_back(std::move(moved));
      }
      (children ? names : dropped).push_back(bones[b].name);
      if (!children) lost.add(rig, parent, largestDeviation(parent.translation, bones[b].translation), largestDeviation(parent.rotation, bones[b].rotation));
    }
    const auto listed = [](const std::vector<std::string>& n) {
      std::string list;
      for (size_t i = 0; i < n.size(); ++i) list += fmt::format("{}'{}'", i ? ", " : "", printable(n[i]));
      return list;
    };
    if (!names.empty()) {
      rig.provenance.warn("tracks-folded", fmt::format("animation '{}': the track{} on {}, not a joint ({} binds tracks to joints only), folded "
                                                       "into {} children's tracks, keyed at the union of their key times and between them where the motion bends; "
                                                       "largest deviation {}",
                                                       anim.name, names.size() == 1 ? "" : "s", listed(names), format,
                                                       names.size() == 1 ? "its" : "their", worst.describe()));
    }
    if (!dropped.empty()) {
      rig.provenance.warn("tracks-dropped", fmt::format("animation '{}': the track{} on {}, not a joint ({} binds tracks to joints only) and with "
                                                        "no bone below, dropped: what rides {} stays at its rest place on the joint above; largest "
                                                        "deviation {} (the keys from the rest)",
                                                        anim.name, dropped.size() == 1 ? "" : "s", listed(dropped), format,
                                                        dropped.size() == 1 ? "it" : "them", lost.describe()));
    }
  }
}

void dropScaleKeys(Rig& rig, std::string_view format) {
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  for (Animation& anim : rig.animations) {
    std::vector<std::string> bones;
    double worst = 0.0;
    const BoneTrack* worstTrack = nullptr;
    for (BoneTrack& t : anim.tracks) {
      if (t.scale.empty()) continue;
      const Bone* bone = boneOf(rig, t);
      const glm::vec3 rest = bone != nullptr ? bone->scale : glm::vec3(1.0f);
      double d = 0.0;
      for (const glm::vec3& s : t.scale.values) {
        const glm::vec3 off = glm::abs(s - rest);
        d = std::max(d, static_cast<double>(std::max({off.x, off.y, off.z})));
      }
      if (d > 1e-6) {
        bones.push_back(boneName(rig, t));
        if (d > worst) {
          worst = d;
          worstTrack = &t;
        }
      }
      t.scale = {};
    }
    if (bones.empty()) continue;
    // The joints below the worst bone move about deviation × their distance from it.
    double reach = 0.0;
    if (const Bone* bone = boneOf(rig, *worstTrack)) {
      const size_t b = static_cast<size_t>(bone - rig.skeleton.bones.data());
      std::vector<bool> below(rig.skeleton.bones.size(), false);
      below[b] = true;
      for (size_t i = b + 1; i < rig.skeleton.bones.size(); ++i) {
        const int32_t p = rig.skeleton.bones[i].parent;
        if (p < 0 || !below[static_cast<size_t>(p)]) continue;
        below[i] = true;
        reach = std::max(reach, static_cast<double>(glm::distance(glm::vec3(world[i][3]), glm::vec3(world[b][3]))));
      }
    }
    std::string listed;
    for (size_t i = 0; i < bones.size() && i < 5; ++i) listed += (i > 0 ? ", '" : "'") + bones[i] + "'";
    rig.provenance.warn("scale-keys-dropped",
                        fmt::format("animation '{}': {} stores no scale keys, so those of {} bone{} were dropped ({}{}); largest deviation "
                                    "from the rest scale {:.3g} ('{}'), which moves the joints below it by up to about {:.3g} m",
                                    anim.name, format, bones.size(), bones.size() == 1 ? "" : "s", listed, bones.size() > 5 ? ", ..." : "",
                                    worst, boneName(rig, *worstTrack), worst * reach * rig.provenance.axes.metresPerUnit));
  }
}

void keysToHermite(Rig& rig, std::string_view format) {
  for (Animation& anim : rig.animations) {
    Worst worst;
    size_t linear = 0, step = 0;
    for (BoneTrack& t : anim.tracks) {
      const Bone* bone = boneOf(rig, t);
      std::pair<double, float> moved{0.0, 0.0f}, turned{0.0, 0.0f};
      if (t.translation.times.size() > 1 && t.translation.interpolation != Interpolation::CubicSpline) {
        (t.translation.interpolation == Interpolation::Step ? step : linear) += 1;
        Keys<glm::vec3> before = t.translation;
        t.translation = hermiteOf(std::move(t.translation));
        moved = largestDeviation(before, t.translation, bone != nullptr ? bone->translation : glm::vec3(0.0f), kCornerSeconds);
      }
      if (t.rotation.times.size() > 1 && t.rotation.interpolation != Interpolation::CubicSpline) {
        (t.rotation.interpolation == Interpolation::Step ? step : linear) += 1;
        Keys<glm::quat> before = t.rotation;
        t.rotation = hermiteOf(std::move(t.rotation));
        turned = largestDeviation(before, t.rotation, bone != nullptr ? bone->rotation : glm::quat(1.0f, 0.0f, 0.0f, 0.0f), kCornerSeconds);
      }
      worst.add(rig, t, moved, turned);
    }
    if (linear + step == 0) continue;
    rig.provenance.warn("keys-to-hermite",
                        fmt::format("animation '{}': {} LINEAR and {} STEP channels rewritten as {}'s Hermite keys (tangents from the "
                                    "segments' slopes; corners and steps take {} ms); largest deviation outside them {}",
                                    anim.name, linear, step, format, kCornerSeconds * 1000.0f, worst.describe()));
  }
}

void keysOnFrames(Rig& rig, float fps, std::string_view format) {
  for (Animation& anim : rig.animations) {
    Worst worst;
    size_t channels = 0;
    for (BoneTrack& t : anim.tracks) {
      const Bone* bone = boneOf(rig, t);
      std::pair<double, float> moved{0.0, 0.0f}, turned{0.0, 0.0f};
      if (!t.translation.empty() && !playsAsIs(t.translation, fps)) {
        ++channels;
        Keys<glm::vec3> before = t.translation;
        t.translation = resampled(before, fps, bone != nullptr ? bone->translation : glm::vec3(0.0f));
        moved = largestDeviation(before, t.translation, bone != nullptr ? bone->translation : glm::vec3(0.0f), 0.0f);
      }
      if (!t.rotation.empty() && !playsAsIs(t.rotation, fps)) {
        ++channels;
        Keys<glm::quat> before = t.rotation;
        const glm::quat rest = bone != nullptr ? bone->rotation : glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
        t.rotation = resampled(before, fps, rest);
        turned = largestDeviation(before, t.rotation, rest, 0.0f);
      }
      worst.add(rig, t, moved, turned);
    }
    if (channels == 0) continue;
    rig.provenance.warn("keys-resampled",
                        fmt::format("animation '{}': {} channel{} (STEP, CUBICSPLINE or keys between the 1/{:g} s frames) resampled at "
                                    "every frame for {}, which plays keys linearly on whole frames; largest deviation {}",
                                    anim.name, channels, channels == 1 ? "" : "s", fps, format, worst.describe()));
  }
}

}  // namespace rigport

namespace rigport {
namespace {

// The bones that are no joint between joint `c` and the nearest joint above it, nearest first; empty
// when its parent is a joint or no joint is above it (Blender's armature object is no helper).
std::vector<int32_t> helpersAbove(const Skeleton& sk, const std::vector<bool>& joint, size_t c, int32_t& jointAbove) {
  std::vector<int32_t> chain;
  int32_t p = sk.bones[c].parent;
  for (; p >= 0 && !joint[static_cast<size_t>(p)]; p = sk.bones[static_cast<size_t>(p)].parent) chain.push_back(p);
  jointAbove = p;
  if (p < 0) chain.clear();
  return chain;
}

// Product of the helpers' local matrices at time t (their tracks in `anim`, else their rest), top down.
glm::mat4 helpersAt(const Rig& rig, Animation* anim, const std::vector<int32_t>& chain, float t) {
  glm::mat4 m(1.0f);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    m = m * localAt(rig.skeleton.bones[static_cast<size_t>(*it)], anim != nullptr ? trackOn(*anim, *it) : nullptr, t);
  }
  return m;
}

}  // namespace

void foldHelperBones(Rig& rig, std::string_view format) {
  Skeleton& sk = rig.skeleton;
  std::vector<bool> joint(sk.bones.size(), false);
  for (uint32_t j : sk.jointList())
    if (j < joint.size()) joint[j] = true;
  // The DFF writer makes a node of every bone an influence names (none to add where every bone is a joint).
  if (std::find(joint.begin(), joint.end(), false) != joint.end()) {
    for (const Mesh& m : rig.meshes)
      for (const Influence& inf : m.influences)
        if (inf.bone < joint.size()) joint[inf.bone] = true;
  }
  std::vector<std::vector<int32_t>> chains(sk.bones.size());
  std::vector<int32_t> above(sk.bones.size(), -1);
  bool any = false;
  for (size_t c = 0; c < sk.bones.size(); ++c) {
    if (joint[c]) chains[c] = helpersAbove(sk, joint, c, above[c]);
    any = any || !chains[c].empty();
  }
  if (!any) return;
  for (Animation& anim : rig.animations) makeAbsolute(anim, sk);  // H(t) and C(t) are local poses, not offsets from the bind
  // Every clip first, against the skeleton as it was; then the skeleton.
  std::vector<Bone> rest(sk.bones.size());
  float shear = 0.0f;
  for (size_t c = 0; c < sk.bones.size(); ++c) {
    if (chains[c].empty()) continue;
    rest[c] = sk.bones[c];
    shear = std::max(shear, decomposeTrs(helpersAt(rig, nullptr, chains[c], 0.0f) * sk.bones[c].localMatrix(), rest[c]));
  }
  for (Animation& anim : rig.animations) {
    Worst worst;
    size_t composed = 0;
    std::vector<BoneTrack> moved;
    for (size_t c = 0; c < sk.bones.size(); ++c) {
      if (chains[c].empty()) continue;
      const auto child = static_cast<int32_t>(c);
      std::vector<const BoneTrack*> tracks{trackOn(anim, child)};
      for (int32_t h : chains[c]) tracks.push_back(trackOn(anim, h));
      if (std::all_of(tracks.begin(), tracks.end(), [](const BoneTrack* t) { return t == nullptr; })) continue;  // the new rest covers it
      moved.push_back(composedTrack(rig, child, tracks[0], unionOfKeyTimes(tracks), [&](float t) { return helpersAt(rig, &anim, chains[c], t); },
                                    rest[c], worst));
      ++composed;
    }
    for (BoneTrack& t : moved) {
      if (BoneTrack* own = trackOn(anim, t.bone)) *own = std::move(t);
      else anim.tracks.push_back(std::move(t));
    }
    if (composed == 0) continue;
    rig.provenance.warn("helper-tracks-composed", fmt::format("animation '{}': {} track{} of joints below bones folded into them composed with "
                                                              "those bones' motion, keyed at the union of their key times and between them where "
                                                              "the motion bends; largest deviation {}",
                                                              anim.name, composed, composed == 1 ? "" : "s", worst.describe()));
  }
  std::string list;
  size_t folded = 0;
  for (size_t c = 0; c < sk.bones.size(); ++c) {
    if (chains[c].empty()) continue;
    std::string helpers;
    for (auto it = chains[c].rbegin(); it != chains[c].rend(); ++it) helpers += fmt::format("'{}' -> ", printable(sk.bones[static_cast<size_t>(*it)].name));
    if (folded++ < 8) {
      list += fmt::format("{}'{}' -> {}'{}'", list.empty() ? "" : ", ", printable(sk.bones[static_cast<size_t>(above[c])].name), helpers,
                          printable(sk.bones[c].name));
    }
    const Bone folding = rest[c];
    Bone& b = sk.bones[c];
    b.parent = above[c];
    b.translation = folding.translation;
    b.rotation = folding.rotation;
    b.scale = folding.scale;
  }
  if (folded > 8) list += fmt::format(" and {} more", folded - 8);
  rig.provenance.warn("helpers-folded", fmt::format("{} joint{} below bones that are no joint ({}): {}'s joints hang on joints, so each hangs on "
                                                    "the joint above with those bones' transforms multiplied in; the bones stay for what else "
                                                    "hangs on them{}",
                                                    folded, folded == 1 ? "" : "s", list, format,
                                                    shear > 1e-4f ? fmt::format(" (their scale shears a joint's frame by a cosine of {:.3g}, "
                                                                                "which the frame cannot hold)", shear)
                                                                  : std::string()));
}

}  // namespace rigport
