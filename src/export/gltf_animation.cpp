// Animations (format note gltf_ecosystem.md §1.3, §5.5-5.6, §5.8): per bone track one sampler per
// translation/rotation/scale key set, of the key set's interpolation (STEP, LINEAR, CUBICSPLINE),
// times in seconds as float with min/max taken from the float32 values written, strictly increasing
// (normalizeKeys merges duplicates), and unit quaternions (in one hemisphere unless cubic). Tracks
// relative to the bind pose are made absolute first (core/track_space.hpp). Events and scalar
// channels have no glTF form: they go to the animation's extras, and an animation left with no
// channel (glTF requires at least one) goes to the root extras, so nothing is dropped silently.
// Morph weight tracks become weights channels on their mesh's node.
// Samplers and channels are plain records written as JSON text: a clip package has tens of
// thousands, and as nlohmann objects they cost more than the keys themselves.
#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "core/bind.hpp"
#include "core/finite_scan.hpp"
#include "core/track_space.hpp"
#include "core/validate.hpp"
#include "export/gltf_document.hpp"
#include "export/gltf_scale_compensation.hpp"

namespace rigport::gltf {
namespace {

bool finite(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
bool finite(const glm::quat& q) { return std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w); }

// Where a key set lives, for errors only: the path is formatted when one is raised, not per track
// (a clip package has tens of thousands of tracks).
struct KeysAt {
  size_t animation, track;
  const char* component;  // "translation", "rotation", "scale"
  std::string path(const char* field) const {
    return fmt::format("animations[{}]/tracks[{}]/{}/{}", animation, track, component, field);
  }
};

// The index of the first value that is not finite (a NaN or infinite component), or its size.
template <class T>
size_t firstNotFinite(const std::vector<T>& values) {
  if (!anyNonFinite(values)) return values.size();
  for (size_t k = 0; k < values.size(); ++k) {
    if (!finite(values[k])) return k;
  }
  return values.size();
}

template <class T>
Status checkValues(const std::vector<T>& values, const KeysAt& at, const char* what) {
  if (const size_t k = firstNotFinite(values); k < values.size()) {
    return invalidModel(at.path(fmt::format("{}[{}]", what, k).c_str()), "key value is not finite (or a zero quaternion)");
  }
  return Ok{};
}

template <class T>
Status checkKeys(const Keys<T>& keys, const KeysAt& at) {
  if (keys.times.front() < 0.0f) {
    return invalidModel(at.path("times[0]"), fmt::format("key time {} is negative; glTF times start at 0 or later", keys.times.front()));
  }
  RP_CHECK(checkValues(keys.values, at, "values"));
  RP_CHECK(checkValues(keys.inTangents, at, "inTangents"));
  return checkValues(keys.outTangents, at, "outTangents");
}

// The glTF sampler interpolation for a key set; CUBICSPLINE needs 2 keys (§1.3), and one key is a
// constant, the same under every interpolation.
template <class T>
const char* samplerName(const Keys<T>& keys) {
  if (keys.interpolation == Interpolation::Step) return "STEP";
  return keys.interpolation == Interpolation::CubicSpline && keys.times.size() >= 2 ? "CUBICSPLINE" : "LINEAR";
}

// glTF component order: x, y, z (and w last for quaternions, whatever glm's storage order is).
float* put(float* out, const glm::vec3& v) {
  out[0] = v.x;
  out[1] = v.y;
  out[2] = v.z;
  return out + 3;
}
float* put(float* out, const glm::quat& q) {
  out[0] = q.x;
  out[1] = q.y;
  out[2] = q.z;
  out[3] = q.w;
  return out + 4;
}

// glTF's sampler output is, for STEP and LINEAR, the values one after another, each x, y, z (and w
// for rotations): the bytes of a std::vector<glm::vec3> and, glm storing a quaternion's x first and
// w last, of a std::vector<glm::quat>.
static_assert(sizeof(glm::vec3) == 3 * sizeof(float) && sizeof(glm::quat) == 4 * sizeof(float));
static_assert(offsetof(glm::quat, x) == 0 && offsetof(glm::quat, w) == 3 * sizeof(float), "glm::quat is x, y, z, w floats");

// Writes one sampler's input and output; the input accessor is shared with the previous key set of
// the same track when its times are identical (the usual case for T/R/S sampled together).
// `lasting`: the keys stay unchanged and alive until the buffer has been written (the exporter's
// own animations: addAnimations), so the arrays glTF reads as they are, the times and a STEP or
// LINEAR key set's values, are borrowed by the buffer rather than copied into it. An IFP's 1,000
// clips are 25 MB of such keys: copied, they were a second copy of the keys, in fresh pages.
class TrackWriter {
 public:
  TrackWriter(Document& doc, std::vector<AnimationSampler>& samplers, std::vector<AnimationChannel>& channels, bool lasting)
      : doc_(doc), samplers_(samplers), channels_(channels), lasting_(lasting) {}

