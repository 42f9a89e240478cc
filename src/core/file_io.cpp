#include "core/file_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>

namespace rigport {

Status writeFileAtomic(const std::string& path, std::span<const uint8_t> bytes) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  // Errors name the user's path and the system's reason, never the temporary file (an
  // implementation detail the user did not ask for).
  if (target.has_parent_path() && !fs::is_directory(target.parent_path(), ec)) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) return ioError(path, fmt::format("cannot create the folder {}: {}", target.parent_path().string(), ec.message()));
  }
  std::random_device rd;
  const fs::path tmp = target.parent_path() / fmt::format(".{}.{:08x}.tmp", target.filename().string(), rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      const std::string folder = target.has_parent_path() ? target.parent_path().string() : std::string(".");
      return ioError(path, fmt::format("cannot write into {}: {}", folder, std::strerror(errno)));
    }
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return ioError(path, "write failed (disk full?)");
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return ioError(path, fmt::format("cannot rename into place: {}", ec.message()));
  }
  return Ok{};
}

}  // namespace rigport
