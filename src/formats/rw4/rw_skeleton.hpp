// RW animation-family objects (rw4_arena.md §5, Spore layouts, little-endian on PC): Skeleton
// 0x70002 (name hashes, flags, parents) and AnimationSkin 0x70003 (the inverse bind pose).
// Pointers inside them are file-absolute in PC arenas (VERIFIED, §2.6) and taken as
// object-relative elsewhere (Skate's convention; no such object is known in a PS3 file).
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "core/byte_writer.hpp"
#include "core/error.hpp"
#include "formats/rw4/arena.hpp"

namespace rigport::rw4 {

struct RwSkeleton {
  uint32_t row = 0;
  uint32_t skeletonId = 0;
  std::vector<uint32_t> nameHashes;
  std::vector<int32_t> flags;
  std::vector<int32_t> parents;  // -1 = root
};

struct RwAnimationSkin {
  uint32_t row = 0;
  std::vector<glm::mat4> inverseBind;  // glTF column-major, padding words forced to (0,0,0,1)
  uint64_t dataAt = 0;                 // the file offset of the matrices
};

Result<RwSkeleton> readRwSkeleton(const Arena& arena, ByteReader obj, uint32_t row);
Result<RwAnimationSkin> readRwAnimationSkin(const Arena& arena, ByteReader obj, uint32_t row);

// Append the object at w's end, where w holds the file from its first byte (so w.size() is the
// object's file offset, which the PC's absolute pointers need).
void writeRwSkeleton(ByteWriter& w, const RwSkeleton& s, bool absolutePointers);
void writeRwAnimationSkin(ByteWriter& w, const RwAnimationSkin& s, bool absolutePointers);

}  // namespace rigport::rw4
