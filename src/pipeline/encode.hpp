// encodeForFormat(): a rig written by a format's registry writer instead of the glTF exporter
// (`rigport convert IN --to FORMAT [--anim-out FILE]`) (the glTF -> game direction of the modding loop). Generic over the
// registry: any entry with a `write` is a target; what it cannot hold is fitted first
// (core/fit.hpp) and each loss is reported. A target that stores no animations (a RenderWare .dff)
// writes them to --anim-out with the format its extension names (.anm), all clips in one file, or
// one file per clip when the path contains "{clip}". A format that holds one clip per file (SKA,
// CLIP) takes several only with "{clip}" in its path (-o or --anim-out), and refuses them otherwise.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/registry.hpp"

namespace rigport {

// The format's first extension (".dff").
std::string firstExtension(const FormatInfo& format);

// The format named by --to; it must have a writer.
Result<const FormatInfo*> targetFormat(const std::string& name);
// The format of --anim-out PATH, found by its extension among the writers that store animations.
Result<const FormatInfo*> animationFormat(const std::string& path);

// --base ORIGINAL: the file a format with FormatInfo::writeOnto writes into a copy of.
struct BaseFile {
  std::string path;
  ReadOptions options;
};
// The target itself, when it takes --base; else a usage error naming those that do.
Result<const FormatInfo*> baseFormat(const FormatInfo& target, const std::string& basePath);

struct EncodedFiles {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> files;  // path, bytes; nothing is written yet
  std::vector<const FormatInfo*> formats;  // the format each of `files` is in, in the same order
  Provenance losses;  // what the target formats could not hold
};

// Encodes `rig` for `format` at `out` (into a copy of `base` where given), and its animations at
// `animOut` with `animFormat` (both empty/null: none). Fails without output when a writer refuses.
Result<EncodedFiles> encodeForFormat(Rig rig, const FormatInfo& format, const std::string& out, const FormatInfo* animFormat,
                                     const std::string& animOut, const BaseFile* base = nullptr);
// The same for a rig the caller keeps (`convert --to`'s read-back check compares it with what was
// written): `rig` is as given when this returns, whatever the outcome. Its meshes are not copied
// where fitting leaves every one of them as it is (fitLeavesMesh(), core/fit.hpp): they are lent to
// the fitted rig, and given back. Otherwise the rig is copied, as encodeForFormat(rig, ...) would.
Result<EncodedFiles> encodeForFormatKeeping(Rig& rig, const FormatInfo& format, const std::string& out, const FormatInfo* animFormat,
                                            const std::string& animOut, const BaseFile* base = nullptr);

}  // namespace rigport
