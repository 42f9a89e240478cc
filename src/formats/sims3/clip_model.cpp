#include "formats/sims3/clip_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/hash.hpp"
#include "formats/sims3/clip_layout.hpp"
#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#endif

namespace rigport::sims3 {
namespace {

using namespace clip;
using Json = nlohmann::json;

std::string toHex(std::span<const uint8_t> bytes) {
  std::string s;
  s.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) s += fmt::format("{:02x}", b);
  return s;
}

// Payload bytes back from eventPayload()'s hex; a character that is not a hex digit ends them.
std::vector<uint8_t> fromHex(const std::string& s) {
  auto nibble = [](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
  };
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) {
    const int hi = nibble(s[i]), lo = nibble(s[i + 1]);
    if (hi < 0 || lo < 0) break;
    out.push_back(static_cast<uint8_t>(hi << 4 | lo));
  }
  return out;
}

uint32_t u32At(const std::vector<uint8_t>& p, size_t at) {
  uint32_t v = 0;
  if (at + 4 <= p.size()) std::memcpy(&v, p.data() + at, 4);
  return v;
}

// §2.12: the common fields, the type's fields a user looks for, and the payload bytes as stored.
std::string eventPayload(const ClipEvent& e) {
  Json j{{"eventType", e.type}, {"id", e.id}, {"name", e.name}, {"unknown", {e.unknown1, e.unknown2, e.unknown3}}};
  const auto& p = e.payload;
  auto hash = [&](size_t at) { return fmt::format("0x{:08X}", u32At(p, at)); };
  switch (e.type) {
    case kEventAttach: j["prop"] = hash(0), j["object"] = hash(4), j["slot"] = hash(8); break;
    case kEventUnparent: j["object"] = hash(0); break;
    case kEventSound: j["sound"] = std::string(reinterpret_cast<const char*>(p.data()), strnlen(reinterpret_cast<const char*>(p.data()), p.size())); break;
    case kEventEffect: j["effect"] = hash(8), j["actor"] = hash(12), j["slot"] = hash(16); break;
    case kEventVisibility: {
      float v = 0.0f;
      if (p.size() >= 4) std::memcpy(&v, p.data(), 4);
      j["visibility"] = v;
      break;
    }
    case kEventDestroyProp: j["prop"] = hash(0); break;
    case kEventStopEffect: j["effect"] = hash(0); break;
    default: break;
  }
  j["payloadHex"] = toHex(p);
  // Names are ASCII in real data; other bytes are kept exactly in nameHex, and the JSON text shows
  // them as U+FFFD.
  if (std::any_of(e.name.begin(), e.name.end(), [](char ch) { return static_cast<unsigned char>(ch) >= 0x80; })) {
    j["nameHex"] = toHex({reinterpret_cast<const uint8_t*>(e.name.data()), e.name.size()});
  }
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string cutAtNul(const std::string& field) { return field.substr(0, field.find('\0')); }

enum class Kind { Translation, Rotation, Scalar, None };
Kind kindOf(uint8_t type) {
  switch (type) {
    case kF3Indexed:
    case kF3Zero:
    case kF3HighPrecisionNormalized: return Kind::Translation;
    case kF4Zero:
    case kF4QuaternionIdentity:
    case kF4SuperHighPrecisionQuaternion: return Kind::Rotation;
    case kF1Normalized:
    case kF1Zero: return Kind::Scalar;
    default: return Kind::None;
  }
}

// A channel's keys, sized once and written in place: push_back's capacity test and end pointer per
// key cost more than the key (value(k) gives a key's value).
template <class T, class Value>
void fillKeys(Keys<T>& out, const std::vector<ClipKey>& keys, float dt, const Value& value) {
  out.times.resize(keys.size());
  out.values.resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    out.times[i] = keys[i].frame * dt;
    out.values[i] = value(keys[i]);
  }
}

