// The format registry: the one place a format plugs in (detection by magic, then by extension).
// Each entry points at its folder's free functions; no per-load state lives in the table.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

struct FormatInfo {
  std::string_view name;         // stable id used on the command line, e.g. "renderware-dff"
  std::string_view description;  // one line for `rigport formats`
  std::string_view extensions;   // comma-separated, lower case, with dots: ".dff"
  std::string_view carries;      // what the reader fills in: "skeleton, skin, meshes"
  // Cheap magic check on the first bytes; false when unsure.
  bool (*probe)(std::span<const uint8_t> bytes);
  // Bytes -> rig. Must never crash, hang or over-allocate on any input.
  Result<Rig> (*read)(std::span<const uint8_t> bytes);
  // Rig -> bytes; nullptr when the format has no writer yet.
  Result<std::vector<uint8_t>> (*write)(const Rig& rig);
  // True for files that carry only animations, bound to a skeleton from another file.
  bool animationOnly = false;
};

std::span<const FormatInfo> formats();
const FormatInfo* findFormat(std::string_view name);
// Magic first (the extension breaks ties); with no magic match, the extension alone.
const FormatInfo* detectFormat(std::span<const uint8_t> bytes, std::string_view path);

// Reads a file, detects its format and parses it; provenance.file/format and any error's file
// are filled in.
Result<Rig> loadFile(const std::string& path);

}  // namespace rigport
