// RenderWare binary stream chunk headers (format note renderware.md §1.1).
// Every chunk: u32 type, u32 size (payload including children), u32 library id stamp.
#pragma once

#include <cstdint>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"

namespace rigport::renderware {

// Chunk type ids used by rigport (renderware.md §1.2–1.10).
enum ChunkType : uint32_t {
  kStruct = 0x01,
  kString = 0x02,
  kTexture = 0x06,
  kExtension = 0x03,
  kFrameList = 0x0E,
  kGeometry = 0x0F,
  kClump = 0x10,
  kAtomic = 0x14,
  kMaterialList = 0x08,
  kMaterial = 0x07,
  kGeometryList = 0x1A,
  kAnimAnimation = 0x1B,
  kBinMeshPlg = 0x50E,
  kNativeDataPlg = 0x510,
  kSkinPlg = 0x116,
  kHAnimPlg = 0x11E,
  kUserDataPlg = 0x11F,
  kNodeName = 0x0253F2FE,  // Rockstar "Node Name" frame extension (§1.3)
};

struct ChunkHeader {
  uint32_t type = 0;
  uint32_t size = 0;       // payload bytes, children included
  uint32_t libraryId = 0;  // the raw stamp
  uint32_t version = 0;    // decoded, e.g. 0x36003
  uint32_t build = 0;
};

constexpr size_t kChunkHeaderSize = 12;

// §1.1: if libid & 0xFFFF0000: version = ((libid >> 14) & 0x3FF00) + 0x30000 | ((libid >> 16) & 0x3F),
// build = libid & 0xFFFF; else (pre-3.1 stamp) version = libid << 8, build 0.
uint32_t unpackVersion(uint32_t libraryId);
uint32_t unpackBuild(uint32_t libraryId);
// §1.1 libraryIDPack: version <= 0x31000 -> version >> 8, else
// ((version-0x30000) & 0x3FF00) << 14 | (version & 0x3F) << 16 | build.
uint32_t packLibraryId(uint32_t version, uint32_t build);

Result<ChunkHeader> readChunkHeader(ByteReader& r, Field f);
// Reads a header, checks its type, and returns a reader over exactly its payload (the parent
// resumes after the chunk). `name` becomes the path segment.
Result<ByteReader> readChunk(ByteReader& r, uint32_t expectedType, Field name, ChunkHeader* header = nullptr);

// Writes a header with a placeholder size; endChunk() patches it once the payload is written.
size_t beginChunk(ByteWriter& w, uint32_t type, uint32_t libraryId);
void endChunk(ByteWriter& w, size_t headerPos);

}  // namespace rigport::renderware
