#include "pipeline/stance.hpp"

#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "core/rest_pose.hpp"
#include "formats/registry.hpp"

namespace rigport {
namespace {

struct ClipTime {
  std::string clip;
  float seconds = 0.0f;
};

// CLIP[@SECONDS]: the time after the last '@', a finite number of seconds, at least 0.
std::optional<ClipTime> parseClipTime(const std::string& text) {
  const size_t at = text.rfind('@');
  if (at == std::string::npos) return ClipTime{text, 0.0f};
  ClipTime out{text.substr(0, at), 0.0f};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data() + at + 1, end, out.seconds);
  if (ec != std::errc() || ptr != end || !std::isfinite(out.seconds) || out.seconds < 0.0f || out.clip.empty()) return std::nullopt;
  return out;
}

Error usage(std::string message) { return makeError(ErrorCode::Usage, std::move(message)); }

Status restFromClip(Rig& rig, const std::string& spec) {
  const std::optional<ClipTime> at = parseClipTime(spec);
  if (!at) return usage(fmt::format("--rest-pose {}: not CLIP[@SECONDS]", spec));
  const std::optional<size_t> clip = findClip(rig, at->clip);
  if (!clip) {
    return usage(fmt::format("--rest-pose: rig '{}' has no clip named '{}' (`rigport info` lists the clips; give them with --anim)",
                             rig.name, at->clip));
  }
  restPoseFromClip(rig, *clip, at->seconds);
  return Ok{};
}

// The default: the bind pose, unless it lies on its side and the format names an idle clip. Returns
// the rest pose's bounds where it took them and left the pose as it was (the ground lift's, then).
std::optional<std::optional<RestBounds>> defaultRest(Rig& rig, const StandHints& hints) {
  if (hints.idleClip.empty()) return std::nullopt;
  std::optional<RestBounds> bounds = restPoseBounds(rig);
  if (!bounds) return bounds;
  const Stance stance = stanceOf(*bounds, rig.provenance.axes);
  if (!stance.lies()) return bounds;
  const float m = rig.provenance.axes.metresPerUnit;
  const std::string lies = fmt::format("the bind pose lies on its side ({:.2f} m long, {:.2f} m tall)", stance.length * m, stance.height * m);
  if (const std::optional<size_t> idle = findClip(rig, hints.idleClip)) {
    restPoseFromClip(rig, *idle, 0.0f);
    rig.provenance.warn("rest-pose", fmt::format("{}: the rest pose is clip '{}' at 0 s, the game's idle stance, and the mesh "
                                                 "deforms into it; --rest-pose bind keeps the bind pose",
                                                 lies, rig.animations[*idle].name));
    return std::nullopt;  // a new pose: its bounds are to be taken again
  }
  rig.provenance.warn("rest-pose-lies", fmt::format("{}; to stand it, take the rest pose from the game's idle clip: --anim {} "
                                                    "--rest-pose {}",
                                                    lies, hints.idleClipFile, hints.idleClip));
  return bounds;
}

}  // namespace

bool isRestPoseSpec(const std::string& text) { return text == kBindPose || parseClipTime(text).has_value(); }

Result<float> settleStance(Rig& rig, const StanceOptions& o, bool ground) {
  const FormatInfo* format = findFormat(rig.provenance.format);
  const StandHints hints = format != nullptr ? format->stand : StandHints{};
  std::optional<std::optional<RestBounds>> taken;  // the rest pose's bounds, where defaultRest() took them
  if (o.restPose.empty()) {
    taken = defaultRest(rig, hints);
  } else if (o.restPose != kBindPose) {
    RP_CHECK(restFromClip(rig, o.restPose));
  }
  if (!ground || o.noGround || !hints.originAboveFeet) return 0.0f;
  const std::optional<RestBounds> bounds = taken ? *taken : restPoseBounds(rig);
  if (!bounds) return 0.0f;
  const float lowest = rig.provenance.axes.up == AxisSystem::Up::Z ? bounds->lo.z : bounds->lo.y;
  return -lowest * rig.provenance.axes.metresPerUnit;
}

}  // namespace rigport
