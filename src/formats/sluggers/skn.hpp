// The SKN (skinning) section, sluggers.md §6: every SK1 / SK2 / SKAcc entry turned into
// (vertex slot, bone index, weight, bind source) records, in file order.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "core/byte_reader.hpp"
#include "formats/sluggers/model_layout.hpp"

namespace rigport::sluggers {

struct SknData {
  uint16_t numSk1 = 0, numSk2 = 0, numSkAcc = 0;
  uint8_t shift = 0;
  std::vector<SkinRecord> records;  // duplicates not yet summed
  std::span<const uint8_t> section;  // the SKN bytes the records' sources point into
  float scale = 1.0f;                // 2^-shift: a power of two, so decoding is exact (as fixedToFloat)

  // §6: skin data is s16 with posNrmShift fractional bits, position then normal, 12 bytes a vertex.
  glm::vec3 position(const SkinRecord& r) const { return vector(r.source); }
  glm::vec3 normal(const SkinRecord& r) const { return vector(r.source + 6); }
  // Whether two records' sources hold the same bytes (so the same position and normal).
  bool sameSource(const SkinRecord& a, const SkinRecord& b) const {
    if (a.source == b.source) return true;
    uint64_t a8, b8;
    uint32_t a4, b4;
    std::memcpy(&a8, section.data() + a.source, 8);
    std::memcpy(&b8, section.data() + b.source, 8);
    std::memcpy(&a4, section.data() + a.source + 8, 4);
    std::memcpy(&b4, section.data() + b.source + 8, 4);
    return a8 == b8 && a4 == b4;  // the 12 bytes, without a call to memcmp
  }

 private:
  glm::vec3 vector(size_t at) const {
    const uint8_t* p = section.data() + at;
    auto s16 = [&](size_t i) { return static_cast<float>(static_cast<int16_t>(static_cast<uint16_t>((p[i] << 8) | p[i + 1]))); };
    return glm::vec3(s16(0) * scale, s16(2) * scale, s16(4) * scale);
  }
};

Result<SknData> readSkn(ByteReader& skn);

}  // namespace rigport::sluggers
