// .anm writer: one type-1 (standard keys) Anim Animation chunk 0x1B per animation
// (renderware.md §1.10). An .anm binds by node position, so its nodes follow the order the DFF writer
// gives the same skeleton's HAnim nodes (hanimNodeOrder: joints depth-first), not the joint list's:
// a glTF skin lists its joints in any order.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/key_sample.hpp"
#include "core/track_space.hpp"
#include "formats/renderware/axes.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/renderware/anm_layout.hpp"
#include "formats/renderware/chunk.hpp"
#include "formats/renderware/hanim_plg.hpp"

namespace rigport::renderware {
namespace {

// Without a skeleton, node positions come from the tracks alone; HAnim hierarchies are far smaller.
constexpr uint32_t kMaxNodesWithoutSkeleton = 1u << 16;
// Resampling writes nodes x union-of-times keys; refuse outputs beyond 16 M keys (576 MB) rather
// than exhaust memory on a pathological rig (e.g. thousands of nodes each keyed at distinct times).
constexpr size_t kMaxKeys = size_t{1} << 24;

// RenderWare keys are linear only: a cubic spline is written as linear keys at most this far apart,
// the 1/60 s tick of GTA's compressed key times (renderware.md §4.2), finer than games play them.
constexpr float kCubicSampleStep = 1.0f / 60.0f;

// Maps each track to its node: a bound track by its bone's place in the joint list, an unbound
// one by its BoneRef position (as read from an .anm).
Result<std::vector<const BoneTrack*>> tracksByNode(const Animation& anim, const std::vector<uint32_t>& joints) {
  std::vector<const BoneTrack*> byNode(joints.size(), nullptr);
  for (const BoneTrack& t : anim.tracks) {
    uint32_t node = 0;
    if (t.bone >= 0) {
      const auto it = std::find(joints.begin(), joints.end(), static_cast<uint32_t>(t.bone));
      if (it == joints.end()) {
        return makeError(ErrorCode::Usage, fmt::format("animation '{}': track on bone {} which is not a joint of the skeleton", anim.name, t.bone));
      }
      node = static_cast<uint32_t>(it - joints.begin());
    } else if (t.target.position && (joints.empty() ? *t.target.position < kMaxNodesWithoutSkeleton : *t.target.position < joints.size())) {
      node = *t.target.position;
    } else {
      return makeError(ErrorCode::Usage, fmt::format("animation '{}': track '{}' has no bone and no node position among the {} joints; bind it first",
                                                     anim.name, t.target.name, joints.size()));
    }
    if (node >= byNode.size()) byNode.resize(node + 1, nullptr);
    if (byNode[node] != nullptr) {
      return makeError(ErrorCode::Usage, fmt::format("animation '{}': two tracks for node {}", anim.name, node));
    }
    byNode[node] = &t;
  }
  return byNode;
}

// The times a key set needs in a linear-only format to look the same: its key times; for Step, also
// the float just before each change, holding the earlier value; for CubicSpline, also times at most
// kCubicSampleStep apart inside each segment.
template <class T>
void addKeyTimes(std::vector<float>& times, const Keys<T>& keys) {
  times.insert(times.end(), keys.times.begin(), keys.times.end());
  for (size_t k = 1; k < keys.times.size(); ++k) {
    const float t0 = keys.times[k - 1], t1 = keys.times[k];
    if (keys.interpolation == Interpolation::Step) {
      if (const float before = std::nextafter(t1, t0); before > t0) times.push_back(before);
    } else if (keys.interpolation == Interpolation::CubicSpline) {
      // Past kMaxKeys times the writer refuses the animation anyway: stop before a hostile key gap
      // (say 1e9 s) makes billions of them.
      if (times.size() > kMaxKeys) return;
      const double steps = std::min(std::ceil((static_cast<double>(t1) - t0) / kCubicSampleStep), static_cast<double>(kMaxKeys));
      for (double i = 1; i < steps; ++i) times.push_back(static_cast<float>(t0 + (t1 - t0) * (i / steps)));
    }
  }
}

// Every node gets a key at each time any track needs one: simple, and it keeps librw's key order
// (§1.10) trivially valid.
std::vector<float> keyTimes(const Animation& anim) {
  std::vector<float> times;
  for (const BoneTrack& t : anim.tracks) {
    addKeyTimes(times, t.rotation);
    addKeyTimes(times, t.translation);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  if (times.empty()) times.push_back(0.0f);
  // librw's interpolator starts from two keys per node (AnimInterpolator::setCurrentAnim).
  if (times.size() == 1 && anim.duration > times[0]) times.push_back(anim.duration);
  return times;
}

Status writeAnimation(ByteWriter& w, const Skeleton& skeleton, const std::vector<uint32_t>& joints, const Animation& anim) {
  RP_ASSIGN(const std::vector<const BoneTrack*> byNode, tracksByNode(anim, joints));
  const std::vector<float> times = keyTimes(anim);
  const size_t numNodes = byNode.size();
  if (numNodes != 0 && times.size() > kMaxKeys / numNodes) {
    return makeError(ErrorCode::TooLarge, fmt::format("animation '{}': {} nodes x {} key times exceed the writer's {} keys",
                                                      anim.name, numNodes, times.size(), kMaxKeys));
  }

  const size_t chunk = beginChunk(w, kAnimAnimation, anm::kWriterLibraryId);
  w.s32(anm::kVersion);
  w.s32(anm::kStandardKeys);
  w.u32(static_cast<uint32_t>(times.size() * numNodes));
  w.s32(0);  // flags
  w.f32(std::max(anim.duration, times.back()));
  // First the start key of every node, then each node's next key: sorted by the time of the key
  // each one replaces (§1.10). prevOffset is the byte offset of the node's previous key.
  for (size_t k = 0; k < times.size(); ++k) {
    for (size_t node = 0; node < numNodes; ++node) {
      glm::quat bindRotation{1.0f, 0.0f, 0.0f, 0.0f};
      glm::vec3 bindTranslation{0.0f};
      if (node < joints.size() && joints[node] < skeleton.bones.size()) {
        bindRotation = skeleton.bones[joints[node]].rotation;
        bindTranslation = skeleton.bones[joints[node]].translation;
      }
      glm::quat q = bindRotation;
      glm::vec3 t = bindTranslation;
      if (const BoneTrack* track = byNode[node]) {
        q = sampleKeys(track->rotation, times[k], bindRotation);
        t = sampleKeys(track->translation, times[k], bindTranslation);
      }
      w.f32(times[k]);
      w.f32(q.x);
      w.f32(q.y);
      w.f32(q.z);
      w.f32(q.w);
      w.f32(t.x);
      w.f32(t.y);
      w.f32(t.z);
      w.u32(k == 0 ? anm::kFirstKeyPrev : static_cast<uint32_t>(((k - 1) * numNodes + node) * anm::kStandardKeySize));
    }
  }
  endChunk(w, chunk);
  return Ok{};
}

}  // namespace

Result<std::vector<uint8_t>> writeAnm(const Rig& source) {
  if (source.animations.empty()) return makeError(ErrorCode::Usage, "the rig has no animations to write as .anm");
  std::optional<Rig> converted;
  const Rig& rig = inRenderWareAxes(source, converted);
  const std::vector<uint32_t> joints = hanimNodeOrder(rig.skeleton, rig.skeleton.jointList()).bones;
  ByteWriter w;
  for (const Animation& anim : rig.animations) {
    Animation absolute = anim;  // .anm keys replace the bind pose (renderware.md §1.10)
    makeAbsolute(absolute, rig.skeleton);
    RP_CHECK(writeAnimation(w, rig.skeleton, joints, absolute));
  }
  return w.take();
}

Result<std::vector<uint8_t>> writeAnm(const ClipSet& clips) {
  Rig rig;  // no skeleton: every track keeps the node position it was read with
  rig.animations = clips.animations;
  rig.provenance = clips.provenance;
  return writeAnm(rig);
}

}  // namespace rigport::renderware
