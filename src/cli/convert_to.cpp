#include "cli/convert_to.hpp"

#include <cctype>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "cli/file_names.hpp"
#include "core/fit.hpp"

namespace rigport::cli {
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

Result<std::vector<uint8_t>> encode(Rig& rig, const FormatInfo& format, Provenance& losses) {
  const Provenance saved = rig.provenance;
  rig.provenance = freshProvenance(saved);
  RP_CHECK(fitToLimits(rig, format.limits, format.name));
  losses.absorb(rig.provenance);
  auto bytes = format.write(rig);
  if (!bytes) {
    Error e = bytes.error();
    e.message = fmt::format("{} writer: {}", format.name, e.message);
    return e;
  }
  return bytes;
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

Result<EncodedFiles> encodeForFormat(Rig rig, const FormatInfo& format, const std::string& out, const FormatInfo* animFormat,
                                     const std::string& animOut) {
  EncodedFiles result;
  const bool storesAnimations = (format.carries & kCarriesAnimations) != 0;
  // A target that stores no animations writes the model alone, its clips go to --anim-out.
  std::vector<Animation> animations;
  if (!storesAnimations) animations = std::exchange(rig.animations, {});
  RP_ASSIGN(std::vector<uint8_t> modelBytes, encode(rig, format, result.losses));
  result.files.emplace_back(out, std::move(modelBytes));
  if (animations.empty()) return result;
  if (animFormat == nullptr || animOut.empty()) {
    std::string names;
    for (const Animation& a : animations) names += (names.empty() ? "'" : ", '") + a.name + "'";
    result.losses.warn("animations-not-written", fmt::format("{} animation{} ({}) not written: {} stores none; give --anim-out FILE ({})",
                                                             animations.size(), animations.size() == 1 ? "" : "s", names, format.name,
                                                             writers(kCarriesAnimations)));
    return result;
  }
  // The animation writer needs the skeleton (node order), not the meshes.
  rig.meshes.clear();
  rig.materials.clear();
  const size_t placeholder = animOut.find("{clip}");
  if (placeholder == std::string::npos) {
    rig.animations = std::move(animations);
    RP_ASSIGN(std::vector<uint8_t> animBytes, encode(rig, *animFormat, result.losses));
    result.files.emplace_back(animOut, std::move(animBytes));
    return result;
  }
  for (Animation& anim : animations) {
    std::string path = animOut;
    path.replace(placeholder, 6, fileSafe(anim.name, "clip"));
    for (const auto& [existing, bytes] : result.files) {
      if (existing == path) return makeError(ErrorCode::Usage, fmt::format("--anim-out: two clips are named '{}'", anim.name));
    }
    rig.animations.clear();
    rig.animations.push_back(std::move(anim));
    RP_ASSIGN(std::vector<uint8_t> clipBytes, encode(rig, *animFormat, result.losses));
    result.files.emplace_back(path, std::move(clipBytes));
  }
  return result;
}

}  // namespace rigport::cli
