// GTA IFP entry points: magic detection and dispatch (renderware.md §4).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "formats/renderware/anim_io.hpp"
#include "formats/renderware/rw_axes.hpp"
#include "formats/renderware/ifp_packages.hpp"

namespace rigport::renderware {
namespace {

bool hasMagic(std::span<const uint8_t> bytes, const char* magic) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), magic, 4) == 0;
}

// librwgta convifp accepts "ANLF" size, i32 numPackages, then that many ANPK packages (§4.1).
Status readAnlf(ByteReader& r, ClipSet& clips) {
  RP_CHECK(r.skip(8, "ANLF"));
  const int32_t numPackages = RP_TRY(r.s32("numPackages"));
  if (numPackages < 0) return r.errorAt(r.position() - 4, ErrorCode::BadValue, fmt::format("negative package count {}", numPackages), "numPackages");
  // A package is at least its 8-byte header plus an 8-byte INFO block holding the animation count.
  const size_t n = RP_TRY(r.count(static_cast<uint64_t>(numPackages), 16, "numPackages"));
  for (size_t i = 0; i < n; ++i) {
    auto scope = r.scope(Field("package", static_cast<int64_t>(i)));
    RP_CHECK(ifp::readAnpk(r, clips));
  }
  return Ok{};
}

}  // namespace

namespace ifp {

float lastKeyTime(const Animation& anim) {
  float last = 0.0f;
  for (const BoneTrack& t : anim.tracks) {
    for (float time : t.rotation.times) last = std::max(last, time);
    for (float time : t.translation.times) last = std::max(last, time);
    for (float time : t.scale.times) last = std::max(last, time);
  }
  return last;
}

}  // namespace ifp

bool probeIfp(std::span<const uint8_t> bytes) {
  return hasMagic(bytes, "ANPK") || hasMagic(bytes, "ANP3") || hasMagic(bytes, "ANP2") || hasMagic(bytes, "ANLF");
}

Result<ClipSet> readIfp(std::span<const uint8_t> bytes, ReadContext& ctx) {
  ByteReader r = ctx.reader(bytes);
  ClipSet clips;
  clips.provenance.format = "gta-ifp";
  clips.provenance.axes = kRenderWareAxes;
  if (hasMagic(bytes, "ANPK")) {
    RP_CHECK(ifp::readAnpk(r, clips));
  } else if (hasMagic(bytes, "ANLF")) {
    RP_CHECK(readAnlf(r, clips));
  } else if (hasMagic(bytes, "ANP3") || hasMagic(bytes, "ANP2")) {
    const bool isAnp3 = bytes[3] == '3';
    RP_CHECK(r.skip(4, "magic"));
    RP_CHECK(ifp::readAnp23(r, clips, isAnp3));
  } else {
    return r.error(ErrorCode::BadValue, "not an IFP package: magic is none of ANPK, ANP3, ANP2, ANLF", "magic");
  }
  return clips;
}

}  // namespace rigport::renderware
