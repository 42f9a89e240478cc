// GTA IFP entry points: magic detection and dispatch (renderware.md §4).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>
#include <utility>

#include "formats/renderware/renderware.hpp"
#include "formats/renderware/axes.hpp"
#include "formats/renderware/ifp_reader.hpp"

namespace rigport::renderware {
namespace {

bool hasMagic(std::span<const uint8_t> bytes, const char* magic) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), magic, 4) == 0;
}

// librwgta convifp accepts "ANLF" size, i32 numPackages, then that many ANPK packages (§4.1).
Status readAnlf(ByteReader& r, ClipSet& clips, const ReadContext& ctx) {
  RP_CHECK(r.skip(8, "ANLF"));
  RP_ASSIGN(const int32_t numPackages, r.s32("numPackages"));
  if (numPackages < 0) return r.errorAt(r.position() - 4, ErrorCode::BadValue, fmt::format("negative package count {}", numPackages), "numPackages");
  // A package is at least its 8-byte header plus an 8-byte INFO block holding the animation count.
  RP_ASSIGN(const size_t n, r.count(static_cast<uint64_t>(numPackages), 16, "numPackages"));
  for (size_t i = 0; i < n; ++i) {
    auto scope = r.scope(Field("package", static_cast<int64_t>(i)));
    RP_CHECK(ifp::readAnpk(r, clips, ctx));
  }
  return Ok{};
}

// Names the games give one bone: IFP tracks without a bone id name the top bone "Root" where a
// ped calls it "Normal" (§1.3: root frame names vary), and the hands "R Fingers"/"L Fingers" where
// the ped has "R Finger"/"L Finger" (issue 13, real SA ped.ifp packages). Either side may be the file's.
constexpr std::pair<std::string_view, std::string_view> kBoneAliases[] = {
    {"Root", "Normal"}, {"R Fingers", "R Finger"}, {"L Fingers", "L Finger"}};

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Equal but for the case of letters; `alias` is one of kBoneAliases, which has no edge spaces.
bool sameName(std::string_view trimmedName, std::string_view alias) {
  return trimmedName.size() == alias.size() && std::equal(trimmedName.begin(), trimmedName.end(), alias.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The track's name trimmed once, not per alias compared (six comparisons a track, 32,000 tracks in
// a 1,000-clip package).
void addGameAliases(ClipSet& clips) {
  for (Animation& anim : clips.animations) {
    for (BoneTrack& t : anim.tracks) {
      const std::string_view name = trimmed(t.target.name);
      for (const auto& [a, b] : kBoneAliases) {
        if (sameName(name, a)) t.target.aliases.emplace_back(b);
        if (sameName(name, b)) t.target.aliases.emplace_back(a);
      }
    }
  }
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

void animationDecoded(const ReadContext& ctx, ClipSet& clips, const ByteReader& r, size_t& kept) {
  if (!ctx.options.animationRead) return;
  ctx.options.animationRead(clips.animations.back());
  constexpr size_t kGivenBackBytes = size_t{1} << 20;
  if (!ctx.releaseBytes || r.position() - kept < kGivenBackBytes) return;
  ctx.releaseBytes(r.data().subspan(kept, r.position() - kept));
  kept = r.position();
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
    RP_CHECK(ifp::readAnpk(r, clips, ctx));
  } else if (hasMagic(bytes, "ANLF")) {
    RP_CHECK(readAnlf(r, clips, ctx));
  } else if (hasMagic(bytes, "ANP3") || hasMagic(bytes, "ANP2")) {
    const bool isAnp3 = bytes[3] == '3';
    RP_CHECK(r.skip(4, "magic"));
    RP_CHECK(ifp::readAnp23(r, clips, isAnp3, ctx));
  } else {
    return r.error(ErrorCode::BadValue, "not an IFP package: magic is none of ANPK, ANP3, ANP2, ANLF", "magic");
  }
  addGameAliases(clips);
  return clips;
}

}  // namespace rigport::renderware
