// Where the values rigport models lie in an original arena, for writing an edited rig into a copy
// of it (`convert --to rw4-arena --base ORIGINAL`, issue 28). The reader notes them as it reads
// (readArena with places), so a place is exactly where the value read came from. Offsets are file
// offsets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/source.hpp"
#include "formats/rw4/arena_layout.hpp"
#include "formats/rw4/model_data.hpp"

namespace rigport::rw4 {

// One RenderOptiMeshData's skin stream (§3.1, §4.2), one per rig mesh.
struct OptiMeshPlace {
  uint32_t row = 0;       // the RenderOptiMeshData
  uint32_t indexRow = 0;  // its IndexBuffer
  size_t vertexAt = 0;    // vertex 0 of the vertex data (a BaseResource)
  size_t stride = 0;
  size_t count = 0;
  std::optional<VertexElement> position, normal, uv, weights, indices;
  std::vector<uint16_t> palette;  // slot → file bone (the remap table)
};

// One Spore VertexBuffer (docs/spore_meshes.md), for a rig mesh read from it.
struct SporeMeshPlace {
  struct Element {
    uint16_t offset = 0;
    uint8_t type = 0;  // D3DDECLTYPE (spore_mesh_layout.hpp)
  };
  uint32_t row = 0;  // the VertexBuffer
  size_t vertexAt = 0;
  size_t stride = 0;
  size_t count = 0;
  std::optional<Element> position, normal, uv, indices, weights;
  // A BlendShapeBuffer (row) instead: --base writes none of its values and refuses an edit of them.
  bool blendShapeBuffer = false;
};

// The rig of a RenderModelData (its bind pose in m_pIBPMatrices, §4.1) or of a Skeleton object
// alone (PC: its bind pose in an AnimationSkin, §5).
struct RigPlace {
  bool modelData = true;
  uint32_t row = 0;                 // the RenderModelData, or the Skeleton
  // The inverse bind matrices, 64 bytes a file bone: RenderModelData's 16 floats, or an
  // AnimationSkin's 3×4 rows padded to vec4 and the translation (its padding words not read); 0: none.
  size_t inverseBindAt = 0;
  std::vector<uint32_t> fileToRig;  // file bone → rig bone
  std::vector<NameSlot> nameSlots;  // RenderModelData: each file bone's name in the pool, `at` a file offset
  std::vector<OptiMeshPlace> meshes;            // the rig's first meshes
  std::vector<SporeMeshPlace> sporeMeshes;      // then these
};

struct ArenaPlaces {
  Platform platform = Platform::Ps3;
  std::vector<RigPlace> rigs;  // one per rig of the asset, in order
};

// readArena, noting where each rig's values lie.
Result<Asset> readArena(const Source& source, ReadContext& ctx, ArenaPlaces* places);

}  // namespace rigport::rw4
