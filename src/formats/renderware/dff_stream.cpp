#include "formats/renderware/dff_stream.hpp"

#include <fmt/format.h>

#include "formats/renderware/dff_layout.hpp"

namespace rigport::renderware {

Status forEachChunk(ByteReader& r, const char* childName,
                    const std::function<Status(const ChunkHeader&, ByteReader&)>& fn) {
  for (int64_t i = 0; !r.atEnd(); ++i) {
    const size_t start = r.position();
    RP_ASSIGN(ChunkHeader h, readChunkHeader(r, Field(childName, i)));
    if (h.size > r.remaining()) {
      return r.errorAt(start + 4, ErrorCode::Truncated,
                       fmt::format("chunk 0x{:X} size {} exceeds the {} bytes left in its parent", h.type, h.size,
                                   r.remaining()),
                       Field(childName, i));
    }
    RP_ASSIGN(ByteReader payload, r.sub(h.size, Field(childName, i)));
    RP_CHECK(fn(h, payload));
  }
  return Ok{};
}

void noteSkippedChunk(const DffContext& ctx, const ChunkHeader& h, const ByteReader& payload) {
  switch (h.type) {
    case kBinMeshPlg: case kLight: case kCamera: case kRightToRender: case kMorphPlg: case kMatFxPlg:
    case kVertexFormatPlg: case kPipelineSet: case kTwoDEffect: case kExtraVertColour: case kBreakable:
    case kUserDataPlg: case kMaterialList:
      return;
    default:
      break;
  }
  if (ctx.provenance == nullptr) return;
  ctx.provenance->warn("unknown-chunk",
                       fmt::format("skipped unknown chunk type 0x{:X} ({} bytes) at 0x{:X} in {}", h.type, h.size,
                                   payload.fileOffsetOfStart() - kChunkHeaderSize, payload.path()));
}

Result<glm::mat4> readRwMatrix(ByteReader& r, Field f) {
  auto scope = r.scope(f);
  glm::mat4 m(1.0f);
  for (int c = 0; c < 4; ++c) {
    for (int k = 0; k < 4; ++k) { RP_ASSIGN(m[c][k], r.f32(Field("m", c * 4 + k))); }
  }
  m[0][3] = m[1][3] = m[2][3] = 0.0f;
  m[3][3] = 1.0f;
  return m;
}

Result<std::vector<glm::mat4>> readInverseMatrices(ByteReader& r, uint32_t count, bool dwordBeforeEach) {
  RP_ASSIGN(const size_t n, r.count(count, dwordBeforeEach ? 68 : 64, "inverseMatrices"));
  std::vector<glm::mat4> matrices(n);
  for (size_t b = 0; b < n; ++b) {
    if (dwordBeforeEach) RP_CHECK(r.skip(4, Field("unused", static_cast<int64_t>(b))));
    RP_ASSIGN(matrices[b], readRwMatrix(r, Field("inverseMatrices", static_cast<int64_t>(b))));
  }
  return matrices;
}

void writeRwMatrix(ByteWriter& w, const glm::mat4& m) {
  for (int c = 0; c < 4; ++c) {
    for (int k = 0; k < 3; ++k) w.f32(m[c][k]);
    w.f32(0.0f);
  }
}

}  // namespace rigport::renderware
