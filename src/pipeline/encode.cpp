#include "pipeline/encode.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "pipeline/file_names.hpp"
#include "core/fit.hpp"

namespace rigport {
namespace {

namespace fs = std::filesystem;

std::string writers(uint32_t carriesAll) {
  std::string out;
  for (const FormatInfo& f : formats()) {
    if (f.write == nullptr || (f.carries & carriesAll) != carriesAll) continue;
    out += (out.empty() ? "" : ", ") + std::string(f.name) + " (" + std::string(f.extensions) + ")";
  }
  return out.empty() ? std::string("none") : out;
}

// A copy of `rig`'s provenance without its reading warnings, so only this conversion's losses are new.
Provenance freshProvenance(const Provenance& p) {
  Provenance out;
  out.format = p.format;
  out.file = p.file;
  out.axes = p.axes;
  return out;
}

// The rig written into a copy of --base (FormatInfo::writeOnto); errors name the base file.
Result<std::vector<uint8_t>> writeOntoBase(const Rig& rig, const FormatInfo& format, const BaseFile& base) {
  auto source = Source::open(base.path, base.options.memoryLimit);
  if (!source) return source.error();
  ReadContext ctx = fileReadContext(base.path, base.options);
  auto bytes = format.writeOnto(rig, **source, ctx);
  if (!bytes && bytes.error().file.empty()) {
    Error e = bytes.error();
    e.file = base.path;
    e.message = "--base: " + e.message;
    return e;
  }
  return bytes;
}

Result<std::vector<uint8_t>> encode(Rig& rig, const FormatInfo& format, Provenance& losses, const BaseFile* base = nullptr) {
  const Provenance saved = rig.provenance;
  rig.provenance = freshProvenance(saved);
  if ((format.carries & kCarriesMesh) == 0 && !rig.meshes.empty()) {
    size_t vertices = 0;
    for (const Mesh& m : rig.meshes) vertices += m.positions.size();
    rig.provenance.warn("meshes-dropped", fmt::format("{} meshes ({} vertices) are not written: {} stores {}", rig.meshes.size(), vertices,
                                                      format.name, carriesText(format.carries)));
    rig.meshes.clear();
  }
  RP_CHECK(fitToLimits(rig, format.writeLimits(rig), format.name));
  losses.absorb(rig.provenance);
  auto bytes = base != nullptr ? writeOntoBase(rig, format, *base) : format.write(rig);
  if (!bytes) {
    Error e = bytes.error();
    e.message = fmt::format("{} writer: {}", format.name, e.message);
    return e;
  }
  return bytes;
}

std::string clipNames(const std::vector<Animation>& animations) {
  std::string names;
  for (const Animation& a : animations) names += (names.empty() ? "'" : ", '") + a.name + "'";
  return names;
}

constexpr std::string_view kClipPlaceholder = "{clip}";

// `animations` written with `format` at `pattern` (`option` is the flag that gave it): one file
// when it holds no {clip}, else a file per clip. A format that holds one clip per file refuses
// several in one file rather than keep the first alone.
Status encodeClips(Rig& rig, std::vector<Animation> animations, const FormatInfo& format, const std::string& pattern, std::string_view option,
                   EncodedFiles& result) {
  const size_t placeholder = pattern.find(kClipPlaceholder);
  if (placeholder == std::string::npos || animations.empty()) {
    if (format.limits.oneClipPerFile && animations.size() > 1) {
      return makeError(ErrorCode::Usage, fmt::format("{} {}: {} holds one clip per file, and the rig has {} ({}); put {{clip}} in the file "
                                                     "name for one file each ({} 'clips/{{clip}}{}'), or pick one with --clip NAME",
                                                     option, pattern, format.name, animations.size(), clipNames(animations), option,
                                                     firstExtension(format)));
    }
    rig.animations = std::move(animations);
    RP_ASSIGN(std::vector<uint8_t> bytes, encode(rig, format, result.losses));
    result.files.emplace_back(pattern, std::move(bytes));
    result.formats.push_back(&format);
    return Ok{};
  }
  for (Animation& anim : animations) {
    std::string path = pattern;
    path.replace(placeholder, kClipPlaceholder.size(), fileSafe(anim.name, "clip"));
    for (const auto& [existing, bytes] : result.files) {
      if (existing == path) return makeError(ErrorCode::Usage, fmt::format("{}: two clips are named '{}'", option, anim.name));
    }
    rig.animations.clear();
    rig.animations.push_back(std::move(anim));
    RP_ASSIGN(std::vector<uint8_t> clipBytes, encode(rig, format, result.losses));
    result.files.emplace_back(path, std::move(clipBytes));
    result.formats.push_back(&format);
  }
  return Ok{};
}

}  // namespace

std::string firstExtension(const FormatInfo& format) {
  const std::string_view list = format.extensions;
  return std::string(list.substr(0, list.find(',')));
}

Result<const FormatInfo*> targetFormat(const std::string& name) {
  const FormatInfo* f = findFormat(name);
  if (f == nullptr || f->write == nullptr) {
    return makeError(ErrorCode::Usage, fmt::format("--to {}: {}; formats with a writer: {}", name, f == nullptr ? "no such format" : "rigport has no writer for it",
                                                   writers(0)));
  }
  return f;
}

Result<const FormatInfo*> animationFormat(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  for (const FormatInfo& f : formats()) {
    if (f.write != nullptr && (f.carries & kCarriesAnimations) != 0 && namesFileOf(f, path)) return &f;
  }
  return makeError(ErrorCode::Usage, fmt::format("--anim-out {}: no animation writer for '{}' files; animation writers: {}", path, ext,
                                                 writers(kCarriesAnimations)));
}

Result<const FormatInfo*> baseFormat(const FormatInfo& target, const std::string& basePath) {
  if (target.writeOnto == nullptr) {
    std::string with;
    for (const FormatInfo& f : formats()) {
      if (f.writeOnto != nullptr) with += (with.empty() ? "" : ", ") + std::string(f.name);
    }
    return makeError(ErrorCode::Usage, fmt::format("--base {}: {} is written whole, not into a copy of an original; formats that take --base: {}",
                                                   basePath, target.name, with.empty() ? std::string("none") : with));
  }
  return &target;
}

namespace {

// encodeForFormat() on `rig` in place: fitted, and its parts moved or cleared as the files take
// them, except its meshes, which are as fitToLimits() leaves them when this returns (whatever the
// outcome), so that encodeForFormatKeeping() can give lent meshes back.
Result<EncodedFiles> encodeInPlace(Rig& rig, const FormatInfo& format, const std::string& out, const FormatInfo* animFormat,
                                   const std::string& animOut, const BaseFile* base) {
  EncodedFiles result;
  const bool storesAnimations = (format.carries & kCarriesAnimations) != 0;
  // A clip format of one clip per file, or any clip format given {clip}: -o names the files.
  if ((storesAnimations && format.limits.oneClipPerFile) || (format.animationOnly() && out.find(kClipPlaceholder) != std::string::npos)) {
    std::vector<Animation> animations = std::exchange(rig.animations, {});
    RP_CHECK(encodeClips(rig, std::move(animations), format, out, "-o", result));
    return result;
  }
  // A target that stores no animations writes the model alone, its clips go to --anim-out. The
  // model's fit sees them, so that where it changes the skeleton (a helper bone folded into the
  // joints below it) their tracks change with it and the clip writer gets both as the model has them.
  RP_ASSIGN(std::vector<uint8_t> modelBytes, encode(rig, format, result.losses, base));
  result.files.emplace_back(out, std::move(modelBytes));
  result.formats.push_back(&format);
  std::vector<Animation> animations;
  if (!storesAnimations) animations = std::exchange(rig.animations, {});
  if (animations.empty()) return result;
  if (animFormat == nullptr || animOut.empty()) {
    result.losses.warn("animations-not-written", fmt::format("{} animation{} ({}) not written: {} stores none; give --anim-out FILE ({})",
                                                             animations.size(), animations.size() == 1 ? "" : "s", clipNames(animations),
                                                             format.name, writers(kCarriesAnimations)));
    return result;
  }
  // The animation writer needs the skeleton (node order), not the meshes: they are put aside, and
  // back after.
  std::vector<Mesh> meshes = std::exchange(rig.meshes, {});
  rig.materials.clear();
  const Status clips = encodeClips(rig, std::move(animations), *animFormat, animOut, "--anim-out", result);
  rig.meshes = std::move(meshes);
  RP_CHECK(clips);
  return result;
}

}  // namespace

Result<EncodedFiles> encodeForFormat(Rig rig, const FormatInfo& format, const std::string& out, const FormatInfo* animFormat,
                                     const std::string& animOut, const BaseFile* base) {
  return encodeInPlace(rig, format, out, animFormat, animOut, base);
}

Result<EncodedFiles> encodeForFormatKeeping(Rig& rig, const FormatInfo& format, const std::string& out, const FormatInfo* animFormat,
                                            const std::string& animOut, const BaseFile* base) {
  const WriteLimits limits = format.writeLimits(rig);
  const bool lend = (format.carries & kCarriesMesh) != 0 &&
                    std::all_of(rig.meshes.begin(), rig.meshes.end(), [&](const Mesh& m) { return fitLeavesMesh(m, limits); });
  if (!lend) return encodeForFormat(rig, format, out, animFormat, animOut, base);  // a copy, which fitting changes
  // The rest of the rig is copied (fitting may change its skeleton, clips and names); the meshes
  // are lent: every one is left as it is, so they come back as they went.
  std::vector<Mesh> meshes = std::exchange(rig.meshes, {});
  Rig fitted = rig;
  fitted.meshes = std::move(meshes);
  auto result = encodeInPlace(fitted, format, out, animFormat, animOut, base);
  rig.meshes = std::move(fitted.meshes);
  return result;
}

}  // namespace rigport
