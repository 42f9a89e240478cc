// The portable part of platform/files.hpp: atomic writes through a tracked temporary file.
#include "platform/files.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <iterator>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "platform/files_os.hpp"
#include "platform/paths.hpp"

namespace rigport::platform {
namespace {

namespace fs = std::filesystem;

// The temporary files being written, for removeTemporaryFilesInFlight(). A signal handler may
// only read plain memory, so the table is fixed: a slot is claimed with `claimed`, its path
// filled, then published with `ready`; the handler looks at published slots only. A write that
// finds no free slot (more than 256 at once) or too long a path still happens, untracked.
// constinit, and every member initialised, so the 1 MiB table is zero bytes in .bss that no page
// fault touches until a slot is used (a start-up loop writing the flags faulted in 256 pages).
struct TemporarySlot {
  std::atomic<bool> claimed{false};
  std::atomic<bool> ready{false};
  char path[4096]{};
};
constinit std::array<TemporarySlot, 256> temporaries{};
// Set on the way out: a write that opens its temporary file after it removes the file itself.
std::atomic<bool> stopping{false};

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

FileView::FileView(FileView&& other) noexcept
    : mapping_(std::exchange(other.mapping_, nullptr)), size_(std::exchange(other.size_, 0)), guard_(std::exchange(other.guard_, -1)),
      owned_(std::move(other.owned_)) {}

FileView& FileView::operator=(FileView&& other) noexcept {
  FileView gone(std::move(other));  // ends with what this view held
  std::swap(mapping_, gone.mapping_);
  std::swap(size_, gone.size_);
  std::swap(guard_, gone.guard_);
  std::swap(owned_, gone.owned_);
  return *this;
}

// Other threads go on writing while this runs: a write may publish its slot and create its file
// just after a pass. So: a pass, then `stopping` (a write that opens its file from then on removes
// it itself), a pause longer than publishing and creating a file takes, and a second pass.
void removeTemporaryFilesInFlight() noexcept {
  for (int pass = 0; pass < 2; ++pass) {
    for (TemporarySlot& s : temporaries) {
      if (s.ready.load()) removeFileNow(s.path);
    }
    stopping.store(true);
    if (pass == 0) pauseBriefly();
  }
}

fs::path spelledLike(const fs::path& path, const std::string& userSpelling) {
  return userSpelling.find('\\') != std::string::npos ? path : fs::path(path.generic_u8string());
}

std::string besideSpelled(const std::string& path, const std::string& name) {
  // On Windows `\` separates too, and a drive's colon ends a folder part: C:ped.dff is beside C:x.txd.
  constexpr bool windows = fs::path::preferred_separator == '\\';
  const auto separator = [](char c) { return c == '/' || (windows && (c == '\\' || c == ':')); };
  const auto last = std::find_if(path.rbegin(), path.rend(), separator);
  if (last == path.rend()) return "./" + name;
  return std::string(path.begin(), last.base()) + name;
}

Status writeFileAtomic(const std::string& path, std::initializer_list<std::span<const uint8_t>> parts, Overwrite overwrite) {
  return writeFileAtomic(path, std::span<const std::span<const uint8_t>>(parts.begin(), parts.size()), overwrite);
}

Status writeFileAtomic(const std::string& path, std::span<const std::span<const uint8_t>> parts, Overwrite overwrite) {
  const FileToWrite file{path, parts};
  return writeFilesAtomic({&file, 1}, overwrite);
}

namespace {

// One file of writeFilesAtomic: complete in its temporary file, tracked until moved or removed.
struct Pending {
  std::string tmp;  // UTF-8, beside the target; empty until made
  std::optional<TrackedTemporary> tracked;
};

// The random part of a temporary file's name, so that two processes writing into one folder do not
// meet. One seed per thread: setting up a std::random_device runs cpuid, which a virtual machine
// traps, and a package's 500 clips spent 2 % of their conversion on it.
uint32_t temporaryNameBits() {
  thread_local std::mt19937 engine{std::random_device{}()};
  return static_cast<uint32_t>(engine());
}

// "<folder>/.<name>.<8 hex digits>.tmp" for "<folder>/<name>", by the string (a path parsed into
// its parts cost more than writing a package clip's bytes): the folder is what precedes the last
// separator, '/' (and on Windows '\', or a drive's ':'), as besideSpelled() finds it.
std::string temporaryBeside(const std::string& path) {
  constexpr bool windows = fs::path::preferred_separator == '\\';
  const size_t separator = path.find_last_of(windows ? "/\\:" : "/");
  const size_t name = separator == std::string::npos ? 0 : separator + 1;
  std::string tmp;
  tmp.reserve(path.size() + 15);
  tmp.append(path, 0, name).append(1, '.').append(path, name, std::string::npos);
  fmt::format_to(std::back_inserter(tmp), ".{:08x}.tmp", temporaryNameBits());
  return tmp;
}

// Writes `file` into a temporary file beside its path. Errors name the user's path and the system's
// reason, never the temporary file (an implementation detail the user did not ask for).
Status writeTemporary(const FileToWrite& file, Pending& pending) {
  pending.tmp = temporaryBeside(file.path);
  pending.tracked.emplace(pending.tmp);
  std::optional<WriteFailure> failed = writeWholeFile(pending.tmp, file.parts);
  // The folder is looked at only when the file does not open: a stat less per file (a package's 500
  // clips are written into one folder).
  if (failed && !failed->opened) {
    const fs::path target = pathFromUtf8(file.path);
    std::error_code ec;
    if (target.has_parent_path() && !fs::is_directory(target.parent_path(), ec)) {
      fs::create_directories(target.parent_path(), ec);
      if (ec) return ioError(file.path, fmt::format("cannot create the folder {}: {}", utf8FromPath(target.parent_path()), ec.message()));
      failed = writeWholeFile(pending.tmp, file.parts);
    }
  }
  if (failed && !failed->opened) {
    const fs::path target = pathFromUtf8(file.path);
    const std::string folder = target.has_parent_path() ? utf8FromPath(target.parent_path()) : std::string(".");
    return ioError(file.path, fmt::format("cannot write into {}: {}", folder, failed->reason));
  }
  // Made after the handler's last pass: removed here (by the caller) instead.
  if (stopping.load()) return ioError(file.path, "not written: the process is stopping");
  if (failed) return ioError(file.path, fmt::format("write failed (disk full?): {}", failed->reason));
  return Ok{};
}

void removeQuietly(const std::string& utf8Path) {
  std::error_code ec;
  fs::remove(pathFromUtf8(utf8Path), ec);
}

}  // namespace

Status writeFilesAtomic(std::span<const FileToWrite> files, Overwrite overwrite) {
  std::vector<Pending> pending(files.size());
  auto removeTemporaries = [&](size_t from) {
    for (size_t i = from; i < pending.size(); ++i) {
      if (!pending[i].tmp.empty()) removeQuietly(pending[i].tmp);
    }
  };
  for (size_t i = 0; i < files.size(); ++i) {
    if (Status written = writeTemporary(files[i], pending[i]); !written) {
      removeTemporaries(0);
      return written;
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (Status moved = moveIntoPlace(pending[i].tmp, files[i].path, overwrite, files[i].path); !moved) {
      removeTemporaries(i);
      // Refused: the files moved so far did not exist before this call, so they go too.
      if (overwrite == Overwrite::Refuse) {
        for (size_t k = 0; k < i; ++k) removeQuietly(files[k].path);
      }
      return moved;
    }
  }
  return Ok{};
}

}  // namespace rigport::platform