// R4: a rotation key, stored x, y, z, w, renormalised after decoding (q / |q|); the identity where
// |q| is not above 1e-6 or not finite, counted in zeroQuats.
glm::quat renormalised(const ClipKey& k, size_t& zeroQuats) {
#if RIGPORT_SSE2_LANES
  // The key in one register, x y z w as glm::quat stores them (quat_lanes.hpp): every lane gets
  // glm::dot's (w*w + x*x) + (y*y + z*z) with its additions' operands swapped (the same sums), and
  // the root and the four divisions are IEEE's, so the key is the scalar rule's bit for bit
  // (Sims3Keys.RotationRenormalisationLanesMatchTheScalarRule); a package's 300,000 rotation keys
  // took some 25 instructions each the scalar way.
  static_assert(sizeof(glm::quat) == sizeof k.v, "glm::quat is x, y, z, w floats");
  const __m128 v = _mm_loadu_ps(k.v.data());
  const __m128 squares = _mm_mul_ps(v, v);
  const __m128 pairs = _mm_add_ps(squares, _mm_shuffle_ps(squares, squares, _MM_SHUFFLE(0, 1, 2, 3)));  // xx+ww, yy+zz, zz+yy, ww+xx
  const __m128 len = _mm_sqrt_ps(_mm_add_ps(pairs, _mm_shuffle_ps(pairs, pairs, _MM_SHUFFLE(2, 3, 0, 1))));
  const __m128 usable = _mm_and_ps(_mm_cmpgt_ps(len, _mm_set1_ps(1e-6f)), _mm_cmplt_ps(len, _mm_set1_ps(std::numeric_limits<float>::infinity())));
  if ((_mm_movemask_ps(usable) & 1) == 0) {
    ++zeroQuats;
    return glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
  }
  glm::quat q;
  _mm_storeu_ps(reinterpret_cast<float*>(&q), _mm_div_ps(v, len));
  return q;
#else
  glm::quat q(k.v[3], k.v[0], k.v[1], k.v[2]);
  const float len = glm::length(q);
  if (!(len > 1e-6f) || !std::isfinite(len)) {
    ++zeroQuats;
    return glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
  }
  q /= len;
  return q;
#endif
}

// Each track's index by the key its curves name: open addressing in one array with room for every
// curve at half load, probed from the key's middle product bits (the keys are FNV hashes). As a
// std::unordered_map a package clip's 20 tracks were 21 blocks, its nodes and buckets.
class TrackIndex {
 public:
  explicit TrackIndex(size_t curves) : slots_(std::bit_ceil(2 * curves + 1)) {}

  // The index of `key`'s track and false, or, for a key not seen before, `next` (taken for it) and true.
  std::pair<size_t, bool> find(uint32_t key, size_t next) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = static_cast<size_t>((uint64_t{key} * 0x9E3779B97F4A7C15ull) >> 32) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.index == kFree) {
        s = Slot{key, static_cast<uint32_t>(next)};
        return {next, true};
      }
      if (s.key == key) return {s.index, false};
    }
  }

 private:
  static constexpr uint32_t kFree = ~0u;  // a track index is below the curve count, a u32 (§2.2)
  struct Slot {
    uint32_t key = 0;
    uint32_t index = kFree;
  };
  std::vector<Slot> slots_;
};

}  // namespace

const char* clip::eventTypeName(uint16_t type) {
  switch (type) {
    case kEventAttach: return "attach";
    case kEventUnparent: return "unparent";
    case kEventSound: return "sound";
    case kEventScript: return "script";
    case kEventEffect: return "start-effect";
    case kEventVisibility: return "visibility";
    case kEventDestroyProp: return "destroy-prop";
    case kEventStopEffect: return "stop-effect";
    default: return "unknown";
  }
}

namespace {

// `from`'s arrays, emptied, as `to`'s: their capacity is what is reused.
template <class T>
void takeArrays(Keys<T>& to, Keys<T>& from) {
  to.times = std::move(from.times);
  to.values = std::move(from.values);
  to.times.clear();
  to.values.clear();
}

}  // namespace

