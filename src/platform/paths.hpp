// Paths as the user spelled them (portable; defined in files.cpp). A header of its own, so that the
// many files that include files.hpp do not depend on it.
#pragma once

#include <filesystem>
#include <string>

namespace rigport::platform {

// `path`, made by std::filesystem from a folder the user spelled `userSpelling`, with the
// separators the user wrote. Its `/` and lexically_normal() put the system's preferred separator
// between the parts, `\` on Windows, so that `-o /dev/null/out` was reported as \dev\null\out:
// the parts are joined with `/` unless `userSpelling` holds a `\` (both separate on Windows; on
// POSIX the result is `path` itself).
std::filesystem::path spelledLike(const std::filesystem::path& path, const std::string& userSpelling);

// The file `name` in the folder of `path`, spelt as the user spelt `path`: its folder part as it
// was written (up to and with its last separator: `/`, or on Windows `\` or a drive's `:`), then
// `name`; "./name" when `path` names no folder. A message or a glTF warning then reads the same on
// every system for the same command line (std::filesystem would join with `\` on Windows).
std::string besideSpelled(const std::string& path, const std::string& name);

}  // namespace rigport::platform
