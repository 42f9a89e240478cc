// platform/files.hpp on POSIX: open/fstat/mmap, a SIGBUS guard for mapped files, rename and link.
#if !defined(_WIN32)

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "platform/files_os.hpp"

namespace rigport::platform {
namespace {

// The SIGBUS guard: every live mapping has a slot, claimed by a compare-exchange on `begin` and
// read by the signal handler, so it is lock-free and sits in .bss. A slot is enough for every file
// a batch has open at once (one per job, and a glTF's buffers).
struct GuardSlot {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};         // page-rounded
  std::atomic<uintptr_t> firstFault{0};  // address of the first byte found unreadable
};
constexpr int kGuardSlots = 256;
constinit GuardSlot guardSlots[kGuardSlots];
struct sigaction previousBusAction;
uintptr_t guardPageSize = 4096;  // sysconf's, set before the handler is installed (sysconf is not signal-safe)
std::atomic<bool> guardOn{false};

// A bus error inside a guarded mapping: the file ends before the faulting page. That page and the
// rest of the mapping become private zero pages (mmap is a plain system call, safe here), the
// slot records where, and the faulting read is retried and reads zero. Any other bus error goes
// to the handler that was there before (by default, the crash it always was).
extern "C" void onBusError(int signal, siginfo_t* info, void* context) {
  const auto at = reinterpret_cast<uintptr_t>(info->si_addr);
  const uintptr_t page = guardPageSize;
  const bool fault = info->si_code > 0;  // not sent by kill() or raise()
  for (GuardSlot& slot : guardSlots) {
    const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    const uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (!fault || begin == 0 || at < begin || at >= end) continue;
    const uintptr_t from = at / page * page;
    void* zeros = ::mmap(reinterpret_cast<void*>(from), end - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (zeros == MAP_FAILED) break;
    uintptr_t none = 0;
    slot.firstFault.compare_exchange_strong(none, at);
    return;
  }
  if (previousBusAction.sa_flags & SA_SIGINFO) {
    if (previousBusAction.sa_sigaction != nullptr) previousBusAction.sa_sigaction(signal, info, context);
    return;
  }
  if (previousBusAction.sa_handler == SIG_IGN && !fault) return;  // the kernel never lets a fault be ignored
  if (previousBusAction.sa_handler != SIG_DFL && previousBusAction.sa_handler != SIG_IGN) {
    previousBusAction.sa_handler(signal);
    return;
  }
  ::signal(SIGBUS, SIG_DFL);  // returning re-runs the faulting read, which now ends the process
  if (!fault) ::raise(SIGBUS);
}

// The guard's slot for [begin, begin + size), or -1 when every slot is taken.
int guardMapping(const void* mapping, size_t size) {
  const uintptr_t page = guardPageSize;
  const auto begin = reinterpret_cast<uintptr_t>(mapping);
  for (int i = 0; i < kGuardSlots; ++i) {
    uintptr_t free = 0;
    if (!guardSlots[i].begin.compare_exchange_strong(free, begin)) continue;
    guardSlots[i].firstFault.store(0, std::memory_order_relaxed);
    guardSlots[i].end.store((begin + size + page - 1) / page * page, std::memory_order_release);
    return i;
  }
  return -1;
}

const char* kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Error systemError(const std::string& path, const char* what, int err) {
  return ioError(path, fmt::format("{}: {}", what, std::strerror(err)));
}

}  // namespace

void enableMappingFaultGuard() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    guardPageSize = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = onBusError;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &previousBusAction);
    guardOn.store(true, std::memory_order_release);
  });
}

Result<FileView> openFileView(const std::string& path, size_t mapAbove) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return systemError(path, "cannot open", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return systemError(path, "cannot stat", err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return ioError(path, fmt::format("is {}; rigport reads regular files", kindOf(st.st_mode)));
  }
  FileView view;
  const size_t size = static_cast<size_t>(st.st_size);
  if (size > mapAbove && guardOn.load(std::memory_order_acquire)) {
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      view.guard_ = guardMapping(map, size);
      if (view.guard_ >= 0) {
        ::close(fd);
        view.mapping_ = static_cast<const uint8_t*>(map);
        view.size_ = size;
        return view;
      }
      ::munmap(map, size);  // every guard slot taken: read it below rather than map it unguarded
    }
  }
  // A small file is read with pread instead of mapped: a batch of small files then neither maps
  // nor unmaps one per file (1,000 files of 347 KB, -j 2: 332.7 -> 311.0 ms; BENCHMARKS.md).
  view.owned_.resize(size);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, view.owned_.data() + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return systemError(path, "read failed", err);
    }
    if (n == 0) break;  // the file shrank since fstat: what was read is what it holds
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  view.owned_.resize(done);
  return view;
}

FileView::~FileView() {
  if (mapping_ == nullptr) return;
  // The slot first: once unmapped, the range may be mapped again for another file.
  guardSlots[guard_].end.store(0, std::memory_order_release);
  guardSlots[guard_].begin.store(0, std::memory_order_release);
  ::munmap(const_cast<uint8_t*>(mapping_), size_);
  mapping_ = nullptr;
}

