// A section of a model block (sluggers.md §2): a checked cursor over [start, next section start)
// whose positions are section offsets, and the pointer check every section-relative pointer goes
// through, so a pointer that leaves its section is an error naming the pointer's field and offset.
#pragma once

#include <cstdint>

#include <fmt/format.h>

#include "core/byte_reader.hpp"

namespace rigport::sluggers {

// `base + ptr` as a section offset, checked to leave `need` bytes in the section. Call right after
// reading the pointer from `r` (the error points at it).
inline Result<size_t> follow(const ByteReader& r, uint32_t ptr, uint64_t base, uint64_t need, Field f, const char* section) {
  const uint64_t at = base + ptr;
  if (at > r.size() || r.size() - at < need) {
    return r.errorAt(r.position() - 4, ErrorCode::BadValue,
                     fmt::format("pointer 0x{:X} (+0x{:X}) leaves the {} section: 0x{:X} bytes needed at 0x{:X}, the section "
                                 "holds 0x{:X}",
                                 ptr, base, section, need, at, r.size()),
                     f);
  }
  return static_cast<size_t>(at);
}

}  // namespace rigport::sluggers
