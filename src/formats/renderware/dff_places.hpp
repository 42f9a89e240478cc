// Where the values rigport models lie in an original DFF, for writing an edited rig into a copy of
// it (`convert --to renderware-dff --base ORIGINAL`, issue 28), and the splices that change a
// chunk's length with every enclosing chunk's size patched (renderware.md §1.1: a chunk's size
// counts its children). Offsets are from the start of the file.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/error.hpp"

namespace rigport::renderware {

// A chunk as the walk met it: its header's offset and the end of its payload.
struct ChunkSpan {
  size_t header = 0;
  size_t end = 0;
};

// §1.5 Skin PLG of generic geometry. The new layout lists used nodes before the vertices; the old
// one has none and a DWORD before each matrix.
struct SkinPlace {
  ChunkSpan chunk;
  bool oldLayout = false;
  uint32_t numBones = 0;
  uint32_t numUsedBones = 0;
  uint32_t maxWeights = 0;
  uint32_t splitMeshes = 0;  // numMeshes of the split data (new layout): it depends on the used nodes
  size_t usedBonesAt = 0, indicesAt = 0, weightsAt = 0, matricesAt = 0;
  size_t matrixAt(uint32_t node) const { return matricesAt + (oldLayout ? 68u : 64u) * node + (oldLayout ? 4u : 0u); }
};

// §1.2 Geometry. `native` geometry keeps its vertices in a Native Data PLG (§1.7), which is not
// rewritten: its offsets below stay 0.
struct GeometryPlace {
  size_t index = 0;  // in the reader's order (GeometryList, or Atomic by Atomic before 0x30400)
  uint32_t flags = 0;
  uint32_t numTriangles = 0, numVertices = 0, numMorphTargets = 0;
  bool native = false;
  size_t flagsAt = 0;
  std::optional<size_t> uvsAt;      // first UV set
  size_t trianglesAt = 0;           // u16 v1, v0, material, v2 (§1.2)
  size_t sphereAt = 0;              // morph target 0's bounding sphere
  std::optional<size_t> positionsAt, normalsAt;  // morph target 0
  std::optional<ChunkSpan> binMesh;
  // What else the geometry holds a vertex at a time, or may (an extension chunk rigport does not
  // read): prelit colours, more UV sets or morph targets, extra vertex colours, ...
  std::vector<std::string> perVertex;
  std::optional<SkinPlace> skin;
  bool nativeSkin = false;
};

// §1.2 FrameList record: right, up, at, pos (12 f32), parent, flags; and the frame's Extension,
// where its Node Name chunk lies (§1.3: the last one is what readers keep), if it has one.
struct FramePlace {
  size_t at = 0;
  int32_t parent = -1;
  std::array<float, 12> matrix{};
  ChunkSpan extension;
  uint32_t extensionLibraryId = 0;
  std::optional<ChunkSpan> nodeName;
};

struct DffPlaces {
  std::vector<FramePlace> frames;
  std::vector<GeometryPlace> geometries;
  std::vector<uint32_t> atomicGeometry;  // geometry of each Atomic, in stream order
  std::vector<ChunkSpan> chunks;         // every chunk a splice can lie in, outermost first
};

// Walks an original that readDff accepted (so its structure is sound; every read stays checked).
Result<DffPlaces> findPlaces(std::span<const uint8_t> bytes);

// `removed` bytes at `at` replaced by `bytes`.
struct Splice {
  size_t at = 0;
  size_t removed = 0;
  std::vector<uint8_t> bytes;
};
// Applies splices that do not overlap, each chunk of `chunks` that holds one growing or shrinking
// by as much.
void applySplices(std::vector<uint8_t>& file, std::vector<Splice> splices, const std::vector<ChunkSpan>& chunks);

}  // namespace rigport::renderware