Animation clipToAnimation(const ClipFile& c, Provenance& warn, Animation* storage, bool keysCounted) {
  Animation anim;
  anim.name = c.name;
  const float dt = c.frameDuration;
  TrackIndex trackOf(c.curves.size());
  std::vector<ClipKey> keys;
  // At most a track per curve: reserved, no track is moved as the vector grows (a package clip's 20
  // tracks took 51 moves, 3 M of its 500 clips' instructions with their frees).
  anim.tracks.reserve(c.curves.size());
  KeyTally tally;
  size_t zeroQuats = 0, stored = 0;
  float last = 0.0f;
  // Per track, whether a curve gave it translation or rotation keys (a second such curve is a
  // duplicate); with keysCounted, each channel's keys go into these arrays instead, and are let go.
  enum : uint8_t { kTranslated = 1, kRotated = 2 };
  std::vector<uint8_t> keyed;
  Keys<glm::vec3> countedTranslation;
  Keys<glm::quat> countedRotation;
  Keys<float> countedScalar;
  for (size_t ci = 0; ci < c.curves.size(); ++ci) {
    const ClipCurve& curve = c.curves[ci];
    const Kind kind = kindOf(curve.channelType);
    if (kind == Kind::None) continue;  // parseClip warned
    const bool constant = constantChannel(curve.channelType);
    if (!constant) {
      dequantiseCurve(curve, c.palette, keys, &tally);
      stored += keys.size();
    } else {  // no key record (R8): one key holds the value, at frame 0 with no flags (nothing to count)
      keys.assign(1, ClipKey{});
      if (curve.channelType == kF4QuaternionIdentity || curve.channelType == kF4Zero) keys[0].v = {0.0f, 0.0f, 0.0f, 1.0f};
    }
    if (!keys.empty()) last = std::max(last, keys.back().frame * dt);
    if (kind == Kind::Scalar) {
      ScalarChannel s;
      s.name = fmt::format("0x{:08X}", curve.trackKey);
      s.target = "morph/driver (low 32 bits of FNV64 of its name)";
      fillKeys(keysCounted ? countedScalar : s.keys, keys, dt, [](const ClipKey& k) { return k.v[0]; });
      anim.scalars.push_back(std::move(s));
      continue;
    }
    const auto [index, fresh] = trackOf.find(curve.trackKey, anim.tracks.size());
    if (fresh) {  // made in place: moving a BoneTrack (its 14 arrays and strings) is some 85 instructions
      BoneTrack& t = anim.tracks.emplace_back();
      if (storage != nullptr && index < storage->tracks.size()) {
        takeArrays(t.translation, storage->tracks[index].translation);
        takeArrays(t.rotation, storage->tracks[index].rotation);
      }
      t.target.nameHash = curve.trackKey;
      t.target.nameHashKind = HashKind::Fnv1_32Lower;
      keyed.push_back(0);
    }
    BoneTrack& t = anim.tracks[index];
    const uint8_t channel = kind == Kind::Translation ? kTranslated : kRotated;
    if (keyed[index] & channel) {
      warn.warn("duplicate-curve", fmt::format("curve {}: a second {} curve for track 0x{:08X}; ignored", ci,
                                               kind == Kind::Translation ? "translation" : "rotation", curve.trackKey));
      continue;
    }
    if (!keys.empty()) keyed[index] |= channel;
    if (kind == Kind::Translation) {
      fillKeys(keysCounted ? countedTranslation : t.translation, keys, dt, [](const ClipKey& k) { return glm::vec3(k.v[0], k.v[1], k.v[2]); });
    } else {
      fillKeys(keysCounted ? countedRotation : t.rotation, keys, dt, [&zeroQuats](const ClipKey& k) { return renormalised(k, zeroQuats); });
    }
  }
  if (tally.badIndices > 0) warn.warn("palette-index", fmt::format("{} palette indices point past the {}-float palette; read as 0", tally.badIndices, c.palette.size()));
  if (tally.flagged > 0) warn.warn("key-flags", fmt::format("{} keys set flag bits 4-15 (0 in all TS3 data; TS4's \"snap\"); ignored", tally.flagged));
  if (zeroQuats > 0) warn.warn("zero-rotation", fmt::format("{} rotation keys decode to a zero-length quaternion; identity used", zeroQuats));
  if (tally.unsorted > 0) warn.warn("key-order", fmt::format("{} keys are not after the key before them (R9: strictly increasing); sorted", tally.unsorted));
  anim.duration = std::max(last, c.ticks > 0 ? (c.ticks - 1) * dt : 0.0f);

  for (const ClipEvent& e : c.events) anim.events.push_back(Event{e.time, eventTypeName(e.type), eventPayload(e)});
  Json chains = Json::array();
  for (const auto& chain : c.ikChains) {
    Json targets = Json::array();
    for (const ClipSlotTarget& t : chain) {
      targets.push_back(Json{{"index", t.index}, {"namespace", cutAtNul(t.namespaceField)}, {"bone", cutAtNul(t.boneField)}});
    }
    chains.push_back(std::move(targets));
  }
  // frameCount: the blob's maxFrameCount (ticks, R9); storedKeys: the key records, which `info`
  // counts (the model's keyCount() also counts the one key of each constant channel).
  // Member by member into the object in place: an initializer list is copied pair by pair, twice
  // the work, for every clip of a package.
  Json& s3 = anim.extras["sims3"];
  s3["actor"] = c.actor;
  s3["source"] = c.source;
  s3["frameCount"] = c.ticks;
  s3["frameDuration"] = c.frameDuration;
  s3["unknown"] = c.unknown16;
  s3["storedKeys"] = stored;
  if (c.hasIkTable) s3["ikChains"] = std::move(chains);
  return anim;
}