  template <class T>
  Status add(const Keys<T>& keys, uint32_t node, const char* pathName, const KeysAt& at) {
    if (keys.empty()) return Ok{};
    RP_CHECK(checkKeys(keys, at));
    const size_t n = keys.times.size();
    if (lastTimes_ == nullptr || *lastTimes_ != keys.times) {
      const std::span<const float> min(&keys.times.front(), 1), max(&keys.times.back(), 1);
      lastInput_ = lasting_ ? doc_.buffer.borrowAccessor(keys.times.data(), n * sizeof(float), n, ComponentType::Float, "SCALAR", ViewTarget::None, min, max)
                            : doc_.buffer.copyAccessor(keys.times.data(), n * sizeof(float), n, ComponentType::Float, "SCALAR", ViewTarget::None, min, max);
      lastTimes_ = &keys.times;
    }
    const bool cubic = std::string_view(samplerName(keys)) == "CUBICSPLINE";
    constexpr bool isQuat = std::is_same_v<T, glm::quat>;
    constexpr size_t kComponents = isQuat ? 4 : 3;
    const char* type = isQuat ? "VEC4" : "VEC3";
    const size_t elements = n * (cubic ? 3 : 1);
    const size_t bytes = elements * kComponents * sizeof(float);
    uint32_t output = 0;
    if (lasting_ && !cubic) {
      assert(keys.values.size() == n);  // validate() and normalizeKeys() keep a value per time
      output = doc_.buffer.borrowAccessor(keys.values.data(), bytes, elements, ComponentType::Float, type, ViewTarget::None);
    } else {
      const T zero = [] {
        if constexpr (isQuat) return glm::quat(0.0f, 0.0f, 0.0f, 0.0f);
        else return glm::vec3(0.0f);
      }();
      // Written straight into the buffer: per key the in-tangent, value, out-tangent (Spec Appendix
      // C), per second as the model keeps them (rig.hpp, Keys); the first in- and last out-tangent
      // are unused and written as zero, as the spec asks.
      const size_t offset = doc_.buffer.allocate(bytes);
      float* out = reinterpret_cast<float*>(doc_.buffer.at(offset));
      for (size_t k = 0; k < n; ++k) {
        if (cubic) out = put(out, k == 0 ? zero : keys.inTangents[k]);
        out = put(out, keys.values[k]);
        if (cubic) out = put(out, k + 1 == n ? zero : keys.outTangents[k]);
      }
      output = doc_.buffer.accessor(offset, bytes, elements, ComponentType::Float, type, ViewTarget::None);
    }
    samplers_.push_back(AnimationSampler{lastInput_, output, samplerName(keys)});
    channels_.push_back(AnimationChannel{static_cast<uint32_t>(samplers_.size() - 1), node, pathName});
    return Ok{};
  }

