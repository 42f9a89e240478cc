// The SKN (skinning) section, sluggers.md §6: every SK1 / SK2 / SKAcc entry checked, and turned
// into (vertex slot, bone index, weight, bind source) records, in file order, as they are used.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/byte_reader.hpp"
#include "formats/sluggers/model_layout.hpp"

namespace rigport::sluggers {

enum class SkinEntryKind : uint8_t { SK1, SK2, SKAcc };

// One SK1 / SK2 / SKAcc entry as readSkn checked it (§6): where its records' fields lie in the
// section, so its records are made when used, from the section's bytes, not held (1.8 MB on the
// benchmark's block, against 24 bytes an entry).
struct SknEntry {
  uint32_t first = 0;    // slot of its first vertex (SKAcc: the base its vertex indices add to)
  uint32_t source = 0;   // section offset of its first vertex's 12 bytes of bind data
  uint32_t indices = 0;  // SKAcc: section offset of its u16 vertex indices
  uint32_t weights = 0;  // SK2, SKAcc: section offset of its u8 weights
  uint16_t count = 0;    // vertices
  uint16_t bone0 = 0, bone1 = 0;  // bone1: SK2's second
  SkinEntryKind kind = SkinEntryKind::SK1;
};

struct SknData {
  uint16_t numSk1 = 0, numSk2 = 0, numSkAcc = 0;
  uint8_t shift = 0;
  std::vector<SknEntry> entries;  // in file order: SK1, SK2, then SKAcc; none without records
  size_t recordCount = 0;         // the records the entries give
  SkinRecords records;  // only when readSkn is asked where each lies (a block's places); duplicates not yet summed
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
  // Calls each(record) for every record, in file order, made from the section's bytes (§6: an SK1
  // vertex's weight is a full 256, an SK2 vertex gives two records on one source, an SKAcc vertex's
  // slot is first + its index), and entryDone(entry) after each entry's.
  template <class Each, class EntryDone>
  void forEachRecord(Each&& each, EntryDone&& entryDone) const {
    const uint8_t* const b = section.data();
    for (const SknEntry& e : entries) {
      const uint8_t* const w = b + e.weights;
      switch (e.kind) {
        case SkinEntryKind::SK1:
          for (uint32_t k = 0; k < e.count; ++k) each(SkinRecord{e.first + k, e.bone0, kFullWeight, e.source + k * uint32_t{kSkinVertexBytes}});
          break;
        case SkinEntryKind::SK2:
          for (uint32_t k = 0; k < e.count; ++k) {
            const uint32_t from = e.source + k * uint32_t{kSkinVertexBytes};
            each(SkinRecord{e.first + k, e.bone0, w[2 * k], from});
            each(SkinRecord{e.first + k, e.bone1, w[2 * k + 1], from});
          }
          break;
        case SkinEntryKind::SKAcc: {
          const uint8_t* const idx = b + e.indices;
          for (uint32_t n = 0; n < e.count; ++n) {
            const uint32_t i = (uint32_t(idx[2 * n]) << 8) | idx[2 * n + 1];
            each(SkinRecord{e.first + i, e.bone0, w[n], e.source + n * uint32_t{kSkinVertexBytes}});
          }
          break;
        }
      }
      entryDone(e);
    }
  }
};

// Where one record came from (SknData::records, same order), for writing weights back into the
// block (model_places.hpp): its entry and, for SK2 and SKAcc, the section offset of its u8 weight.
constexpr uint32_t kImpliedWeight = 0xFFFFFFFFu;  // SK1: one bone, weight 1.0, nothing stored (§6)
struct SkinRecordWhere {
  uint32_t weightAt = kImpliedWeight;
  SkinEntryKind kind = SkinEntryKind::SK1;
  uint16_t entry = 0;
};

// `where`, when given, gets one element per record, and SknData::records the records.
Result<SknData> readSkn(ByteReader& skn, std::vector<SkinRecordWhere>* where = nullptr);

}  // namespace rigport::sluggers
