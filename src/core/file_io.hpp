// Whole-file reads and atomic writes. A write goes to a temporary file in the destination's
// folder and is renamed over the target only once complete, so a failure never leaves a
// half-written output behind.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace rigport {

// Fails with ErrorCode::TooLarge above `maxBytes` (default 2 GiB) before allocating.
Result<std::vector<uint8_t>> readFileBytes(const std::string& path, uint64_t maxBytes = 2ull << 30);

Status writeFileAtomic(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace rigport
