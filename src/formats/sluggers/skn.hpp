// The SKN (skinning) section, sluggers.md §6: every SK1 / SK2 / SKAcc entry turned into
// (vertex slot, bone index, weight, bind source) records, in file order.
#pragma once

#include <cstdint>
#include <vector>

#include "core/byte_reader.hpp"
#include "formats/sluggers/model_layout.hpp"

namespace rigport::sluggers {

struct SknData {
  uint16_t numSk1 = 0, numSk2 = 0, numSkAcc = 0;
  uint8_t shift = 0;
  std::vector<SkinRecord> records;  // duplicates not yet summed
};

Result<SknData> readSkn(ByteReader& skn);

}  // namespace rigport::sluggers