 private:
  Document& doc_;
  std::vector<AnimationSampler>& samplers_;
  std::vector<AnimationChannel>& channels_;
  bool lasting_;
  const std::vector<float>* lastTimes_ = nullptr;
  uint32_t lastInput_ = 0;
};

void writeScalar(JsonWriter& w, const ScalarChannel& s) {
  w.startObject();
  w.key("name").string(s.name);
  w.key("target").string(s.target);
  w.key("interpolation").string(samplerName(s.keys));
  w.key("times").floats(s.keys.times);
  w.key("values").floats(s.keys.values);
  if (s.keys.interpolation == Interpolation::CubicSpline) {
    w.key("inTangents").floats(s.keys.inTangents);  // per second, as glTF's CUBICSPLINE (rig.hpp, Keys)
    w.key("outTangents").floats(s.keys.outTangents);
  }
  w.endObject();
}

// The animation's extras (merged over the model's): its duration, then the events, scalar channels
// and unbound tracks it has.
void writeAnimationExtras(JsonWriter& w, const Animation& anim) {
  bool unbound = false;
  for (const BoneTrack& t : anim.tracks) unbound = unbound || t.bone < 0;
  std::string_view ours[4];
  size_t n = 0;
  ours[n++] = "duration";
  if (!anim.events.empty()) ours[n++] = "events";
  if (!anim.scalars.empty()) ours[n++] = "scalarChannels";
  if (unbound) ours[n++] = "unboundTracks";
  writeExtras(w, "extras", anim.extras, std::span(ours, n), [&](JsonWriter& x, size_t k) {
    const std::string_view key = ours[k];
    if (key == "duration") {
      x.number(anim.duration);
    } else if (key == "events") {
      x.startArray();
      for (const Event& e : anim.events) {
        x.startObject();
        x.key("time").number(e.time);
        x.key("type").string(e.type);
        x.key("payload").string(e.payload);
        x.endObject();
      }
      x.endArray();
    } else if (key == "scalarChannels") {
      x.startArray();
      for (const ScalarChannel& c : anim.scalars) writeScalar(x, c);
      x.endArray();
    } else {
      x.startArray();
      for (const BoneTrack& t : anim.tracks) {
        if (t.bone < 0) x.string(t.target.name.empty() ? std::string_view("(unnamed)") : std::string_view(t.target.name));
      }
      x.endArray();
    }
  });
}

// One channel or sampler record's JSON text, built in place: its numbers are uint32 and its words
// rigport's own (no escape), so the longest record, 72 characters, fits.
class RecordText {
 public:
  RecordText& operator<<(std::string_view s) {
    assert(s.size() <= sizeof text_ - size_);
    std::memcpy(text_ + size_, s.data(), s.size());
    size_ += s.size();
    return *this;
  }
  RecordText& operator<<(uint32_t v) {
    size_ = static_cast<size_t>(std::to_chars(text_ + size_, text_ + sizeof text_, v).ptr - text_);
    return *this;
  }
  std::string_view view() const { return {text_, size_}; }

