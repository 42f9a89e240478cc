// Atomic writes (reads go through core/source.hpp). A write goes to a temporary file in the
// destination's folder and is renamed over the target only once complete, so a failure never
// leaves a half-written output behind.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace rigport {

Status writeFileAtomic(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace rigport
