// Shared pieces of the DFF reader/writer: the per-file context, the walk over a chunk's children
// (§1.1: every child's size is checked against what remains of its parent) and RwMatrix I/O.
#pragma once

#include <cstdint>
#include <functional>

#include <glm/glm.hpp>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "core/rig_storage.hpp"
#include "formats/renderware/chunk.hpp"

namespace rigport::renderware {

struct DffContext {
  uint32_t version = 0;  // decoded stamp of the Clump header (§1.1)
  uint32_t libraryId = 0;
  Provenance* provenance = nullptr;
  RigStorage* storage = nullptr;  // ReadOptions::storage: where the mesh arrays come from, when set
};

// Calls `fn(header, payloadReader)` for each child chunk of `r` until `r` is exhausted. A header
// whose size exceeds the parent's remaining bytes is an error (Truncated) at that header.
Status forEachChunk(ByteReader& r, const char* childName,
                    const std::function<Status(const ChunkHeader&, ByteReader&)>& fn);

// Records an "unknown-chunk" warning (type, offset, path) unless `type` is a known, ignored one.
void noteSkippedChunk(const DffContext& ctx, const ChunkHeader& h, const ByteReader& payload);

// 16 floats of an RwMatrix (right, flags, up, pad, at, pad, pos, pad) = column-major (§1.9);
// the pads are forced to (0,0,0,1) (§1.5: real files carry junk there).
Result<glm::mat4> readRwMatrix(ByteReader& r, Field f);
// `count` inverse bone matrices of a Skin PLG (§1.5), checked against the remaining bytes first.
// The old layout (and only it) stores an unused DWORD before each matrix.
Result<std::vector<glm::mat4>> readInverseMatrices(ByteReader& r, uint32_t count, bool dwordBeforeEach);
// Writes the matrix with zero pads, as librw-written files carry (samples' dumps).
void writeRwMatrix(ByteWriter& w, const glm::mat4& m);

}  // namespace rigport::renderware