void FileView::release(std::span<const uint8_t> range) const {
  if (mapping_ == nullptr || range.empty()) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto map = reinterpret_cast<uintptr_t>(mapping_);
  const uintptr_t from = std::max(reinterpret_cast<uintptr_t>(range.data()), map);
  const uintptr_t to = std::min(reinterpret_cast<uintptr_t>(range.data()) + range.size(), map + size_);
  const uintptr_t begin = (from + page - 1) / page * page;  // whole pages only: a neighbour may still be in use
  const uintptr_t end = to == map + size_ ? (to + page - 1) / page * page : to / page * page;
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

std::optional<uint64_t> FileView::unreadableFrom() const {
  if (guard_ < 0) return std::nullopt;
  const uintptr_t fault = guardSlots[guard_].firstFault.load(std::memory_order_acquire);
  if (fault == 0) return std::nullopt;
  return static_cast<uint64_t>(fault - reinterpret_cast<uintptr_t>(mapping_));
}

namespace {

// Writes vectors[0, n) whole, taking up again after a short write; 0, or the error.
int writeAll(int fd, struct iovec* vectors, int n) {
  while (n > 0) {
    const ssize_t written = ::writev(fd, vectors, n);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (written == 0) return EIO;
    // Past the vectors the write took whole, into the one it ended in.
    auto left = static_cast<size_t>(written);
    while (n > 0 && left >= vectors->iov_len) {
      left -= vectors->iov_len;
      ++vectors;
      --n;
    }
    if (n > 0) {
      vectors->iov_base = static_cast<uint8_t*>(vectors->iov_base) + left;
      vectors->iov_len -= left;
    }
  }
  return 0;
}

}  // namespace

std::optional<WriteFailure> writeWholeFile(const std::string& utf8Path, std::span<const std::span<const uint8_t>> parts) {
  const int fd = ::open(utf8Path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return WriteFailure{false, std::strerror(errno)};
  // The parts in one writev (a GLB's header, JSON, padding and buffer pieces), 1,024 vectors at a
  // time (IOV_MAX, the most one call takes, is 1,024 on Linux and the BSDs). Parts under 4 KiB are
  // gathered into 64 KiB of staging first, as one vector: the kernel's copy costs about 65 ns a
  // vector, so a GLB whose buffer borrows a 1,000-clip IFP's 80,000 key arrays (300 bytes each)
  // took 5 ms more as 80,000 vectors than as 25 MB in one (a memcpy of them here costs less).
  constexpr size_t kGathered = 4 << 10, kStaging = 64 << 10;
  struct iovec vectors[1024];
  std::unique_ptr<uint8_t[]> staging;
  int n = 0, err = 0;
  size_t staged = 0;
  bool lastStaged = false;  // vectors[n - 1] is staging's, to grow with the next gathered part
  for (const std::span<const uint8_t> bytes : parts) {
    if (bytes.empty()) continue;
    const bool gather = bytes.size() < kGathered;
    // Full, or staging that the vectors still point into must be written before it is reused.
    if (n == static_cast<int>(std::size(vectors)) || (gather && staged + bytes.size() > kStaging)) {
      if ((err = writeAll(fd, vectors, n)) != 0) break;
      n = 0;
      staged = 0;
      lastStaged = false;
    }
    if (!gather) {
      vectors[n++] = iovec{const_cast<uint8_t*>(bytes.data()), bytes.size()};
      lastStaged = false;
      continue;
    }
    if (!staging) staging = std::make_unique_for_overwrite<uint8_t[]>(kStaging);
    std::memcpy(staging.get() + staged, bytes.data(), bytes.size());
    if (lastStaged) {
      vectors[n - 1].iov_len += bytes.size();
    } else {
      vectors[n++] = iovec{staging.get() + staged, bytes.size()};
    }
    staged += bytes.size();
    lastStaged = true;
  }
  if (err == 0) err = writeAll(fd, vectors, n);
  if (::close(fd) != 0 && err == 0 && errno != EINTR) err = errno;
  if (err != 0) return WriteFailure{true, std::strerror(err)};
  return std::nullopt;
}

Status moveIntoPlace(const std::string& temporary, const std::string& target, Overwrite overwrite, const std::string& targetName) {
  if (overwrite == Overwrite::Replace) {
    if (::rename(temporary.c_str(), target.c_str()) != 0) return systemError(targetName, "cannot rename into place", errno);
    return Ok{};
  }
  // A hard link fails when the name exists, atomically: the existence check and the move are one.
  if (::link(temporary.c_str(), target.c_str()) == 0) {
    ::unlink(temporary.c_str());
    return Ok{};
  }
  const int err = errno;
  if (err == EEXIST) {
    Error e = makeError(ErrorCode::Usage, kExistsMessage);
    e.file = targetName;
    return e;
  }
  if (err != EPERM && err != ENOTSUP && err != EOPNOTSUPP) return systemError(targetName, "cannot move into place", err);
  // A file system without hard links (FAT, some network shares): check, then rename; two writers
  // racing here can still both succeed, the later one replacing the other's file.
  struct stat st {};
  if (::lstat(target.c_str(), &st) == 0) {
    Error e = makeError(ErrorCode::Usage, kExistsMessage);
    e.file = targetName;
    return e;
  }
  if (::rename(temporary.c_str(), target.c_str()) != 0) return systemError(targetName, "cannot rename into place", errno);
  return Ok{};
}

void removeFileNow(const char* utf8Path) noexcept { ::unlink(utf8Path); }

void pauseBriefly() noexcept {
  struct timespec pause {0, 50'000'000};
  ::nanosleep(&pause, nullptr);
}

}  // namespace rigport::platform

#endif
