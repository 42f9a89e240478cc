#include "core/source.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace rigport {

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
  // A small file is read with pread instead of mapped: a batch of small files then neither maps
  // nor unmaps one per file (1,000 files of 347 KB, -j 2: 332.7 -> 311.0 ms; BENCHMARKS.md).
  if (S_ISREG(st.st_mode) && size > 0 && size <= kReadBelowBytes) {
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
  if (S_ISREG(st.st_mode) && size > 0) {
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      ::close(fd);
      source->mapping_ = map;
      source->mappedSize_ = size;
      source->bytes_ = {static_cast<const uint8_t*>(map), size};
      return std::shared_ptr<const Source>(std::move(source));
    }
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

Source::~Source() {
  if (mapping_ != nullptr) ::munmap(mapping_, mappedSize_);
}

}  // namespace rigport
