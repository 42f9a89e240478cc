// Budget: how many bytes one file's read may allocate from sizes and counts it found in the file.
// A forged count that still fits the remaining bytes (a vertex count times an instancing factor, a
// decompressed size) must end in a clear error naming the field, never in a huge allocation, so
// readers charge the budget before allocating (ByteReader::count and ::charge do it for them).
#pragma once

#include <cstdint>
#include <string>

namespace rigport {

class Budget {
 public:
  static constexpr uint64_t kDefaultLimit = 1ull << 30;  // 1 GiB; `--memory-limit` on the command line

  explicit Budget(uint64_t limit = kDefaultLimit) : limit_(limit) {}

  // Adds `bytes` and says whether the total stays within the limit; a refused charge is not added.
  bool charge(uint64_t bytes) {
    if (bytes > limit_ - used_) return false;
    used_ += bytes;
    peak_ = used_ > peak_ ? used_ : peak_;
    return true;
  }
  // Gives back charges whose memory the read no longer holds: a container read item by item
  // (ReadOptions::clipsRead) returns to what it held before each item once the item is handed on,
  // so its budget bounds the largest item, not the sum of them.
  void release(uint64_t bytes) { used_ -= bytes < used_ ? bytes : used_; }
  uint64_t used() const { return used_; }
  // The most ever charged at once.
  uint64_t peak() const { return peak_; }
  uint64_t limit() const { return limit_; }
  // The message for a refused charge of `bytes`.
  std::string refusal(uint64_t bytes) const;

 private:
  uint64_t limit_;
  uint64_t used_ = 0;
  uint64_t peak_ = 0;
};

// "1G", "512M", "64k" or a plain byte count; 0 when the text is not a size.
uint64_t parseByteSize(const std::string& text);

}  // namespace rigport
