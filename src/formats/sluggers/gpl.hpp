// The GPL (geometry palette) section, sluggers.md §3: each submesh's decoded attribute arrays and
// its display lists turned into triangle corners.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "core/byte_reader.hpp"
#include "core/rig.hpp"

namespace rigport::sluggers {

constexpr uint32_t kNoIndex = 0xFFFFFFFFu;

// Given file bytes a read is done with (ReadContext::releaseBytes).
using ReleaseBytes = std::function<void(std::span<const uint8_t>)>;

// Where an attribute array lies (§3 attribute headers): element i's first component at
// offset + i * stride, a section offset, its `components` read components gxComponentSize apart;
// count 0 when the layout has none.
struct GplArray {
  size_t offset = 0;
  size_t stride = 0;
  uint16_t count = 0;
  uint8_t quantizeInfo = 0;
  uint8_t components = 0;
};

struct GplMesh {
  std::string name;
  GplArray positionArray, normalArray, uvArray;
  uint8_t positionCompCount = 3;
  uint8_t positionQuantize = 0;
  std::vector<glm::vec3> positions;           // one per slot of the position array
  std::vector<glm::vec3> interleavedNormals;  // compCount 6: the normal stored after each position
  std::vector<glm::vec3> normals;             // the normal array (empty where next() left it aliasing interleavedNormals)
  bool normalsAliasPositions = false;         // §3: the skinned normal header points 6 bytes into the positions
  std::vector<glm::vec2> uvs;                 // texture channel 0
  // Triangle corners, three per triangle, winding already reversed (§3 "primitive list"); an
  // attribute the vertex descriptor leaves out is kNoIndex. The reader sizes them for a list's most
  // triangles and then writes each corner: the normal and uv indices are not zero-filled first (a
  // pass over 2.4 MB on the benchmark's block); the position indices become Mesh::indices.
  std::vector<uint32_t> cornerPosition;
  std::vector<uint32_t, DefaultInitAllocator<uint32_t>> cornerNormal, cornerUv;
  // Summaries of the corners, made as each primitive's are added: whether any has a normal or a uv
  // index, and whether every corner's normal and uv indices (where present) equal its position index.
  bool anyCornerNormal = false, anyCornerUv = false, cornersShareIndex = true;
  // While every corner's normal and uv indices are its position index or kNoIndex (the writer's
  // layout), cornerNormal and cornerUv stay empty (4.8 MB not written on the benchmark's block):
  // the corners from each run's first on have the run's attributes. storeCornerIndices() fills them.
  struct CornerRun {
    size_t firstCorner = 0;
    bool normal = false, uv = false;
  };
  bool cornerIndicesStored = false;
  std::vector<CornerRun> cornerRuns;
  void storeCornerIndices();
  // §3 texture binds of layer 0 (display state id 1), in order: the corners from firstCorner on are
  // drawn with that bind's texture until the next bind.
  struct TextureBind {
    size_t firstCorner = 0;
    uint32_t setting = 0;
  };
  std::vector<TextureBind> textureBinds;
  // The section bytes from the first to the end of the last of its arrays and primitive lists, for
  // a read to give back once it is decoded (ReadContext::releaseBytes): they are nearly all of a
  // submesh's. Another submesh's bytes in between are only read in again if it is decoded later.
  size_t bytesFrom = SIZE_MAX, bytesTo = 0;
};

// The GPL section's submeshes, decoded one at a time in file order, so that a read building its
// meshes one by one holds one decoded submesh, not all of them (issue 30: `info` within 1.5x the
// file). Every count is charged to the reader's budget before allocation.
class GplMeshes {
 public:
  // Checks the section's header (magic, submesh count, descriptors); `gpl` spans the section.
  static Result<GplMeshes> open(ByteReader gpl);
  size_t size() const { return count_; }
  // The section bytes a read may give back (ReadContext::releaseBytes) once `mesh`, the submesh
  // just decoded, is: its arrays' and lists' (GplMesh::bytesFrom), or after the last submesh the
  // whole section, which nothing reads again.
  std::span<const uint8_t> doneWith(const GplMesh& mesh) const {
    return decoded_ == count_ ? r_.data() : r_.data().subspan(mesh.bytesFrom, mesh.bytesTo - mesh.bytesFrom);
  }
  // Decodes the next submesh (the first, then each in turn); lines and points warn into provenance.
  // releaseBytes, when set, is given its arrays' bytes once they are decoded, and each primitive
  // list's once it is (ReadContext::releaseBytes): not all held until the submesh is decoded.
  // `skinned`: the submesh the skin is built on, whose normals, where they alias the positions
  // (§3), are interleavedNormals as the skin leaves them: `normals` stays empty (their 0.7 MB on
  // the benchmark's block were decoded and held while the skin was built, then thrown away).
  Result<GplMesh> next(Provenance& provenance, const ReleaseBytes& releaseBytes = nullptr, bool skinned = false);
  // Submesh i's position compCount (3, or 6 for the skinned layout) without decoding it. Read with
  // the checks decoding it starts with, so an error here is one decoding it would give.
  Result<uint8_t> positionCompCount(size_t i);
  // For a read that failed after opening the section: decodes the submeshes not yet decoded, and
  // gives the first error, which wins, as when every submesh was decoded before the rest was read.
  Status decodeRest();

 private:
  explicit GplMeshes(ByteReader gpl) : r_(std::move(gpl)) {}
  // Descriptor i's submesh name; `layout` gets its layout's section offset.
  Result<std::string> readDescriptor(size_t i, size_t& layout);

  ByteReader r_;
  uint32_t count_ = 0;
  size_t descriptors_ = 0;
  size_t decoded_ = 0;
  uint64_t corners_ = 0, elements_ = 0;  // over the submeshes decoded
};

}  // namespace rigport::sluggers
