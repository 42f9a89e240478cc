// Layout of The Sims 3 CLIP resource (0x6B20C4F3) shared by the reader and the writer. Every
// constant cites the section of shared/formats/sims3_clip.md it implements.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rigport::sims3::clip {

// §2.1 outer header: u32 type, then "rel" offsets counted from their own field (0 = absent).
constexpr uint32_t kType = 0x6B20C4F3;
constexpr size_t kOuterHeaderSize = 0x38;  // 0x28 + 16 zero bytes
constexpr size_t kLinkedClipField = 0x04;  // always 0; both reference readers reject non-zero
constexpr size_t kBlobField = 0x0C;
constexpr size_t kIkTableField = 0x10;
constexpr size_t kActorField = 0x14;
constexpr size_t kEventField = 0x18;
constexpr size_t kUnknown1Field = 0x1C;
constexpr size_t kEndBlockField = 0x24;
constexpr uint8_t kPadding = 0x7E;  // sections are padded to 4 bytes with '~' (§2.1)

// §2.2 _S3Clip_ blob header: the 8 bytes "_pilC3S_" (the u64 "_S3Clip_" stored little-endian).
constexpr char kBlobMagic[8] = {'_', 'p', 'i', 'l', 'C', '3', 'S', '_'};
constexpr size_t kBlobHeaderSize = 0x30;
constexpr uint32_t kBlobVersion = 2;

// §2.3 curve info: u32 frameDataOffset (absolute in the blob), u32 trackKey, f32 offset, f32 scale,
// u16 frameCount, u8 channelType, u8 subTarget.
constexpr size_t kCurveInfoSize = 20;

// §2.4 channel types (EA's ChannelType enum) that TS3 uses.
enum ChannelType : uint8_t {
  kF3Indexed = 0x03,                     // 3 x u16 palette indices
  kF1Normalized = 0x05,                  // u16 / 65535 (morph / driver weight)
  kF1Zero = 0x09,                        // constant 0, no keys
  kF3Zero = 0x0B,                        // "null translation", no keys
  kF4Zero = 0x0C,                        // "null rotation", no keys
  kF4QuaternionIdentity = 0x11,          // identity rotation, no keys
  kF3HighPrecisionNormalized = 0x12,     // u32 holding 3 x 10 bits (§2.7)
  kF4SuperHighPrecisionQuaternion = 0x14 // 4 x u16, low 12 bits used, x y z w (§2.6)
};

// §2.4 sub-target (EA's SubTargetType; s3py's curve type): what the channel drives.
enum SubTarget : uint8_t { kTranslation = 1, kOrientation = 2, kMorph = 7 };

// §2.5 key record: u16 frameIndex, u16 flags (bits 0..3: sign of components 0..3), payload.
constexpr size_t kKeyHeaderSize = 4;
constexpr size_t kStrideF3Indexed = 10;  // R6: no padding in TS3 (s4pi pads to 12 for TS4)
constexpr size_t kStrideF3Indexed4 = 12; // the TS4 padding, accepted when the next curve says so
constexpr size_t kStrideTranslation = 8; // R5
constexpr size_t kStrideQuaternion = 12; // R4
constexpr size_t kStrideScalar = 6;      // R7

// R2, R4, R5, R7: code / (2^bits - 1).
constexpr float kMax10 = 1023.0f;
constexpr float kMax12 = 4095.0f;
constexpr float kMax16 = 65535.0f;

// R9: all real data uses 1/30 s.
constexpr float kFrameDuration = 1.0f / 30.0f;

// §2.12 IK / slot table: i32 chainCount, chain offsets (from the end of the count), then per chain
// u32 0x7E7E7E7E, i32 n, n target offsets (from the end of n), n targets of i32 index + two
// NUL-terminated names each padded with '#' to 512 bytes.
constexpr uint32_t kChainMarker = 0x7E7E7E7Eu;
constexpr size_t kSlotNameSize = 512;
constexpr size_t kSlotTargetSize = 4 + 2 * kSlotNameSize;  // 1,028
constexpr uint8_t kSlotPadding = '#';

// §2.12 event table: "=CE=", u32 version, i32 count, u32 byteLength, u32 start (4 when count > 0).
constexpr char kEventMagic[4] = {'=', 'C', 'E', '='};
constexpr uint32_t kEventVersion = 0x103;
constexpr uint16_t kEventMarker = 0xC1E4;
// Event record: u16 type, u16 0xC1E4, u32 id, f32 time, f32 -1, f32 -1, u32, u32 nameLength.
constexpr size_t kEventHeaderSize = 28;

// §2.12 event types and the size of their type-specific payloads (s3py's event classes; the
// start-effect event carries six u32s there, one more than the wiki lists).
enum EventType : uint16_t {
  kEventAttach = 1,       // 3 hashes, u32, 4x4 matrix
  kEventUnparent = 2,     // hash
  kEventSound = 3,        // 128-byte sound name
  kEventScript = 4,       // nothing ("SACS")
  kEventEffect = 5,       // u32, u32, 3 hashes, u32
  kEventVisibility = 6,   // f32
  kEventDestroyProp = 9,  // hash
  kEventStopEffect = 10,  // hash, u32
};
// Payload bytes of a known type, or -1 for types 7, 8 and unknown ones (kept raw to the table's end).
constexpr int eventPayloadSize(uint16_t type) {
  switch (type) {
    case kEventAttach: return 16 + 64;
    case kEventUnparent: return 4;
    case kEventSound: return 128;
    case kEventScript: return 0;
    case kEventEffect: return 24;
    case kEventVisibility: return 4;
    case kEventDestroyProp: return 4;
    case kEventStopEffect: return 8;
    default: return -1;
  }
}
const char* eventTypeName(uint16_t type);


}  // namespace rigport::sims3::clip
