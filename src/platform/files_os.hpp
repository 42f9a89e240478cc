// Inside the platform room: the pieces of platform/files.hpp that each operating system implements
// (files_posix.cpp, files_windows.cpp) under the portable part (files.cpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "core/error.hpp"
#include "platform/files.hpp"

namespace rigport::platform {

// A UTF-8 path as the file system's path type (UTF-16 on Windows), and back.
inline std::filesystem::path pathFromUtf8(const std::string& utf8) {
  return std::filesystem::path(std::u8string(utf8.begin(), utf8.end()));
}
inline std::string utf8FromPath(const std::filesystem::path& p) {
  const std::u8string s = p.u8string();
  return std::string(s.begin(), s.end());
}

// Creates (or empties) the file at `utf8Path` and writes the parts into it one after another, then
// closes it: on POSIX one open, one writev (more only for a short write or over IOV_MAX parts) and
// one close. Nullopt when it is complete; else the step that failed (`opened` false: the file could
// not be made, which writeFileAtomic answers by making its folder) and the system's reason.
struct WriteFailure {
  bool opened = false;
  std::string reason;
};
std::optional<WriteFailure> writeWholeFile(const std::string& utf8Path, std::span<const std::span<const uint8_t>> parts);

// Moves the complete temporary file over `target` (or, with Overwrite::Refuse, only where no
// `target` exists, in one step); both are UTF-8 paths, the error names `targetName`.
Status moveIntoPlace(const std::string& temporary, const std::string& target, Overwrite overwrite, const std::string& targetName);

// Deletes a file; async-signal-safe on POSIX, callable from a console control handler on Windows.
void removeFileNow(const char* utf8Path) noexcept;
// Sleeps for about 50 ms; async-signal-safe on POSIX.
void pauseBriefly() noexcept;

}  // namespace rigport::platform
