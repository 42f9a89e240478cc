// RefPack / QFS, the compression of DBPF 2.0 resources (sims3_clip.md §4), in the "Sims 3 header
// mode": flag byte (0x80: 4-byte sizes, 0x01: a compressed-size field first), 0xFB, big-endian
// uncompressed size, then the opcode stream of §4's table.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/default_init_allocator.hpp"
#include "core/error.hpp"

namespace rigport::sims3 {

// Output bytes whose growth writes nothing: the decompressor writes every byte it keeps.
using RefPackBytes = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

// Decompresses the stream `r` reads into `out`, which it replaces (its allocation kept, so a
// buffer used for resource after resource is allocated once: a package's 500 clips spent a fifth
// of their decompression allocating and zeroing each clip's output). A declared size the stream's
// bytes cannot make (257 per byte) is an error before anything is allocated; the output grows as it
// is written, each growth charged to r's budget first. Errors name the offset of the opcode that
// reads or copies out of bounds.
Status refpackDecompressInto(ByteReader r, RefPackBytes& out);
// The same into a vector of its own.
Result<std::vector<uint8_t>> refpackDecompress(ByteReader r);
// Compresses (greedy matching over a hash of 4-byte sequences, offsets up to 128 KiB).
std::vector<uint8_t> refpackCompress(std::span<const uint8_t> data);

}  // namespace rigport::sims3
