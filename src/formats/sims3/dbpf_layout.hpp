// Layout of a DBPF 2.0 package (sims3_clip.md §4) and the resource types rigport reads from it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rigport::sims3::dbpf {

// §4 header, 96 bytes.
constexpr char kMagic[4] = {'D', 'B', 'P', 'F'};
constexpr size_t kHeaderSize = 96;
constexpr size_t kMajorField = 0x04;         // 2 (1.x is The Sims 2's)
constexpr size_t kIndexCountField = 0x24;
constexpr size_t kIndexOffsetLegacyField = 0x28;  // used when 0x40 is 0 (s3pi Indexposition)
constexpr size_t kIndexSizeField = 0x2C;
constexpr size_t kIndexVersionField = 0x3C;  // 3 in real data
constexpr size_t kIndexOffsetField = 0x40;
constexpr uint32_t kMajor = 2;
constexpr uint32_t kIndexVersion = 3;

// §4 index: u32 flags; each set bit means that field is stored once, after the flags.
enum IndexFlag : uint32_t { kConstType = 1, kConstGroup = 2, kConstInstanceHi = 4, kConstInstanceLo = 8 };
// Per entry after the non-constant key fields: u32 offset, u32 fileSize (bit 31 set), u32 memSize,
// u16 compressed, u16 committed.
constexpr size_t kEntryTailSize = 16;
constexpr uint32_t kFileSizeFlag = 0x80000000u;
constexpr uint16_t kCompressedRefPack = 0xFFFF;
constexpr uint16_t kCompressedZlib = 0x5A42;  // The Sims 4's (refpack-rs#4): not read
constexpr uint16_t kCommitted = 1;

// Resource types (§2, §3, §4).
constexpr uint32_t kTypeClip = 0x6B20C4F3;
constexpr uint32_t kTypeRig = 0x8EAF13DE;
constexpr uint32_t kTypeNameMap = 0x0166038C;  // NMAP: u32 version (1), u32 count, {u64 instance, u32 length, name}
constexpr uint32_t kNameMapVersion = 1;

}  // namespace rigport::sims3::dbpf