 private:
  char text_[96];
  size_t size_ = 0;
};

// An array of records as one piece of text (JsonWriter::raw), the text the writer's calls made:
// there a record's keys, numbers and two objects cost some 900 instructions, and an IFP's 1,000
// clips have 96,000 records. The last animation's records and their text are kept in `kept` and
// `text`, and the text reused when the records are the same.
template <class Record, class Write>
void writeRecords(JsonWriter& w, const char* key, const std::vector<Record>& records, std::vector<Record>& kept, std::string& text,
                  Write&& write) {
  if (records != kept || text.empty()) {
    kept = records;
    text.assign(1, '[');
    for (size_t i = 0; i < records.size(); ++i) {
      RecordText t;
      if (i > 0) t << ",";
      write(t, records[i]);
      text += t.view();
    }
    text += ']';
  }
  w.key(key).raw(text);
}

void writeChannels(JsonWriter& w, const std::vector<AnimationChannel>& channels, const std::vector<AnimationSampler>& samplers, AnimationRecordsText& last) {
  writeRecords(w, "channels", channels, last.channels, last.channelsJson, [](RecordText& t, const AnimationChannel& c) {
    t << R"({"sampler":)" << c.sampler << R"(,"target":{"node":)" << c.node << R"(,"path":")" << c.path << R"("}})";
  });
  writeRecords(w, "samplers", samplers, last.samplers, last.samplersJson, [](RecordText& t, const AnimationSampler& s) {
    t << R"({"input":)" << s.input << R"(,"interpolation":")" << s.interpolation << R"(","output":)" << s.output << "}";
  });
}

// Each compensation node under a bone whose scale this clip keys gets 1/S_p(t)
// (gltf_scale_compensation.hpp); its keys are checked as the parent's were.
Status addCompensationScales(Document& doc, const Skeleton& skeleton, const Animation& anim, const std::vector<int32_t>& trackOfBone, size_t a,
                             std::vector<AnimationSampler>& samplers, std::vector<AnimationChannel>& channels) {
  for (size_t c = 0; c < skeleton.bones.size(); ++c) {
    if (!doc.compensationNode[c]) continue;
    const int32_t t = trackOfBone[static_cast<size_t>(skeleton.bones[c].parent)];
    if (t < 0 || anim.tracks[static_cast<size_t>(t)].scale.empty()) continue;
    const Keys<glm::vec3> inverse = inverseScaleKeys(anim.tracks[static_cast<size_t>(t)].scale);
    TrackWriter writer(doc, samplers, channels, false);  // `inverse` is gone before the buffer is written
    RP_CHECK(writer.add(inverse, *doc.compensationNode[c], "scale", KeysAt{a, static_cast<size_t>(t), "scale"}));
  }
  return Ok{};
}

// One weights channel per bound morph weight track, on its mesh's node (Spec §3.11: the output is
// keys × targets weights, ×3 for CUBICSPLINE, each key's in-tangents, weights, out-tangents).
Status addMorphWeights(Document& doc, const Animation& anim, size_t a, std::vector<AnimationSampler>& samplers, std::vector<AnimationChannel>& channels) {
  for (size_t i = 0; i < anim.morphWeights.size(); ++i) {
    const MorphWeightTrack& track = anim.morphWeights[i];
    const std::string at = fmt::format("animations[{}]/morphWeights[{}]", a, i);
    if (track.meshIndex < 0 || track.times.empty()) continue;  // unbound: named by bindAnimations()
    const std::optional<uint32_t> node = doc.meshNode[static_cast<size_t>(track.meshIndex)];
    if (!node) continue;  // a mesh without vertices has no node (root extras.meshesWithoutVertices)
    if (track.times.front() < 0.0f) return invalidModel(at + "/times[0]", fmt::format("key time {} is negative; glTF times start at 0 or later", track.times.front()));
    if (anyNonFinite(track.times) || anyNonFinite(track.weights) || anyNonFinite(track.inTangents) || anyNonFinite(track.outTangents)) {
      return invalidModel(at, "a key time, weight or tangent is not finite");
    }
    const size_t n = track.times.size(), w = track.targetCount;
    const uint32_t input = doc.buffer.copyAccessor(track.times.data(), n * sizeof(float), n, ComponentType::Float, "SCALAR", ViewTarget::None,
                                                   std::span(&track.times.front(), 1), std::span(&track.times.back(), 1));
    const bool cubic = track.interpolation == Interpolation::CubicSpline && n >= 2;
    const char* interpolation = track.interpolation == Interpolation::Step ? "STEP" : cubic ? "CUBICSPLINE" : "LINEAR";
    const size_t elements = n * w * (cubic ? 3 : 1);
    const size_t offset = doc.buffer.allocate(elements * sizeof(float));
    float* out = reinterpret_cast<float*>(doc.buffer.at(offset));
    for (size_t k = 0; k < n; ++k) {
      // The first in- and the last out-tangent are unused and written as zero, as the spec asks.
      if (cubic) out = k == 0 ? std::fill_n(out, w, 0.0f) : std::copy_n(track.inTangents.data() + k * w, w, out);
      out = std::copy_n(track.weights.data() + k * w, w, out);
      if (cubic) out = k + 1 == n ? std::fill_n(out, w, 0.0f) : std::copy_n(track.outTangents.data() + k * w, w, out);
    }
    const uint32_t output = doc.buffer.accessor(offset, elements * sizeof(float), elements, ComponentType::Float, "SCALAR", ViewTarget::None);
    samplers.push_back(AnimationSampler{input, output, interpolation});
    channels.push_back(AnimationChannel{static_cast<uint32_t>(samplers.size() - 1), *node, "weights"});
  }
  return Ok{};
}

// The clip's keys as glTF takes them, track by track: turned into glTF's axes (`change`, when they
// are not yet), made absolute and normalised, bit for bit what change->convertKeys(), makeAbsolute()
// and normalizeKeys() of the whole clip give. Where makeAbsolute() leaves a track, its rotation
// values are turned and normalised in one pass (normalizeTrack()): they were two, a tenth of a
// 1,000-clip IFP's instructions between them.
void prepareKeys(Animation& anim, const Skeleton& skeleton, const AxisChange* change) {
  for (BoneTrack& t : anim.tracks) {
    const bool relative = relativeToBind(t, skeleton);
    if (change) change->convertTrack(t, relative);
    makeAbsolute(t, skeleton);
    normalizeTrack(t, relative ? nullptr : change);
  }
  normalizeScalars(anim);
}

}  // namespace

Status validateClipsFrom(const Rig& rig, const std::vector<Animation>& animations, size_t first) {
  for (size_t a = first; a < animations.size(); ++a) RP_CHECK(validateAnimation(rig, animations[a], a));
  return Ok{};
}

Status addAnimations(Document& doc, const Rig& rig, std::vector<Animation>& animations, const AxisChange* pendingKeys,
                     AnimationRecordsText* records) {
  AnimationRecordsText own;
  AnimationRecordsText& last = records != nullptr ? *records : own;
  // Those without channels go to the root extras (rare), the rest to doc.animations.
  Json withoutChannels = Json::array();
  // About the text's length (a little more for most), reserved once: grown by doubling, it was
  // copied again and again, and held up to twice.
  size_t bytes = 2;
  for (const Animation& anim : animations) {
    bytes += 256 + anim.events.size() * 96;
    // A channel and a sampler record (about 110 characters) a key set, twice for scale keys (a
    // compensation node's inverse).
    for (const BoneTrack& t : anim.tracks) bytes += 128 * (!t.translation.empty() + !t.rotation.empty() + 2 * !t.scale.empty());
    for (const ScalarChannel& c : anim.scalars) bytes += 128 + c.keys.times.size() * 24;
    bytes += anim.morphWeights.size() * 2 * 140;
  }
  doc.animations.reserve(bytes);
  JsonWriter w(doc.animations);
  w.startArray();
  std::vector<AnimationSampler> samplers;
  std::vector<AnimationChannel> channels;
  std::vector<bool> animated;
  std::vector<int32_t> trackOfBone;
  const auto add = [&](size_t a) -> Status {
    Animation& anim = animations[a];
    prepareKeys(anim, rig.skeleton, pendingKeys);
    samplers.clear();
    channels.clear();
    animated.assign(rig.skeleton.bones.size(), false);
    trackOfBone.assign(rig.skeleton.bones.size(), -1);
    for (size_t t = 0; t < anim.tracks.size(); ++t) {
      const BoneTrack& track = anim.tracks[t];
      if (track.bone < 0) continue;  // listed in extras.unboundTracks
      const size_t bone = static_cast<size_t>(track.bone);
      // One node+path per animation (ANIMATION_DUPLICATE_TARGETS, §1.3); bindAnimations() already
      // drops such duplicates with a warning, so one reaching here is a reader bug.
      if (animated[bone]) {
        return invalidModel(fmt::format("animations[{}]/tracks[{}]", a, t), fmt::format("a second track animates bone '{}'", rig.skeleton.bones[bone].name));
      }
      animated[bone] = true;
      trackOfBone[bone] = static_cast<int32_t>(t);
      TrackWriter writer(doc, samplers, channels, true);
      const uint32_t node = doc.boneNode[bone];
      RP_CHECK(writer.add(track.translation, doc.compensationNode[bone].value_or(node), "translation", KeysAt{a, t, "translation"}));
      RP_CHECK(writer.add(track.rotation, node, "rotation", KeysAt{a, t, "rotation"}));
      RP_CHECK(writer.add(track.scale, node, "scale", KeysAt{a, t, "scale"}));
    }
    RP_CHECK(addCompensationScales(doc, rig.skeleton, anim, trackOfBone, a, samplers, channels));
    RP_CHECK(addMorphWeights(doc, anim, a, samplers, channels));
    const std::string name = anim.name.empty() ? fmt::format("animation_{}", a) : anim.name;
    if (channels.empty()) {
      // glTF requires channels and samplers to have at least one item.
      std::string text;
      JsonWriter x(text);
      x.startObject();
      x.key("name").string(name);
      writeAnimationExtras(x, anim);
      x.endObject();
      withoutChannels.push_back(Json::parse(text));
      return Ok{};
    }
    w.startObject();
    w.key("name").string(name);
    writeAnimationExtras(w, anim);
    writeChannels(w, channels, samplers, last);
    w.endObject();
    return Ok{};
  };
  for (size_t a = 0; a < animations.size(); ++a) {
    RP_CHECK(validateAnimation(rig, animations[a], a));
    if (Status added = add(a); !added) {
      RP_CHECK(validateClipsFrom(rig, animations, a + 1));
      return added;
    }
  }
  w.endArray();
  if (!withoutChannels.empty()) doc.extras["animationsWithoutChannels"] = std::move(withoutChannels);
  return Ok{};
}

}  // namespace rigport::gltf
