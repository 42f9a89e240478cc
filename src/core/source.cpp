#include "core/source.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

namespace rigport {
namespace {

// The SIGBUS guard: every live mapping has a slot, claimed by a compare-exchange on `begin` and
// read by the signal handler, so it is lock-free and sits in .bss (as core/file_io.cpp's table).
// A slot is enough for every file a batch has open at once (one per job, and a glTF's buffers).
struct GuardSlot {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};         // page-rounded
  std::atomic<uintptr_t> firstFault{0};  // address of the first byte found unreadable
};
constexpr int kGuardSlots = 256;
constinit GuardSlot guardSlots[kGuardSlots];
struct sigaction previousBusAction;
uintptr_t guardPageSize = 4096;  // sysconf's, set before the handler is installed (sysconf is not signal-safe)

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
  static std::once_flag installed;
  std::call_once(installed, [] {
    guardPageSize = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = onBusError;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &previousBusAction);
  });
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

}  // namespace

Result<std::shared_ptr<const Source>> Source::open(const std::string& path, uint64_t maxStreamBytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ioError(path, fmt::format("cannot open: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return ioError(path, fmt::format("cannot stat: {}", std::strerror(err)));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return ioError(path, "is a directory");
  }
  std::shared_ptr<Source> source(new Source());
  source->name_ = path;
  const size_t size = static_cast<size_t>(st.st_size);
  if (S_ISREG(st.st_mode) && size > kReadBelowBytes) {
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      source->guard_ = guardMapping(map, size);
      if (source->guard_ >= 0) {
        ::close(fd);
        source->mapping_ = map;
        source->mappedSize_ = size;
        source->bytes_ = {static_cast<const uint8_t*>(map), size};
        return std::shared_ptr<const Source>(std::move(source));
      }
      ::munmap(map, size);  // every guard slot taken: read it below rather than map it unguarded
    }
  }
  // A small file is read with pread instead of mapped: a batch of small files then neither maps
  // nor unmaps one per file (1,000 files of 347 KB, -j 2: 332.7 -> 311.0 ms; BENCHMARKS.md). So
  // is a large one that could not be mapped, within the limit of what may be read into memory.
  if (S_ISREG(st.st_mode) && size > 0 && (size <= kReadBelowBytes || size <= maxStreamBytes)) {
    std::vector<uint8_t> bytes(size);
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::pread(fd, bytes.data() + done, size - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int err = errno;
        ::close(fd);
        return ioError(path, fmt::format("read failed: {}", std::strerror(err)));
      }
      if (n == 0) break;  // the file shrank since fstat: what was read is what it holds
      done += static_cast<size_t>(n);
    }
    ::close(fd);
    bytes.resize(done);
    source->owned_ = std::move(bytes);
    source->bytes_ = source->owned_;
    return std::shared_ptr<const Source>(std::move(source));
  }
  // Pipes, character devices and file systems without mmap: read the stream.
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return ioError(path, fmt::format("read failed: {}", std::strerror(err)));
    }
    const size_t grown = bytes.size() + static_cast<size_t>(n);
    if (grown > maxStreamBytes) {
      ::close(fd);
      Error e = ioError(path, fmt::format("not a regular file and longer than the {} byte read limit", maxStreamBytes));
      e.code = ErrorCode::TooLarge;
      return e;
    }
    // Doubling, but never past the limit: /dev/zero costs the limit, not twice it.
    if (grown > bytes.capacity()) bytes.reserve(std::min<uint64_t>(std::max<uint64_t>(2 * uint64_t{bytes.capacity()}, grown), maxStreamBytes));
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  ::close(fd);
  source->owned_ = std::move(bytes);
  source->bytes_ = source->owned_;
  return std::shared_ptr<const Source>(std::move(source));
}

void Source::release(std::span<const uint8_t> bytes) const {
  if (mapping_ == nullptr || bytes.empty()) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto map = reinterpret_cast<uintptr_t>(mapping_);
  const uintptr_t from = std::max(reinterpret_cast<uintptr_t>(bytes.data()), map);
  const uintptr_t to = std::min(reinterpret_cast<uintptr_t>(bytes.data()) + bytes.size(), map + mappedSize_);
  const uintptr_t begin = (from + page - 1) / page * page;  // whole pages only: a neighbour may still be in use
  const uintptr_t end = to == map + mappedSize_ ? (to + page - 1) / page * page : to / page * page;
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

std::shared_ptr<const Source> Source::fromBytes(std::vector<uint8_t> bytes, std::string name) {
  std::shared_ptr<Source> source(new Source());
  source->owned_ = std::move(bytes);
  source->bytes_ = source->owned_;
  source->name_ = std::move(name);
  return source;
}

std::optional<uint64_t> Source::unreadableFrom() const {
  if (guard_ < 0) return std::nullopt;
  const uintptr_t fault = guardSlots[guard_].firstFault.load(std::memory_order_acquire);
  if (fault == 0) return std::nullopt;
  return static_cast<uint64_t>(fault - reinterpret_cast<uintptr_t>(mapping_));
}

Source::~Source() {
  if (mapping_ == nullptr) return;
  // The slot first: once unmapped, the range may be mapped again for another file.
  guardSlots[guard_].end.store(0, std::memory_order_release);
  guardSlots[guard_].begin.store(0, std::memory_order_release);
  ::munmap(mapping_, mappedSize_);
}

}  // namespace rigport
