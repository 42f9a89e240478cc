// Atomic writes (reads go through core/source.hpp). A write goes to a temporary file in the
// destination's folder and is renamed over the target only once complete, so a failure never
// leaves a half-written output behind.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace rigport {

Status writeFileAtomic(const std::string& path, std::span<const uint8_t> bytes);
// The file is the parts one after another (a .glb's head and its buffer's pieces, without joining them).
Status writeFileAtomic(const std::string& path, std::span<const std::span<const uint8_t>> parts);
Status writeFileAtomic(const std::string& path, std::initializer_list<std::span<const uint8_t>> parts);

// Unlinks the temporary files of the writes in flight. Async-signal-safe: a process killed by a
// signal calls it from its handler so that no temporary file outlives it. The writes themselves
// are left to fail; call it only on the way out.
void removeTemporaryFilesInFlight() noexcept;

}  // namespace rigport
