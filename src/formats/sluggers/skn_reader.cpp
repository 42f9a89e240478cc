// SKN section → skin records (sluggers.md §6 "Rebuilding per-vertex (bone, weight) lists").
#include <algorithm>

#include <fmt/format.h>

#include "formats/sluggers/section.hpp"
#include "formats/sluggers/skn.hpp"

namespace rigport::sluggers {
namespace {

constexpr const char* kSkn = "SKN";

// An entry checked, giving `records` records; one without any is not kept.
void addEntry(SknData& skn, const SknEntry& entry, size_t records) {
  if (records == 0) return;
  skn.entries.push_back(entry);
  skn.recordCount += records;
}

// §6: "destination + offset is always on a vertex boundary".
Result<uint32_t> firstVertex(const ByteReader& r, size_t fieldAt, uint64_t destination, Field f) {
  if (destination % kSkinVertexBytes != 0) {
    return r.errorAt(fieldAt, ErrorCode::BadValue, fmt::format("destination 0x{:X} is not on a 12-byte vertex boundary", destination), f);
  }
  return static_cast<uint32_t>(destination / kSkinVertexBytes);
}

// Entries whose sources overlap could multiply a small section into billions of records. Every
// vertex of an entry has its own 12 source bytes (an SK2 vertex gives two records), so a section
// holds at most size / 6 records; more means the entries share their data.
Status checkReach(const ByteReader& r, const SknData& skn, uint64_t adding, size_t countAt) {
  const uint64_t limit = r.size() / 6;
  if (skn.recordCount + adding > limit) {
    return r.errorAt(countAt, ErrorCode::BadValue,
                     fmt::format("the entries so far claim {} skin records; a 0x{:X}-byte section holds source data for at most {} "
                                 "(entries share their sources)",
                                 skn.recordCount + adding, r.size(), limit),
                     "count");
  }
  return Ok{};
}

// The records the entries claim (their count fields, two records a vertex for SK2), for one
// reservation; entries() checked every entry lies inside the section.
uint64_t recordsClaimed(const ByteReader& r, size_t sk1, size_t numSk1, size_t sk2, size_t numSk2, size_t skAcc, size_t numSkAcc) {
  const uint8_t* b = r.data().data();
  auto u16At = [&](size_t at) { return uint64_t((b[at] << 8) | b[at + 1]); };
  uint64_t n = 0;
  for (size_t i = 0; i < numSk1; ++i) n += u16At(sk1 + i * kSk1Size + 0x3A);
  for (size_t i = 0; i < numSk2; ++i) n += 2 * u16At(sk2 + i * kSk2Size + 0x70);
  for (size_t i = 0; i < numSkAcc; ++i) n += u16At(skAcc + i * kSkAccSize + 0x42);
  return n;
}

Result<size_t> entries(ByteReader& r, uint32_t ptr, uint16_t n, size_t size, Field f) {
  if (n == 0) return size_t{0};
  return follow(r, ptr, 0, uint64_t(n) * size, f, kSkn);
}

// Each returns the records it added; readSk2 and readSkAcc give where their weights lie too.
Result<size_t> readSk1(ByteReader& r, size_t at, SknData& skn) {
  RP_CHECK(r.seek(at + 0x30, "vertSrc"));
  RP_ASSIGN(const uint32_t src, r.u32("vertSrc"));
  RP_ASSIGN(const uint32_t dst, r.u32("vertDst"));
  RP_ASSIGN(const uint16_t bone, r.u16("boneIndex"));
  RP_ASSIGN(const uint16_t count, r.u16("count"));
  RP_ASSIGN(const uint8_t offset, r.u8("vertSrcOffset"));
  RP_ASSIGN(const uint32_t first, firstVertex(r, at + 0x34, uint64_t(dst) + offset, "vertDst"));
  RP_CHECK(r.seek(at + 0x34, "vertSrc"));
  RP_ASSIGN(const size_t source, follow(r, src, offset, uint64_t(count) * kSkinVertexBytes, "vertSrc", kSkn));
  RP_CHECK(checkReach(r, skn, count, at + 0x3A));
  addEntry(skn, SknEntry{first, static_cast<uint32_t>(source), 0, 0, count, bone, 0, SkinEntryKind::SK1}, count);
  return count;
}

Result<size_t> readSk2(ByteReader& r, size_t at, SknData& skn, size_t& weightsAt) {
  RP_CHECK(r.seek(at + 0x60, "vertSrc"));
  RP_ASSIGN(const uint32_t src, r.u32("vertSrc"));
  RP_ASSIGN(const uint32_t weightsPtr, r.u32("weights"));
  RP_ASSIGN(const uint32_t dst, r.u32("vertDst"));
  RP_ASSIGN(const uint16_t bone0, r.u16("bone0"));
  RP_ASSIGN(const uint16_t bone1, r.u16("bone1"));
  RP_ASSIGN(const uint16_t count, r.u16("count"));
  RP_ASSIGN(const uint8_t offset, r.u8("vertSrcOffset"));
  RP_ASSIGN(const uint32_t first, firstVertex(r, at + 0x68, uint64_t(dst) + offset, "vertDst"));
  RP_CHECK(r.seek(at + 0x64, "vertSrc"));
  RP_ASSIGN(const size_t source, follow(r, src, offset, uint64_t(count) * kSkinVertexBytes, "vertSrc", kSkn));
  RP_CHECK(r.seek(at + 0x68, "weights"));
  RP_ASSIGN(const size_t weights, follow(r, weightsPtr, 0, uint64_t(count) * 2, "weights", kSkn));
  RP_CHECK(checkReach(r, skn, uint64_t(count) * 2, at + 0x70));
  addEntry(skn, SknEntry{first, static_cast<uint32_t>(source), 0, static_cast<uint32_t>(weights), count, bone0, bone1, SkinEntryKind::SK2},
           size_t{count} * 2);
  weightsAt = weights;
  return size_t{count} * 2;
}

Result<size_t> readSkAcc(ByteReader& r, size_t at, SknData& skn, size_t& weightsAt) {
  RP_CHECK(r.seek(at + 0x30, "vertSrc"));
  RP_ASSIGN(const uint32_t src, r.u32("vertSrc"));
  RP_ASSIGN(const uint32_t indicesPtr, r.u32("vertIndices"));
  RP_ASSIGN(const uint32_t dst, r.u32("vertDst"));
  RP_ASSIGN(const uint32_t weightsPtr, r.u32("weights"));
  RP_ASSIGN(const uint16_t bone, r.u16("boneIndex"));
  RP_ASSIGN(const uint16_t count, r.u16("count"));
  // §6: SKAcc has no vertSrcOffset; vertex = vertDst/12 + idx[n], bind data at vertSrc + 12n.
  RP_ASSIGN(const uint32_t base, firstVertex(r, at + 0x38, dst, "vertDst"));
  RP_CHECK(r.seek(at + 0x34, "vertSrc"));
  RP_ASSIGN(const size_t source, follow(r, src, 0, uint64_t(count) * kSkinVertexBytes, "vertSrc", kSkn));
  RP_CHECK(r.seek(at + 0x38, "vertIndices"));
  RP_ASSIGN(const size_t indices, follow(r, indicesPtr, 0, uint64_t(count) * 2, "vertIndices", kSkn));
  RP_CHECK(r.seek(at + 0x40, "weights"));
  RP_ASSIGN(const size_t weights, follow(r, weightsPtr, 0, count, "weights", kSkn));
  RP_CHECK(checkReach(r, skn, count, at + 0x42));
  addEntry(skn,
           SknEntry{base, static_cast<uint32_t>(source), static_cast<uint32_t>(indices), static_cast<uint32_t>(weights), count, bone, 0,
                    SkinEntryKind::SKAcc},
           count);
  weightsAt = weights;
  return size_t{count};
}

}  // namespace

Result<SknData> readSkn(ByteReader& r, std::vector<SkinRecordWhere>* where) {
  SknData skn;
  if (r.size() > UINT32_MAX) {
    return r.errorAt(0, ErrorCode::Unsupported, fmt::format("a 0x{:X}-byte SKN section (records address 4 GiB)", r.size()), "numSK1");
  }
  skn.section = r.data();
  RP_CHECK(r.seek(0, "numSK1"));
  RP_ASSIGN(skn.numSk1, r.u16("numSK1"));
  RP_ASSIGN(skn.numSk2, r.u16("numSK2"));
  RP_ASSIGN(skn.numSkAcc, r.u16("numSKAcc"));
  RP_ASSIGN(skn.shift, r.u8("posNrmShift"));
  if (skn.shift == 0 || skn.shift >= 32) {
    return r.errorAt(6, ErrorCode::BadValue, fmt::format("posNrmShift {} (the runtime asserts 0 < shift < 32)", skn.shift), "posNrmShift");
  }
  skn.scale = 1.0f / static_cast<float>(1u << skn.shift);
  RP_CHECK(r.seek(8, "sk1"));
  RP_ASSIGN(const uint32_t p1, r.u32("sk1"));
  RP_ASSIGN(const size_t sk1, entries(r, p1, skn.numSk1, kSk1Size, "sk1"));
  RP_ASSIGN(const uint32_t p2, r.u32("sk2"));
  RP_ASSIGN(const size_t sk2, entries(r, p2, skn.numSk2, kSk2Size, "sk2"));
  RP_ASSIGN(const uint32_t pAcc, r.u32("skAcc"));
  RP_ASSIGN(const size_t skAcc, entries(r, pAcc, skn.numSkAcc, kSkAccSize, "skAcc"));
  // skBzero and the flush list are runtime cache work (§6 steps 3–4) with no meaning for a model.
  // The records claimed, charged once as if held (so a budget refuses a block as before), though
  // they are only held for a block's places: checkReach keeps them within size / 6 whatever the
  // entries claim. The entries kept take 24 bytes each, their tables at least 64 in the section.
  const uint64_t reserved = std::min<uint64_t>(recordsClaimed(r, sk1, skn.numSk1, sk2, skn.numSk2, skAcc, skn.numSkAcc), r.size() / 6);
  RP_CHECK(r.charge(reserved * sizeof(SkinRecord), "count"));
  skn.entries.reserve(size_t{skn.numSk1} + skn.numSk2 + skn.numSkAcc);
  if (where != nullptr) {
    RP_CHECK(r.charge(reserved * sizeof(SkinRecordWhere), "count"));
    where->reserve(reserved);
  }
  // A record's weight lies at its entry's weights + its place in the entry (SK2: two a vertex, in
  // record order; SKAcc: one a record).
  auto note = [where](SkinEntryKind kind, size_t entry, size_t added, size_t weightsAt) {
    if (where == nullptr) return;
    for (size_t k = 0; k < added; ++k) {
      const uint32_t at = kind == SkinEntryKind::SK1 ? kImpliedWeight : static_cast<uint32_t>(weightsAt + k);
      where->push_back(SkinRecordWhere{at, kind, static_cast<uint16_t>(entry)});
    }
  };
  size_t added = 0, weightsAt = 0;
  for (size_t i = 0; i < skn.numSk1; ++i) {
    auto scope = r.scope(Field("SK1", static_cast<int64_t>(i)));
    RP_ASSIGN(added, readSk1(r, sk1 + i * kSk1Size, skn));
    note(SkinEntryKind::SK1, i, added, 0);
  }
  for (size_t i = 0; i < skn.numSk2; ++i) {
    auto scope = r.scope(Field("SK2", static_cast<int64_t>(i)));
    RP_ASSIGN(added, readSk2(r, sk2 + i * kSk2Size, skn, weightsAt));
    note(SkinEntryKind::SK2, i, added, weightsAt);
  }
  for (size_t i = 0; i < skn.numSkAcc; ++i) {
    auto scope = r.scope(Field("SKAcc", static_cast<int64_t>(i)));
    RP_ASSIGN(added, readSkAcc(r, skAcc + i * kSkAccSize, skn, weightsAt));
    note(SkinEntryKind::SKAcc, i, added, weightsAt);
  }
  if (where != nullptr) {
    skn.records.reserve(skn.recordCount);
    skn.forEachRecord([&skn](const SkinRecord& record) { skn.records.push_back(record); }, [](const SknEntry&) {});
  }
  return skn;
}

}  // namespace rigport::sluggers
