#include "core/file_io.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

#include <fmt/format.h>

namespace rigport {
namespace {

// The temporary files being written, for removeTemporaryFilesInFlight(). A signal handler may
// only read plain memory, so the table is fixed: a slot is claimed with `claimed`, its path
// filled, then published with `ready`; the handler looks at published slots only. A write that
// finds no free slot (more than kSlots at once) or too long a path still happens, untracked.
// constinit, and every member initialised, so the 1 MiB table is zero bytes in .bss that no page
// fault touches until a slot is used. With `path` left uninitialised it was not a constant
// initialisation: a start-up loop wrote the flags of all 256 slots, faulting in 256 pages (a sixth
// of `rigport formats`, and 1 MiB of every process's peak memory).
struct TemporarySlot {
  std::atomic<bool> claimed{false};
  std::atomic<bool> ready{false};
  char path[4096]{};
};
constinit std::array<TemporarySlot, 256> temporaries{};

class TrackedTemporary {
 public:
  explicit TrackedTemporary(const std::string& path) {
    if (path.size() >= sizeof(TemporarySlot::path)) return;
    for (TemporarySlot& s : temporaries) {
      bool expected = false;
      if (!s.claimed.compare_exchange_strong(expected, true)) continue;
      std::memcpy(s.path, path.c_str(), path.size() + 1);
      s.ready.store(true, std::memory_order_release);
      slot_ = &s;
      return;
    }
  }
  ~TrackedTemporary() {
    if (slot_ == nullptr) return;
    slot_->ready.store(false, std::memory_order_release);
    slot_->claimed.store(false, std::memory_order_release);
  }
  TrackedTemporary(const TrackedTemporary&) = delete;
  TrackedTemporary& operator=(const TrackedTemporary&) = delete;

 private:
  TemporarySlot* slot_ = nullptr;
};

}  // namespace

void removeTemporaryFilesInFlight() noexcept {
  for (TemporarySlot& s : temporaries) {
    if (s.ready.load(std::memory_order_acquire)) ::unlink(s.path);
  }
}

Status writeFileAtomic(const std::string& path, std::span<const uint8_t> bytes) { return writeFileAtomic(path, {bytes}); }

Status writeFileAtomic(const std::string& path, std::initializer_list<std::span<const uint8_t>> parts) {
  return writeFileAtomic(path, std::span<const std::span<const uint8_t>>(parts.begin(), parts.size()));
}

Status writeFileAtomic(const std::string& path, std::span<const std::span<const uint8_t>> parts) {
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
  const TrackedTemporary tracked(tmp.string());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      const std::string folder = target.has_parent_path() ? target.parent_path().string() : std::string(".");
      return ioError(path, fmt::format("cannot write into {}: {}", folder, std::strerror(errno)));
    }
    for (std::span<const uint8_t> bytes : parts) out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
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
