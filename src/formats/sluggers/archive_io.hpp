// Mario Super Sluggers archives (sluggers.md §2 "What an entry points at"): an entry of dt_na.dat
// whose first word is a member count (1..1000), then that many u32 member offsets relative to the
// archive start (0 = an empty slot), ascending, on 32-byte boundaries; a member runs to the next
// populated offset. Model-block members become rigs; ANM banks and other members are listed and
// reported, not read.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/source.hpp"

namespace rigport::sluggers {

// The offsets are checked (ascending, aligned, inside the file) and the first member must be a
// model block or an ANM bank, so a file that merely starts with a small number is not taken.
bool probeArchive(std::span<const uint8_t> bytes);
Result<std::vector<ItemInfo>> listArchive(const Source& source, ReadContext& ctx);
Result<Asset> readArchive(const Source& source, ReadContext& ctx);

}  // namespace rigport::sluggers
