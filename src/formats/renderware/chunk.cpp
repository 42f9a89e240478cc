#include "formats/renderware/chunk.hpp"

#include <fmt/format.h>

namespace rigport::renderware {

uint32_t unpackVersion(uint32_t libraryId) {
  if (libraryId & 0xFFFF0000u) return (((libraryId >> 14) & 0x3FF00u) + 0x30000u) | ((libraryId >> 16) & 0x3Fu);
  return libraryId << 8;
}

uint32_t unpackBuild(uint32_t libraryId) { return (libraryId & 0xFFFF0000u) ? (libraryId & 0xFFFFu) : 0u; }

uint32_t packLibraryId(uint32_t version, uint32_t build) {
  if (version <= 0x31000u) return version >> 8;
  return (((version - 0x30000u) & 0x3FF00u) << 14) | ((version & 0x3Fu) << 16) | (build & 0xFFFFu);
}

Result<ChunkHeader> readChunkHeader(ByteReader& r, Field f) {
  auto scope = r.scope(f);
  ChunkHeader h;
  RP_ASSIGN(h.type, r.u32("type"));
  RP_ASSIGN(h.size, r.u32("size"));
  RP_ASSIGN(h.libraryId, r.u32("libraryId"));
  h.version = unpackVersion(h.libraryId);
  h.build = unpackBuild(h.libraryId);
  return h;
}

Result<ByteReader> readChunk(ByteReader& r, uint32_t expectedType, Field name, ChunkHeader* header) {
  const size_t start = r.position();
  RP_ASSIGN(ChunkHeader h, readChunkHeader(r, name));
  if (h.type != expectedType) {
    return r.errorAt(start, ErrorCode::BadValue, fmt::format("expected chunk type 0x{:X}, found 0x{:X}", expectedType, h.type), name);
  }
  if (h.size > r.remaining()) {
    return r.errorAt(start + 4, ErrorCode::Truncated,
                     fmt::format("chunk size {} exceeds the {} bytes that remain", h.size, r.remaining()), name);
  }
  if (header != nullptr) *header = h;
  return r.sub(h.size, name);
}

size_t beginChunk(ByteWriter& w, uint32_t type, uint32_t libraryId) {
  const size_t pos = w.size();
  w.u32(type);
  w.u32(0);
  w.u32(libraryId);
  return pos;
}

void endChunk(ByteWriter& w, size_t headerPos) {
  w.patchU32(headerPos + 4, static_cast<uint32_t>(w.size() - headerPos - kChunkHeaderSize));
}

}  // namespace rigport::renderware
