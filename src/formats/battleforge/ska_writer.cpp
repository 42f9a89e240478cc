// .ska writer (battleforge_drs.md §9): one translation and one rotation channel per track (the
// add-on always writes both, PR #74; a missing one holds the bind value), times normalised by the
// duration, rotations stored (x, y, z, −w). CUBICSPLINE tangents are written per normalised time
// (out-tangent × duration); STEP and LINEAR keys get zero tangents, as the add-on writes without its
// "export tangents" option: `convert --to` first rewrites them as Hermite keys that keep their motion
// (core/fit_keys.hpp, keysToHermite). Scale keys have no SKA channel: that conversion drops them
// with a warning measuring the loss, and this writer ignores them.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "core/byte_writer.hpp"
#include "core/track_space.hpp"
#include "formats/battleforge/axes.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "formats/battleforge/drs_layout.hpp"
#include "formats/battleforge/skeleton.hpp"

namespace rigport::battleforge {
namespace {

struct Channel {
  uint32_t type = 0;
  uint32_t boneId = 0;
  std::vector<float> times;
  std::vector<glm::vec4> values;
  std::vector<glm::vec4> tangents;
};

template <class T, class ToVec4>
void addKeys(Channel& c, const Keys<T>& keys, float duration, ToVec4 toVec4) {
  const bool cubic = keys.interpolation == Interpolation::CubicSpline && keys.outTangents.size() == keys.values.size();
  for (size_t k = 0; k < keys.times.size(); ++k) {
    c.times.push_back(duration > 0.0f ? keys.times[k] / duration : 0.0f);
    c.values.push_back(toVec4(keys.values[k], false));
    c.tangents.push_back(cubic ? toVec4(keys.outTangents[k], true) * duration : glm::vec4(0.0f));
  }
}

// One key at time 0 holding the bind value.
template <class T>
Keys<T> bindKey(const T& value) {
  Keys<T> keys;
  keys.times.push_back(0.0f);
  keys.values.push_back(value);
  return keys;
}

int32_t extraOr(const Animation& anim, const char* key, int32_t fallback) {
  if (!anim.extras.is_object() || !anim.extras.contains("battleforge")) return fallback;
  const nlohmann::json& bf = anim.extras["battleforge"];
  return bf.contains(key) && bf[key].is_number_integer() ? bf[key].get<int32_t>() : fallback;
}

}  // namespace

Result<std::vector<uint8_t>> writeSka(const Animation& source, const Skeleton& skeleton) {
  Animation anim = source;
  makeAbsolute(anim, skeleton);
  float duration = anim.duration;
  for (const BoneTrack& t : anim.tracks) {
    if (!t.translation.empty()) duration = std::max(duration, t.translation.times.back());
    if (!t.rotation.empty()) duration = std::max(duration, t.rotation.times.back());
  }
  if (!std::isfinite(duration)) {
    return makeError(ErrorCode::Unsupported, fmt::format("animation '{}': its keys span no finite length of time", anim.name));
  }
  std::vector<Channel> channels;
  const std::vector<uint32_t> versions = boneVersions(skeleton);
  for (const BoneTrack& t : anim.tracks) {
    const Bone* bone = t.bone >= 0 && static_cast<size_t>(t.bone) < skeleton.bones.size() ? &skeleton.bones[t.bone] : nullptr;
    uint32_t id = 0;
    if (bone != nullptr) {
      id = versions[static_cast<size_t>(t.bone)];
    } else if (t.target.id) {
      id = *t.target.id;
    } else {
      return makeError(ErrorCode::Usage, fmt::format("animation '{}': track '{}' has no bone and no bone version; bind it to a skeleton first",
                                                     anim.name, t.target.name));
    }
    Channel tr, rot;
    tr.type = kSkaTranslation;
    rot.type = kSkaRotation;
    tr.boneId = rot.boneId = id;
    const auto vec = [](const glm::vec3& v, bool tangent) { return glm::vec4(v, tangent ? 0.0f : 1.0f); };
    const auto quat = [](const glm::quat& q, bool) { return glm::vec4(q.x, q.y, q.z, -q.w); };
    if (!t.translation.empty()) addKeys(tr, t.translation, duration, vec);
    else if (bone != nullptr) addKeys(tr, bindKey(bone->translation), duration, vec);
    if (!t.rotation.empty()) addKeys(rot, t.rotation, duration, quat);
    else if (bone != nullptr) addKeys(rot, bindKey(bone->rotation), duration, quat);
    for (Channel* c : {&tr, &rot})
      if (!c->times.empty()) channels.push_back(std::move(*c));
  }
  const int32_t type = extraOr(anim, "type", 6) == 7 ? 7 : 6;
  ByteWriter w;
  size_t keys = 0;
  for (const Channel& c : channels) keys += c.times.size();
  w.reserve(32 + 16 * channels.size() + 36 * keys);
  w.s32(kSkaMagic);
  w.u32(static_cast<uint32_t>(type));
  w.u32(static_cast<uint32_t>(channels.size()));
  uint32_t start = 0;
  for (const Channel& c : channels) {
    w.u32(start);
    w.u32(static_cast<uint32_t>(c.times.size()));
    w.u32(c.type);
    w.u32(c.boneId);
    start += static_cast<uint32_t>(c.times.size());
  }
  w.u32(start);
  for (const Channel& c : channels)
    for (float t : c.times) w.f32(t);
  for (const Channel& c : channels) {
    for (size_t k = 0; k < c.values.size(); ++k) {
      for (int i = 0; i < 4; ++i) w.f32(c.values[k][i]);
      for (int i = 0; i < 4; ++i) w.f32(c.tangents[k][i]);
    }
  }
  w.f32(duration);
  w.s32(extraOr(anim, "repeat", 1));
  w.s32(extraOr(anim, "stutterMode", 0));
  if (type == 7) w.s32(extraOr(anim, "unknown7", 0));
  w.s32(extraOr(anim, "frameLength", static_cast<int32_t>(std::lround(duration * 30.0f))));
  w.zeros(12);
  return w.take();
}

Result<std::vector<uint8_t>> writeSka(const Rig& rig) {
  if (rig.animations.empty()) return makeError(ErrorCode::Usage, "the rig has no animation to write as a SKA");
  if (rig.animations.size() > 1) {
    return makeError(ErrorCode::Usage, fmt::format("a SKA holds one animation and the rig has {}; write one file per clip", rig.animations.size()));
  }
  std::optional<Rig> storage;
  const Rig& r = inBattleForgeAxes(rig, storage);
  return writeSka(r.animations.front(), r.skeleton);
}

}  // namespace rigport::battleforge
