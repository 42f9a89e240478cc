// RW Skeleton 0x70002 and AnimationSkin 0x70003 (rw4_arena.md §5).
#include "formats/rw4/rw_skeleton.hpp"

#include <fmt/format.h>

namespace rigport::rw4 {
namespace {

// A pointer field read at `at` → a reader over `bytes` bytes of the object it points into.
Result<ByteReader> pointee(const Arena& arena, const ByteReader& obj, size_t at, uint32_t pointer, uint64_t bytes,
                           const char* field) {
  const uint64_t start = obj.fileOffsetOfStart();
  uint64_t rel = pointer;
  if (arena.absoluteAnimationPointers()) {
    if (pointer < start) {
      return obj.errorAt(at, ErrorCode::BadValue, fmt::format("pointer 0x{:X} lies before the object at 0x{:X}", pointer, start), field);
    }
    rel = pointer - start;
  }
  if (rel > obj.size() || bytes > obj.size() - rel) {
    return obj.errorAt(at, ErrorCode::BadValue,
                       fmt::format("{} bytes at pointer 0x{:X} run past the {}-byte object", bytes, pointer, obj.size()), field);
  }
  return obj.window(static_cast<size_t>(rel), static_cast<size_t>(bytes), field);
}

uint32_t pointerTo(size_t objectStart, size_t rel, bool absolute) {
  return static_cast<uint32_t>(absolute ? objectStart + rel : rel);
}

}  // namespace

Result<RwSkeleton> readRwSkeleton(const Arena& arena, ByteReader obj, uint32_t row) {
  RwSkeleton s;
  s.row = row;
  RP_ASSIGN(const uint32_t pFlags, obj.u32("pBoneFlags"));
  RP_ASSIGN(const uint32_t pParents, obj.u32("pBoneParents"));
  RP_ASSIGN(const uint32_t pNames, obj.u32("pBoneNames"));
  RP_ASSIGN(const uint32_t count, obj.u32("count"));
  RP_ASSIGN(s.skeletonId, obj.u32("skeletonID"));
  RP_CHECK(obj.skip(4, "count2"));
  RP_ASSIGN(const size_t n, obj.count(count, 12, "count"));
  RP_ASSIGN(ByteReader names, pointee(arena, obj, 8, pNames, n * 4, "pBoneNames"));
  RP_ASSIGN(s.nameHashes, names.array<uint32_t>(n, "nameHash"));
  RP_ASSIGN(ByteReader flags, pointee(arena, obj, 0, pFlags, n * 4, "pBoneFlags"));
  RP_ASSIGN(s.flags, flags.array<int32_t>(n, "flag"));
  RP_ASSIGN(ByteReader parents, pointee(arena, obj, 4, pParents, n * 4, "pBoneParents"));
  RP_ASSIGN(s.parents, parents.array<int32_t>(n, "parent"));
  return s;
}

Result<RwAnimationSkin> readRwAnimationSkin(const Arena& arena, ByteReader obj, uint32_t row) {
  RwAnimationSkin s;
  s.row = row;
  RP_ASSIGN(const uint32_t pData, obj.u32("pData"));
  RP_ASSIGN(const uint32_t count, obj.u32("count"));
  RP_ASSIGN(const size_t n, obj.count(count, animskin::kBoneSize, "count"));
  RP_ASSIGN(ByteReader data, pointee(arena, obj, 0, pData, n * animskin::kBoneSize, "pData"));
  s.dataAt = data.fileOffsetOfStart();
  RP_ASSIGN(const std::vector<float> floats, data.array<float>(n * 16, "matrix"));
  s.inverseBind.resize(n);
  for (size_t b = 0; b < n; ++b) {
    glm::mat4& m = s.inverseBind[b];
    for (int k = 0; k < 16; ++k) m[k / 4][k % 4] = floats[b * 16 + static_cast<size_t>(k)];
    m[0][3] = m[1][3] = m[2][3] = 0.0f;  // §5: the padding words are (0,0,0,1)
    m[3][3] = 1.0f;
  }
  return s;
}

void writeRwSkeleton(ByteWriter& w, const RwSkeleton& s, bool absolute) {
  const size_t start = w.size();
  const size_t n = s.parents.size();
  const size_t names = skeleton::kHeaderSize, flags = names + 4 * n, parents = flags + 4 * n;
  w.u32(pointerTo(start, flags, absolute));
  w.u32(pointerTo(start, parents, absolute));
  w.u32(pointerTo(start, names, absolute));
  w.u32(static_cast<uint32_t>(n));
  w.u32(s.skeletonId);
  w.u32(static_cast<uint32_t>(n));
  for (size_t b = 0; b < n; ++b) w.u32(b < s.nameHashes.size() ? s.nameHashes[b] : 0);
  for (size_t b = 0; b < n; ++b) w.s32(b < s.flags.size() ? s.flags[b] : 0);
  for (size_t b = 0; b < n; ++b) w.s32(s.parents[b]);
}

void writeRwAnimationSkin(ByteWriter& w, const RwAnimationSkin& s, bool absolute) {
  const size_t start = w.size();
  w.u32(pointerTo(start, animskin::kHeaderSize, absolute));
  w.u32(static_cast<uint32_t>(s.inverseBind.size()));
  w.u32(0);
  w.u32(0);
  for (const glm::mat4& m : s.inverseBind) {
    for (int k = 0; k < 16; ++k) w.f32(m[k / 4][k % 4]);
  }
}

}  // namespace rigport::rw4
