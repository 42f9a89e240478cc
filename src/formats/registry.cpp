#include "formats/registry.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

#include "core/file_io.hpp"
#include "formats/renderware/anim_io.hpp"
#include "formats/renderware/dff_io.hpp"

namespace rigport {
namespace {

constexpr std::array kFormats{
    FormatInfo{"renderware-dff", "RenderWare 3 clump (GTA III/VC/SA and other RW3 games)", ".dff",
               "skeleton (frames + HAnim), skin (Skin PLG), meshes", renderware::probeDff, renderware::readDff,
               renderware::writeDff, false},
    FormatInfo{"renderware-anm", "RenderWare Anim Animation chunks (0x1B), interpolator types 1 and 2", ".anm",
               "animations (bound by HAnim node position)", renderware::probeAnm, renderware::readAnm,
               renderware::writeAnm, true},
    FormatInfo{"gta-ifp", "GTA animation package (ANPK for III/VC, ANP3 for SA)", ".ifp",
               "animations (bound by bone id, then name)", renderware::probeIfp, renderware::readIfp, nullptr, true},
};

std::string lowerExtension(std::string_view path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

bool hasExtension(const FormatInfo& f, const std::string& ext) {
  if (ext.empty()) return false;
  std::string_view list = f.extensions;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    if (list.substr(0, comma) == ext) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

// Formats that store no clip names (.anm) leave them empty; the file's stem is what a user
// recognises in Blender or three.js: "walk" for walk.anm, "walk_0", "walk_1" for several clips.
void nameUnnamedAnimations(Rig& rig) {
  size_t unnamed = 0;
  for (const Animation& a : rig.animations) unnamed += a.name.empty() ? 1 : 0;
  size_t next = 0;
  for (Animation& a : rig.animations) {
    if (!a.name.empty()) continue;
    a.name = unnamed == 1 ? rig.name : rig.name + "_" + std::to_string(next++);
  }
}

}  // namespace

std::span<const FormatInfo> formats() { return kFormats; }

const FormatInfo* findFormat(std::string_view name) {
  for (const FormatInfo& f : kFormats)
    if (f.name == name) return &f;
  return nullptr;
}

const FormatInfo* detectFormat(std::span<const uint8_t> bytes, std::string_view path) {
  const std::string ext = lowerExtension(path);
  const FormatInfo* byMagic = nullptr;
  for (const FormatInfo& f : kFormats) {
    if (!f.probe(bytes)) continue;
    if (hasExtension(f, ext)) return &f;  // magic and extension agree
    if (byMagic == nullptr) byMagic = &f;
  }
  if (byMagic != nullptr) return byMagic;
  // No magic matched: a file named like one of ours goes to that reader, whose error will say
  // which field is wrong, rather than a bare "unknown format".
  for (const FormatInfo& f : kFormats)
    if (hasExtension(f, ext)) return &f;
  return nullptr;
}

Result<Rig> loadFile(const std::string& path) {
  auto bytes = readFileBytes(path);
  if (!bytes) return bytes.error();
  const FormatInfo* format = detectFormat(*bytes, path);
  if (format == nullptr) {
    Error e = makeError(ErrorCode::Unsupported, "not a file of any format rigport reads (unknown magic bytes)");
    e.file = path;
    e.offset = 0;
    return e;
  }
  auto rig = format->read(*bytes);
  if (!rig) {
    Error e = rig.error();
    e.file = path;
    return e;
  }
  rig->provenance.format = std::string(format->name);
  rig->provenance.file = path;
  if (rig->name.empty()) rig->name = std::filesystem::path(path).stem().string();
  nameUnnamedAnimations(*rig);
  return rig;
}

}  // namespace rigport
