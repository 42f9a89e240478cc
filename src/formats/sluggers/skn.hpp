// The SKN (skinning) section, sluggers.md §6: every SK1 / SK2 / SKAcc entry turned into
// (vertex slot, bone index, weight, bind source) records, in file order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/byte_reader.hpp"
#include "formats/sluggers/model_layout.hpp"

namespace rigport::sluggers {

struct SknData {
  uint16_t numSk1 = 0, numSk2 = 0, numSkAcc = 0;
  uint8_t shift = 0;
  SkinRecords records;  // duplicates not yet summed
  std::span<const uint8_t> section;  // the SKN bytes the records' sources point into
  float scale = 1.0f;                // 2^-shift: a power of two, so decoding is exact (as fixedToFloat)

  // §6: skin data is s16 with posNrmShift fractional bits, position then normal, 12 bytes a vertex.
  glm::vec3 position(const SkinRecord& r) const { return vector(section.data() + r.source); }
  glm::vec3 normal(const SkinRecord& r) const { return vector(section.data() + r.source + 6); }
  // Three big-endian s16 at p, scaled.
  glm::vec3 vector(const uint8_t* p) const {
    auto s16 = [&](size_t i) { return static_cast<float>(static_cast<int16_t>(static_cast<uint16_t>((p[i] << 8) | p[i + 1]))); };
    return glm::vec3(s16(0) * scale, s16(2) * scale, s16(4) * scale);
  }
};

// Where one record came from (SknData::records, same order), for writing weights back into the
// block (model_places.hpp): its entry and, for SK2 and SKAcc, the section offset of its u8 weight.
enum class SkinEntryKind : uint8_t { SK1, SK2, SKAcc };
constexpr uint32_t kImpliedWeight = 0xFFFFFFFFu;  // SK1: one bone, weight 1.0, nothing stored (§6)
struct SkinRecordWhere {
  uint32_t weightAt = kImpliedWeight;
  SkinEntryKind kind = SkinEntryKind::SK1;
  uint16_t entry = 0;
};

// `where`, when given, gets one element per record.
Result<SknData> readSkn(ByteReader& skn, std::vector<SkinRecordWhere>* where = nullptr);

}  // namespace rigport::sluggers
