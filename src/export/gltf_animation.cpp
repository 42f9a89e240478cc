// Animations (format note gltf_ecosystem.md §1.3, §5.5-5.6, §5.8): per bone track one LINEAR
// sampler per translation/rotation/scale key set, times in seconds as float with min/max taken
// from the float32 values written, strictly increasing (normalizeKeys merges duplicates), and unit
// quaternions in one hemisphere. Events and scalar channels have no glTF form: they go to the
// animation's extras, and an animation left with no channel (glTF requires at least one) goes to
// the root extras, so nothing is dropped silently.
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "core/bind.hpp"
#include "export/gltf_document.hpp"

namespace rigport::gltf {
namespace {

bool finite(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
bool finite(const glm::quat& q) { return std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w); }

template <class T>
Status checkKeys(const Keys<T>& keys, const std::string& path) {
  if (keys.times.front() < 0.0f) {
    return invalidModel(path + "/times[0]", fmt::format("key time {} is negative; glTF times start at 0 or later", keys.times.front()));
  }
  for (size_t k = 0; k < keys.values.size(); ++k) {
    if (!finite(keys.values[k])) return invalidModel(fmt::format("{}/values[{}]", path, k), "key value is not finite (or a zero quaternion)");
  }
  return Ok{};
}

// Writes one sampler's input and output; the input accessor is shared with the previous key set of
// the same track when its times are identical (the usual case for T/R/S sampled together).
class TrackWriter {
 public:
  TrackWriter(Document& doc, Json& samplers, Json& channels) : doc_(doc), samplers_(samplers), channels_(channels) {}

  template <class T>
  Status add(const Keys<T>& keys, uint32_t node, const char* pathName, const std::string& errorPath) {
    if (keys.empty()) return Ok{};
    RP_CHECK(checkKeys(keys, errorPath));
    const size_t n = keys.times.size();
    if (lastTimes_ == nullptr || *lastTimes_ != keys.times) {
      lastInput_ = doc_.buffer.copyAccessor(keys.times.data(), n * sizeof(float), n, ComponentType::Float, "SCALAR",
                                            ViewTarget::None, Json{keys.times.front()}, Json{keys.times.back()});
      lastTimes_ = &keys.times;
    }
    uint32_t output = 0;
    if constexpr (std::is_same_v<T, glm::quat>) {
      const size_t offset = doc_.buffer.allocate(n * 16);
      float* out = reinterpret_cast<float*>(doc_.buffer.at(offset));
      for (size_t k = 0; k < n; ++k) {  // glTF order x, y, z, w, whatever glm's storage order is
        out[k * 4 + 0] = keys.values[k].x;
        out[k * 4 + 1] = keys.values[k].y;
        out[k * 4 + 2] = keys.values[k].z;
        out[k * 4 + 3] = keys.values[k].w;
      }
      output = doc_.buffer.accessor(offset, n * 16, n, ComponentType::Float, "VEC4", ViewTarget::None);
    } else {
      output = doc_.buffer.copyAccessor(keys.values.data(), n * 12, n, ComponentType::Float, "VEC3", ViewTarget::None);
    }
    Json sampler = Json::object();
    sampler["input"] = lastInput_;
    sampler["interpolation"] = "LINEAR";
    sampler["output"] = output;
    samplers_.push_back(std::move(sampler));
    Json channel = Json::object();
    channel["sampler"] = samplers_.size() - 1;
    channel["target"] = {{"node", node}, {"path", pathName}};
    channels_.push_back(std::move(channel));
    return Ok{};
  }

 private:
  Document& doc_;
  Json& samplers_;
  Json& channels_;
  const std::vector<float>* lastTimes_ = nullptr;
  uint32_t lastInput_ = 0;
};

Json animationExtras(const Animation& anim) {
  Json extras = Json::object();
  extras["duration"] = anim.duration;
  if (!anim.events.empty()) {
    Json events = Json::array();
    for (const Event& e : anim.events) events.push_back({{"time", e.time}, {"type", e.type}, {"payload", e.payload}});
    extras["events"] = std::move(events);
  }
  if (!anim.scalars.empty()) {
    Json scalars = Json::array();
    for (const ScalarChannel& s : anim.scalars) {
      scalars.push_back({{"name", s.name}, {"target", s.target}, {"times", s.keys.times}, {"values", s.keys.values}});
    }
    extras["scalarChannels"] = std::move(scalars);
  }
  Json unbound = Json::array();
  for (const BoneTrack& t : anim.tracks) {
    if (t.bone < 0) unbound.push_back(t.target.name.empty() ? std::string("(unnamed)") : t.target.name);
  }
  if (!unbound.empty()) extras["unboundTracks"] = std::move(unbound);
  return extras;
}

}  // namespace

Status addAnimations(Document& doc, const Rig& rig) {
  Json withoutChannels = Json::array();
  for (size_t a = 0; a < rig.animations.size(); ++a) {
    Animation anim = rig.animations[a];
    normalizeKeys(anim);
    Json samplers = Json::array();
    Json channels = Json::array();
    std::vector<bool> animated(rig.skeleton.bones.size(), false);
    for (size_t t = 0; t < anim.tracks.size(); ++t) {
      const BoneTrack& track = anim.tracks[t];
      if (track.bone < 0) continue;  // listed in extras.unboundTracks
      const std::string path = fmt::format("animations[{}]/tracks[{}]", a, t);
      const size_t bone = static_cast<size_t>(track.bone);
      // One node+path per animation (ANIMATION_DUPLICATE_TARGETS, §1.3); bindAnimations() already
      // drops such duplicates with a warning, so one reaching here is a reader bug.
      if (animated[bone]) return invalidModel(path, fmt::format("a second track animates bone '{}'", rig.skeleton.bones[bone].name));
      animated[bone] = true;
      TrackWriter writer(doc, samplers, channels);
      const uint32_t node = doc.boneNode[bone];
      RP_CHECK(writer.add(track.translation, node, "translation", path + "/translation"));
      RP_CHECK(writer.add(track.rotation, node, "rotation", path + "/rotation"));
      RP_CHECK(writer.add(track.scale, node, "scale", path + "/scale"));
    }
    Json out = Json::object();
    out["name"] = anim.name.empty() ? fmt::format("animation_{}", a) : anim.name;
    if (channels.empty()) {
      // glTF requires channels and samplers to have at least one item.
      out["extras"] = withModelExtras(anim.extras, animationExtras(anim));
      withoutChannels.push_back(std::move(out));
      continue;
    }
    out["channels"] = std::move(channels);
    out["samplers"] = std::move(samplers);
    out["extras"] = withModelExtras(anim.extras, animationExtras(anim));
    doc.animations.push_back(std::move(out));
  }
  if (!withoutChannels.empty()) doc.extras["animationsWithoutChannels"] = std::move(withoutChannels);
  return Ok{};
}

}  // namespace rigport::gltf
