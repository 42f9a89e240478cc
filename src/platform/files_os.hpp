// Inside the platform room: the pieces of platform/files.hpp that each operating system implements
// (files_posix.cpp, files_windows.cpp) under the portable part (files.cpp).
#pragma once

#include <filesystem>
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

// Moves the complete temporary file over `target` (or, with Overwrite::Refuse, only where no
// `target` exists, in one step); the error names `target`.
Status moveIntoPlace(const std::filesystem::path& temporary, const std::filesystem::path& target, Overwrite overwrite,
                     const std::string& targetName);

// Deletes a file; async-signal-safe on POSIX, callable from a console control handler on Windows.
void removeFileNow(const char* utf8Path) noexcept;
// Sleeps for about 50 ms; async-signal-safe on POSIX.
void pauseBriefly() noexcept;

}  // namespace rigport::platform
