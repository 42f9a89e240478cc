// From skin records (skn.hpp) to a mesh's per-vertex influences (sluggers.md §6 "Rebuilding
// per-vertex (bone, weight) lists"), after deciding what an SK bone index means (§6, §11 item 6).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/rig.hpp"
#include "formats/sluggers/gpl.hpp"
#include "formats/sluggers/model_layout.hpp"
#include "formats/sluggers/skn.hpp"

namespace rigport::sluggers {

// The two candidate meanings of an SK bone index, as rig bone indices (-1: no such bone).
struct BoneIndexMaps {
  std::vector<int32_t> byId;          // the bone whose boneID equals the index (community tools)
  std::vector<int32_t> byDepthFirst;  // the index-th bone of the runtime's boneArray ([CP] InitBone); empty if unknown
};

// Each slot of the skinned position array: its influences (duplicates summed, weights /256).
struct SlotSkin {
  std::vector<uint32_t> first;  // slot s owns influences[first[s] .. first[s+1])
  InfluenceList influences;
  nlohmann::json report;        // the choice of meaning and the counts, for the rig extras
  std::vector<int32_t> boneOfIndex;  // the meaning chosen: SK bone index → rig bone (-1: none)
};

// How many vertices buildSkin's passes go through between two times it gives the SKN section back:
// about 250 KB of its bytes held at once. Each time costs page faults when the section is read on
// (every 4,096 made `info` of the benchmark's block 1.6 times as slow; never, 2 MB more held).
constexpr size_t kSknReleaseVertices = 16384;

// Chooses the meaning and rebuilds every slot's influences; the skinned slots' bind positions and
// normals are replaced by their sources' (what the runtime deforms). releaseBytes, when set, is
// given the SKN section again and again as the skin is built (ReadContext::releaseBytes).
SlotSkin buildSkin(const SknData& skn, const BoneIndexMaps& maps, const Skeleton& skeleton, std::vector<glm::vec3>& slotPositions,
                   std::vector<glm::vec3>& slotNormals, Provenance& provenance,
                   const ReleaseBytes& releaseBytes = nullptr);

// The mesh's influences: vertex v takes those of slot vertexSlot[v] (moved when v is slot v).
void applySkin(SlotSkin&& skin, const std::vector<uint32_t>& vertexSlot, Mesh& mesh);

}  // namespace rigport::sluggers