namespace {

// A channel's frame indices (R9: key time = frame x 1/30), keys landing on one frame merged (the
// last wins) and a key at frame 0 added when the first is later: every real curve starts at 0.
template <class T>
Result<std::vector<std::pair<uint16_t, T>>> framesOf(const Keys<T>& keys, float dt) {
  std::vector<std::pair<uint16_t, T>> out;
  for (size_t i = 0; i < keys.times.size() && i < keys.values.size(); ++i) {
    const double f = std::round(static_cast<double>(keys.times[i]) / dt);
    if (!(f >= 0.0 && f <= 65535.0)) {
      return makeError(ErrorCode::TooLarge, fmt::format("key time {} s is frame {}; a CLIP frame index is 0..65535", keys.times[i], f));
    }
    const auto frame = static_cast<uint16_t>(f);
    if (!out.empty() && out.back().first >= frame) {
      if (out.back().first == frame) out.back().second = keys.values[i];
      continue;
    }
    out.emplace_back(frame, keys.values[i]);
  }
  if (!out.empty() && out.front().first > 0) out.insert(out.begin(), {uint16_t{0}, out.front().second});
  return out;
}

// Offset and scale from the value range (the _s4animtools rule: offset = mid-range, scale =
// half-range; 1 when the range is empty), then per component the code round(|n| * max) and the
// sign bit (R2). Codes are 10, 12 or 16 bits wide.
struct Quantiser {
  float offset = 0.0f, scale = 1.0f;
  Quantiser(float lo, float hi) {
    offset = static_cast<float>((static_cast<double>(lo) + hi) / 2.0);
    scale = static_cast<float>((static_cast<double>(hi) - lo) / 2.0);
    if (!(scale > 0.0f) || !std::isfinite(scale)) scale = 1.0f;
  }
  uint32_t code(float v, float max, unsigned component, uint16_t& flags) const {
    const double n = (static_cast<double>(v) - offset) / scale;
    if (n < 0) flags |= static_cast<uint16_t>(1u << component);
    return static_cast<uint32_t>(std::min<double>(max, std::round(std::fabs(n) * max)));
  }
};

void put16(std::vector<uint8_t>& b, uint16_t v) { b.push_back(static_cast<uint8_t>(v)), b.push_back(static_cast<uint8_t>(v >> 8)); }
void put32(std::vector<uint8_t>& b, uint32_t v) { put16(b, static_cast<uint16_t>(v)), put16(b, static_cast<uint16_t>(v >> 16)); }

ClipCurve constantCurve(uint32_t key, uint8_t type, uint8_t subTarget) {
  ClipCurve c;
  c.trackKey = key;
  c.channelType = type;
  c.subTarget = subTarget;
  return c;
}

template <class V, int N>
ClipCurve quantised(uint32_t key, uint8_t type, uint8_t subTarget, const std::vector<std::pair<uint16_t, V>>& frames, float max,
                    uint32_t stride) {
  float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
  auto comp = [](const V& v, int i) -> float {
    if constexpr (N == 1) return v;
    else if constexpr (N == 3) return v[i];
    else return i == 3 ? v.w : v[i];  // glm::quat indexes x, y, z, w
  };
  for (const auto& [f, v] : frames)
    for (int i = 0; i < N; ++i) lo = std::min(lo, comp(v, i)), hi = std::max(hi, comp(v, i));
  const Quantiser q(lo, hi);
  ClipCurve c = constantCurve(key, type, subTarget);
  c.offset = q.offset;
  c.scale = q.scale;
  c.frameCount = static_cast<uint16_t>(frames.size());
  c.stride = stride;
  c.keyBytes.reserve(frames.size() * stride);
  for (const auto& [frame, v] : frames) {
    uint16_t flags = 0;
    uint32_t codes[4] = {0, 0, 0, 0};
    for (int i = 0; i < N; ++i) codes[i] = q.code(comp(v, i), max, static_cast<unsigned>(i), flags);
    put16(c.keyBytes, frame);
    put16(c.keyBytes, flags);
    if (type == kF3HighPrecisionNormalized) put32(c.keyBytes, codes[0] | codes[1] << 10 | codes[2] << 20);
    else
      for (int i = 0; i < N; ++i) put16(c.keyBytes, static_cast<uint16_t>(codes[i]));
  }
  return c;
}

Result<uint32_t> trackKeyOf(const BoneTrack& t, const Skeleton* skeleton) {
  if (skeleton != nullptr && t.bone >= 0 && static_cast<size_t>(t.bone) < skeleton->bones.size()) {
    const Bone& b = skeleton->bones[static_cast<size_t>(t.bone)];
    if (b.nameHash && b.nameHashKind == HashKind::Fnv1_32Lower) return static_cast<uint32_t>(*b.nameHash);
    if (!b.name.empty()) return fnv1_32Lower(b.name);
  }
  if (t.target.nameHash && t.target.nameHashKind == HashKind::Fnv1_32Lower) return static_cast<uint32_t>(*t.target.nameHash);
  if (!t.target.name.empty()) return fnv1_32Lower(t.target.name);
  return makeError(ErrorCode::Usage, "a track names no bone (no name, no FNV32 hash): its CLIP track key is unknown");
}

uint32_t scalarKeyOf(const std::string& name) {
  if (name.size() == 10 && name.rfind("0x", 0) == 0) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(name.c_str() + 2, &end, 16);
    if (end == name.c_str() + 10) return static_cast<uint32_t>(v);
  }
  return static_cast<uint32_t>(fnv1_64Lower(name));  // §2.9: the low 32 bits of FNV64
}

