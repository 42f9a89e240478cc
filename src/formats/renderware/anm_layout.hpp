// Layout constants of the Anim Animation chunk 0x1B shared by the .anm reader and writer
// (renderware.md §1.10).
#pragma once

#include <cstdint>

namespace rigport::renderware::anm {

// Chunk payload header: i32 version, i32 interpolator type, i32 numKeyFrames, i32 flags, f32 duration.
constexpr int32_t kVersion = 0x100;
constexpr size_t kHeaderSize = 20;

// Interpolator type ids: 1 = standard HAnim keys (the only one librw registers), 2 = RW compressed.
constexpr int32_t kStandardKeys = 1;
constexpr int32_t kCompressedKeys = 2;

// Type 1 key: f32 time, f32 q[4] (x,y,z,w), f32 t[3], i32 prevOffset.
constexpr size_t kStandardKeySize = 36;
// Type 2 key on disk: f32 time, u16 q[4], u16 t[3], u32 prevOffset (22 B), but prevOffset counts
// in units of the 24-byte in-memory key. The key block is followed by f32 offset[3], f32 scalar[3].
constexpr size_t kCompressedKeyDiskSize = 22;
constexpr size_t kCompressedKeyMemorySize = 24;
constexpr size_t kCompressedTrailerSize = 24;

// What RW wrote as the prevOffset of each node's first key (junk; Psycrow writes this value too).
constexpr uint32_t kFirstKeyPrev = 0xFF30C9D8u;

// RW 3.6.0.3 (GTA San Andreas) stamp, used by the writer (§1.1).
constexpr uint32_t kWriterLibraryId = 0x1803FFFFu;

}  // namespace rigport::renderware::anm
