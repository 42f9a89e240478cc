// Source: the bytes one reader looks at, with the name errors and warnings give them. A file is
// memory-mapped (multi-GB archives cost address space, not a zero-filled copy), and guarded
// against shrinking while it is read; a container hands an inner resource to another reader as
// an owned Source (a decompressed RefPack resource, say).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "platform/files.hpp"

namespace rigport {

class Source {
 public:
  // Maps the file read-only where the program switched the fault guard on and the file is larger
  // than kReadBelowBytes (platform/files.hpp), else reads it, at most `maxReadBytes` of it. Only a
  // regular file: a directory, FIFO, device, socket, a missing or unreadable file is an Io error.
  static Result<std::shared_ptr<const Source>> open(const std::string& path, uint64_t maxReadBytes);
  static constexpr size_t kReadBelowBytes = 1 << 20;
  static std::shared_ptr<const Source> fromBytes(std::vector<uint8_t> bytes, std::string name);
  // The caller's bytes, not copied: they must outlive the Source and whatever a reader keeps of it
  // (the read-back check reads the files it just encoded so, without a copy of each).
  static std::shared_ptr<const Source> viewOf(std::span<const uint8_t> bytes, std::string name);

  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  ~Source() = default;

  std::span<const uint8_t> bytes() const { return bytes_; }
  // Gives back the memory under `bytes` (a range of bytes()) where the file is mapped: its whole
  // pages are dropped from this process and read again from the page cache if touched. Bytes held
  // in memory (small files, inner resources) stay as they are.
  void release(std::span<const uint8_t> bytes) const;
  // The file's path, or "<container path>#<entry>" for an inner resource.
  const std::string& name() const { return name_; }
  // A mapped file that turned shorter while it was read (another program truncated or rewrote
  // it, or its storage failed) reads as zeros past its new end (the program's fault guard,
  // platform/files.hpp), and this gives the offset of the first byte that could not be read:
  // whatever was read from this Source must then be thrown away. nullopt while every byte read was
  // the file's (always, for bytes held in memory).
  std::optional<uint64_t> unreadableFrom() const { return file_.unreadableFrom(); }

 private:
  Source() = default;
  std::span<const uint8_t> bytes_;
  std::vector<uint8_t> owned_;  // an inner resource's bytes
  platform::FileView file_;     // a file's
  std::string name_;
};

}  // namespace rigport
