// Files as the operating system has them: a read-only view of a whole file (mapped or read), the
// fault guard of mapped views, and writes that replace a file only once complete. POSIX in
// files_posix.cpp, Windows in files_windows.cpp; paths are UTF-8 on both.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace rigport::platform {

// A whole regular file's bytes: mapped, or read into memory of its own.
class FileView {
 public:
  FileView() = default;
  FileView(FileView&& other) noexcept;
  FileView& operator=(FileView&& other) noexcept;
  FileView(const FileView&) = delete;
  FileView& operator=(const FileView&) = delete;
  ~FileView();

  std::span<const uint8_t> bytes() const { return mapping_ != nullptr ? std::span<const uint8_t>(mapping_, size_) : owned_; }
  bool mapped() const { return mapping_ != nullptr; }
  // Gives back the pages under `range` (part of bytes()) where the file is mapped; they are read
  // again from the page cache if touched. Bytes read into memory stay as they are.
  void release(std::span<const uint8_t> range) const;
  // Where a mapped file turned shorter while it was read (see enableMappingFaultGuard): the offset of
  // the first byte that could not be read, whose page and the rest read as zeros. nullopt while
  // every byte read was the file's.
  std::optional<uint64_t> unreadableFrom() const;

 private:
  friend Result<FileView> openFileView(const std::string& path, size_t mapAbove);
  const uint8_t* mapping_ = nullptr;
  size_t size_ = 0;
  int guard_ = -1;  // the mapping's slot in the fault guard
  std::vector<uint8_t> owned_;
};

// Opens `path` and maps it when it is larger than `mapAbove` bytes and the fault guard is on, else
// reads it. Only a regular file is read: a directory, FIFO, device or socket is an Io error naming
// what it is, found without blocking on it or reading from it.
Result<FileView> openFileView(const std::string& path, size_t mapAbove);

// Switches on, for the whole process, the guard that makes a mapped file that shrinks while it is
// read (another program truncates it, its storage fails) read as zeros past its new end, with
// FileView::unreadableFrom() saying where, instead of killing the process (SIGBUS). Process-wide,
// so only a program calls it (the CLI does, first thing); until then no file is mapped, so a
// library call never changes a process's signal handling. Windows refuses to shrink a mapped file,
// so there it only allows mapping.
void enableMappingFaultGuard();

// What writeFileAtomic does when `path` exists.
enum class Overwrite { Replace, Refuse };
// The message of the ErrorCode::Usage error a refused write gives (its `file` is the path).
inline constexpr const char* kExistsMessage = "exists";

// Writes the parts one after another into a temporary file in `path`'s folder and moves it into
// place only once complete, so a failure never leaves a half-written output behind. With
// Overwrite::Refuse the move itself is the existence check (an existing `path` is left as it is and
// the error's code is ErrorCode::Usage): of two processes writing one path, exactly one succeeds.
Status writeFileAtomic(const std::string& path, std::span<const std::span<const uint8_t>> parts,
                       Overwrite overwrite = Overwrite::Replace);
Status writeFileAtomic(const std::string& path, std::initializer_list<std::span<const uint8_t>> parts,
                       Overwrite overwrite = Overwrite::Replace);
inline Status writeFileAtomic(const std::string& path, std::span<const uint8_t> bytes, Overwrite overwrite = Overwrite::Replace) {
  return writeFileAtomic(path, {bytes}, overwrite);
}

// One file of writeFilesAtomic(): its path and the parts written one after another.
struct FileToWrite {
  std::string path;
  std::span<const std::span<const uint8_t>> parts;
};
// writeFileAtomic() for files that belong together (a .gltf and its .bin, a DFF and its .anm):
// every one is complete in its temporary file before any is moved into place, in order, so a
// failed write leaves every existing file as it was; only a failed move can leave some moved and
// the rest not (with Overwrite::Refuse those moved are removed again: they are this call's own).
Status writeFilesAtomic(std::span<const FileToWrite> files, Overwrite overwrite = Overwrite::Replace);

// Removes the temporary files of the writes in flight. Async-signal-safe: a program killed by a
// signal calls it from its handler so that no temporary file outlives it.
void removeTemporaryFilesInFlight() noexcept;

}  // namespace rigport::platform
