// Where the values rigport models lie in an original model block, for writing an edited rig into a
// copy of it (`convert --to sluggers-model --base ORIGINAL`, issue 28). The reader finds them as it
// reads (readModel with places), so a place is exactly where the value read came from. Offsets are
// from the block start.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"
#include "formats/sluggers/act.hpp"
#include "formats/sluggers/gpl.hpp"
#include "formats/sluggers/model_layout.hpp"
#include "formats/sluggers/skn.hpp"

namespace rigport::sluggers {

// One per rig bone, in rig order.
struct BonePlace {
  uint32_t table = 0;       // its ACT bone record (§4)
  size_t controlAt = 0;     // its Control (§4 SRT, 0x34 bytes); 0: none, the identity
  Control control;          // as read: the type bits say which components the record holds
  // inheritanceFlag 0 under a parent: the control holds the bone's actor-space (world) pose (§4).
  bool actorSpace = false;
};

// One per GPL submesh (= rig mesh). Arrays as the reader found them, offsets from the block start.
struct MeshPlace {
  GplArray position, normal, uv;
  bool skinned = false;  // compCount 6, position then normal a slot (§3); its bind data is in the SKN too
  // Rig vertex v's element of each array (kNoIndex: none); all empty when vertex v is element v of
  // every array (every corner used one index for all three, as rigport's writer does).
  std::vector<uint32_t> positionOf, normalOf, uvOf;
};

struct SkinPlace {
  int32_t mesh = -1;    // the skinned submesh; -1: no skin read
  size_t section = 0;   // SKN start: records' sources and weights are relative to it
  uint8_t shift = 0;    // posNrmShift (§6): sources are s16 with this many fractional bits
  SkinRecords records;
  std::vector<SkinRecordWhere> where;  // one per record
  std::vector<int32_t> boneOfIndex;    // SK bone index → rig bone, as the reader chose (§11 item 6)
};

struct ModelPlaces {
  std::vector<BonePlace> bones;
  std::vector<MeshPlace> meshes;
  SkinPlace skin;
};

// readModel, noting where each value lies.
Result<Rig> readModel(std::span<const uint8_t> bytes, ReadContext& ctx, ModelPlaces* places);

// The places of the ACT's bones (`tableToRig` as buildSkeleton made it) and of one submesh's arrays.
void placeBones(const ActData& act, size_t actAt, const std::vector<int32_t>& tableToRig, ModelPlaces& places);
MeshPlace placeMesh(const GplMesh& mesh, size_t gplAt);

}  // namespace rigport::sluggers
