// .ska reader (battleforge_drs.md §9): headers point into one shared array of normalised times and
// 32-byte keys; each header is one channel (0 translation, 1 rotation) of the bone whose
// Bone.version is bone_id. Keys become glTF-style CUBICSPLINE keys: the game and the add-on play
// them as cubic Hermite curves, so a cubic spline is the faithful form (zero tangents included,
// which ease in and out of each key); the tangents are per normalised time, so per second they are
// tangent / duration. Rotations are (x, y, z, −w); their tangents' w is negated the same way.
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "formats/battleforge/axes.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "formats/battleforge/drs_layout.hpp"

namespace rigport::battleforge {
namespace {

struct SkaHeader {
  uint32_t tick = 0;      // start index into times/keys
  uint32_t interval = 0;  // key count
  uint32_t type = 0;
  uint32_t boneId = 0;    // Bone.version
};

struct SkaKey {
  glm::vec4 value;
  glm::vec4 tangent;
};

}  // namespace

bool probeSka(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  auto magic = r.s32("magic");
  return magic && *magic == kSkaMagic;
}

Result<ClipSet> readSka(std::span<const uint8_t> bytes, ReadContext& ctx) {
  ByteReader r = ctx.reader(bytes);
  ClipSet clips;
  clips.provenance.format = "battleforge-ska";
  clips.provenance.axes = kBattleForgeAxes;
  RP_ASSIGN(const int32_t magic, r.s32("magic"));
  if (magic != kSkaMagic) {
    return r.errorAt(0, ErrorCode::BadValue, fmt::format("magic 0x{:08X} is not a SKA (0xA7148107)", static_cast<uint32_t>(magic)), "magic");
  }
  RP_ASSIGN(const uint32_t type, r.u32("type"));
  if (type != 6 && type != 7) {
    return r.errorAt(4, ErrorCode::Unsupported, fmt::format("SKA type {} carries no keyframes (only types 6 and 7 do)", type), "type");
  }
  RP_ASSIGN(const uint32_t headerCount, r.u32("header_count"));
  RP_ASSIGN(const size_t nh, r.count(headerCount, kSkaHeaderSize, "header_count"));
  const size_t headersAt = r.position();
  std::vector<SkaHeader> headers(nh);
  for (size_t i = 0; i < nh; ++i) {
    auto scope = r.scope(Field("headers", static_cast<int64_t>(i)));
    RP_ASSIGN(headers[i].tick, r.u32("tick"));
    RP_ASSIGN(headers[i].interval, r.u32("interval"));
    RP_ASSIGN(headers[i].type, r.u32("type"));
    RP_ASSIGN(headers[i].boneId, r.u32("bone_id"));
  }
  RP_ASSIGN(const uint32_t timeCount, r.u32("time_count"));
  RP_ASSIGN(const size_t nt, r.count(timeCount, 4 + kSkaKeySize, "time_count"));
  RP_ASSIGN(const std::vector<float> times, r.array<float>(nt, "times"));
  RP_ASSIGN(const std::vector<float> raw, r.array<float>(8 * nt, "keys"));
  Animation anim;
  RP_ASSIGN(const float duration, r.f32("duration"));
  if (!std::isfinite(duration) || duration < 0.0f) {
    return r.errorAt(r.position() - 4, ErrorCode::BadValue, fmt::format("duration {} s is not a length of time", duration), "duration");
  }
  anim.duration = duration;
  RP_ASSIGN(const int32_t repeat, r.s32("repeat"));
  RP_ASSIGN(const int32_t stutter, r.s32("stutter_mode"));
  int32_t extra7 = 0;
  if (type == 7) { RP_ASSIGN(extra7, r.s32("unknown (type 7)")); }
  RP_ASSIGN(const int32_t frameLength, r.s32("frame_length"));
  RP_CHECK(r.skip(12, "zero"));
  if (!r.atEnd()) clips.provenance.warn("trailing-bytes", fmt::format("{} bytes after the SKA trailer at 0x{:X} ignored", r.remaining(), r.fileOffset()));
  anim.extras = {{"battleforge", {{"type", type}, {"repeat", repeat}, {"stutterMode", stutter}, {"frameLength", frameLength}}}};
  if (type == 7) anim.extras["battleforge"]["unknown7"] = extra7;

  const float tangentScale = duration > 0.0f ? 1.0f / duration : 0.0f;
  std::unordered_map<uint32_t, size_t> trackOf;
  size_t skippedTypes = 0;
  for (size_t i = 0; i < nh; ++i) {
    const SkaHeader& h = headers[i];
    if (h.tick > nt || h.interval > nt - h.tick) {
      return r.errorAt(headersAt + kSkaHeaderSize * i, ErrorCode::BadValue,
                       fmt::format("keys {}..{} of bone version {} lie past the {} keys", h.tick, uint64_t{h.tick} + h.interval, h.boneId, nt),
                       Field("headers", static_cast<int64_t>(i)));
    }
    if (h.type != kSkaTranslation && h.type != kSkaRotation) {
      ++skippedTypes;
      continue;
    }
    auto [it, fresh] = trackOf.emplace(h.boneId, anim.tracks.size());
    if (fresh) {
      BoneTrack t;
      t.target.id = h.boneId;
      anim.tracks.push_back(std::move(t));
    }
    BoneTrack& track = anim.tracks[it->second];
    const bool rotation = h.type == kSkaRotation;
    if (!(rotation ? track.rotation.empty() : track.translation.empty())) {
      clips.provenance.warn("duplicate-channel", fmt::format("header {}: a second {} channel for bone version {}; ignored", i,
                                                             rotation ? "rotation" : "translation", h.boneId));
      continue;
    }
    auto fill = [&](auto& keys, auto value) {
      keys.interpolation = Interpolation::CubicSpline;
      for (size_t k = h.tick; k < h.tick + h.interval; ++k) {
        const SkaKey key{{raw[8 * k], raw[8 * k + 1], raw[8 * k + 2], raw[8 * k + 3]}, {raw[8 * k + 4], raw[8 * k + 5], raw[8 * k + 6], raw[8 * k + 7]}};
        keys.times.push_back(times[k] * duration);
        keys.values.push_back(value(key.value));
        keys.inTangents.push_back(value(key.tangent * tangentScale));
        keys.outTangents.push_back(keys.inTangents.back());
      }
    };
    if (rotation) {
      fill(track.rotation, [](const glm::vec4& v) { return glm::quat(-v.w, v.x, v.y, v.z); });
    } else {
      fill(track.translation, [](const glm::vec4& v) { return glm::vec3(v); });
    }
  }
  if (duration == 0.0f && nt > 1) {
    clips.provenance.warn("zero-duration", fmt::format("duration 0 s: the {} keys' normalised times all become 0 s", nt));
  }
  if (skippedTypes > 0) clips.provenance.warn("channel-type", fmt::format("{} header(s) of a channel type other than 0 and 1 skipped", skippedTypes));
  clips.animations.push_back(std::move(anim));
  return clips;
}

}  // namespace rigport::battleforge