ClipEvent eventFromModel(const Event& e) {
  ClipEvent out;
  out.time = e.time;
  const Json j = Json::parse(e.payload, nullptr, false);
  if (j.is_object() && j.contains("eventType") && j.contains("payloadHex")) {
    out.type = j.value("eventType", uint16_t{kEventScript});
    out.id = j.value("id", 0u);
    out.name = j.value("name", std::string());
    if (j.contains("nameHex")) {
      const std::vector<uint8_t> raw = fromHex(j.value("nameHex", std::string()));
      out.name.assign(raw.begin(), raw.end());
    }
    const Json u = j.value("unknown", Json());
    if (u.is_array() && u.size() == 3 && u[0].is_number() && u[1].is_number() && u[2].is_number_unsigned()) {
      out.unknown1 = u[0].get<float>();
      out.unknown2 = u[1].get<float>();
      out.unknown3 = u[2].get<uint32_t>();
    }
    out.payload = fromHex(j.value("payloadHex", std::string()));
    return out;
  }
  // An event from another format: a script ("SACS") event carrying its type as the name.
  out.type = kEventScript;
  out.name = e.type;
  return out;
}

}  // namespace

Result<ClipFile> animationToClip(const Animation& anim, const Skeleton* skeleton) {
  ClipFile c;
  const Json s3 = anim.extras.is_object() ? anim.extras.value("sims3", Json::object()) : Json::object();
  c.name = anim.name;
  c.source = s3.value("source", anim.name + ".blend");
  c.actor = s3.value("actor", std::string("x"));
  c.unknown16 = s3.value("unknown", uint16_t{0});
  const float dt = kFrameDuration;
  uint32_t lastFrame = 0;
  for (const BoneTrack& t : anim.tracks) {
    RP_ASSIGN(const uint32_t key, trackKeyOf(t, skeleton));
    if (!t.translation.empty()) {
      RP_ASSIGN(const auto frames, framesOf(t.translation, dt));
      lastFrame = std::max<uint32_t>(lastFrame, frames.back().first);
      const bool zero = std::all_of(frames.begin(), frames.end(), [](const auto& f) { return f.second == glm::vec3(0.0f); });
      c.curves.push_back(zero ? constantCurve(key, kF3Zero, kTranslation)
                              : quantised<glm::vec3, 3>(key, kF3HighPrecisionNormalized, kTranslation, frames, kMax10, kStrideTranslation));
    }
    if (!t.rotation.empty()) {
      RP_ASSIGN(auto frames, framesOf(t.rotation, dt));
      lastFrame = std::max<uint32_t>(lastFrame, frames.back().first);
      for (auto& [f, q] : frames) q = glm::normalize(q);
      const bool identity = std::all_of(frames.begin(), frames.end(), [](const auto& f) {
        return std::fabs(std::fabs(f.second.w) - 1.0f) < 1e-7f;
      });
      c.curves.push_back(identity ? constantCurve(key, kF4QuaternionIdentity, kOrientation)
                                  : quantised<glm::quat, 4>(key, kF4SuperHighPrecisionQuaternion, kOrientation, frames, kMax12,
                                                            kStrideQuaternion));
    }
  }
  for (const ScalarChannel& s : anim.scalars) {
    if (s.keys.empty()) continue;
    RP_ASSIGN(const auto frames, framesOf(s.keys, dt));
    lastFrame = std::max<uint32_t>(lastFrame, frames.back().first);
    const uint32_t key = scalarKeyOf(s.name);
    const bool zero = std::all_of(frames.begin(), frames.end(), [](const auto& f) { return f.second == 0.0f; });
    c.curves.push_back(zero ? constantCurve(key, kF1Zero, kMorph)
                            : quantised<float, 1>(key, kF1Normalized, kMorph, frames, kMax16, kStrideScalar));
  }
  const double durationFrames = std::round(static_cast<double>(anim.duration) / dt);
  if (durationFrames > 65534.0) return makeError(ErrorCode::TooLarge, fmt::format("a {} s clip is longer than a CLIP's 65535 frames", anim.duration));
  lastFrame = std::max<uint32_t>(lastFrame, durationFrames > 0 ? static_cast<uint32_t>(durationFrames) : 0);
  c.ticks = static_cast<uint16_t>(lastFrame + 1);  // R9: last key index + 1
  for (const Event& e : anim.events) c.events.push_back(eventFromModel(e));
  if (s3.contains("ikChains") && s3["ikChains"].is_array()) {
    c.hasIkTable = true;
    for (const Json& chain : s3["ikChains"]) {
      std::vector<ClipSlotTarget> targets;
      if (chain.is_array()) {
        for (const Json& t : chain) {
          if (!t.is_object()) continue;
          targets.push_back(ClipSlotTarget{t.value("index", 0), t.value("namespace", std::string()), t.value("bone", std::string())});
        }
      }
      c.ikChains.push_back(std::move(targets));
    }
  }
  return c;
}

}  // namespace rigport::sims3
