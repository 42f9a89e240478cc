#include "formats/sluggers/skin_build.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace rigport::sluggers {
namespace {

using Json = nlohmann::json;

// Mean distance, over all records of slots in the array, from a slot's bind position to the bind
// origin of the bone the record names: a skin vertex lies near the bones that move it, so the right
// meaning gives the smaller value. Infinite when an index names no bone.
double meanDistance(const std::vector<SkinRecord>& records, const std::vector<int32_t>& map, const std::vector<glm::mat4>& world,
                    size_t slots) {
  double sum = 0.0, weight = 0.0;
  for (const SkinRecord& r : records) {
    if (r.vertex >= slots) continue;
    if (r.boneIndex >= map.size() || map[r.boneIndex] < 0) return std::numeric_limits<double>::infinity();
    const glm::vec3 origin(world[static_cast<size_t>(map[r.boneIndex])][3]);
    sum += r.weight * static_cast<double>(glm::distance(r.position, origin));
    weight += r.weight;
  }
  return weight > 0.0 ? sum / weight : 0.0;
}

bool sameOnRecords(const std::vector<SkinRecord>& records, const BoneIndexMaps& maps) {
  for (const SkinRecord& r : records) {
    const int32_t a = r.boneIndex < maps.byId.size() ? maps.byId[r.boneIndex] : -1;
    const int32_t b = r.boneIndex < maps.byDepthFirst.size() ? maps.byDepthFirst[r.boneIndex] : -1;
    if (a != b) return false;
  }
  return true;
}

Json distanceJson(double d) { return std::isfinite(d) ? Json(d) : Json("an index names no bone"); }

}  // namespace

SlotSkin buildSkin(const std::vector<SkinRecord>& records, const BoneIndexMaps& maps, const Skeleton& skeleton,
                   std::vector<glm::vec3>& slotPositions, std::vector<glm::vec3>& slotNormals, Provenance& provenance) {
  const size_t slots = slotPositions.size();
  const std::vector<glm::mat4> world = skeleton.worldBindMatrices();
  SlotSkin out;
  nlohmann::json& report = out.report;
  const double byId = meanDistance(records, maps.byId, world, slots);
  const double byDfs = maps.byDepthFirst.empty() ? std::numeric_limits<double>::infinity()
                                                  : meanDistance(records, maps.byDepthFirst, world, slots);
  const bool depthFirst = byDfs < byId;
  if (!maps.byDepthFirst.empty() && sameOnRecords(records, maps)) {
    report["boneIndex"] = "boneId";
    report["reason"] = "bone ids and depth-first order name the same bones for every record";
  } else {
    report["boneIndex"] = depthFirst ? "depthFirst" : "boneId";
    report["reason"] = maps.byDepthFirst.empty() ? "no depth-first order (the bone tree links are broken)"
                                                 : "smaller mean distance from skinned bind positions to their bones";
    if (depthFirst || !std::isfinite(byId)) {
      provenance.warn("sluggers-skin-bone-index",
                      fmt::format("SK bone indices read as {} (mean distance of skinned bind vertices to their bones: "
                                  "bone id {:.4g}, depth-first {:.4g}); sluggers.md §11 item 6",
                                  depthFirst ? "depth-first boneArray positions" : "bone ids", byId, byDfs));
    }
  }
  report["meanDistance"] = {{"boneId", distanceJson(byId)}, {"depthFirst", distanceJson(byDfs)}};
  const std::vector<int32_t>& map = depthFirst ? maps.byDepthFirst : maps.byId;

  // §6: slots beyond the position array are runtime scratch; records naming no bone are dropped.
  size_t beyond = 0, unknownBone = 0;
  // Bucketed by slot (a counting sort, in file order within a slot), then by bone within each slot.
  std::vector<uint32_t> bucket(slots + 1, 0);
  for (const SkinRecord& r : records) {
    if (r.vertex >= slots) {
      ++beyond;
    } else if (r.boneIndex >= map.size() || map[r.boneIndex] < 0) {
      ++unknownBone;
    } else {
      ++bucket[r.vertex + 1];
    }
  }
  for (size_t s = 0; s < slots; ++s) bucket[s + 1] += bucket[s];
  std::vector<SkinRecord> kept(bucket[slots]);
  {
    std::vector<uint32_t> next(bucket.begin(), bucket.end() - 1);
    for (SkinRecord r : records) {
      if (r.vertex >= slots || r.boneIndex >= map.size() || map[r.boneIndex] < 0) continue;
      r.boneIndex = static_cast<uint16_t>(map[r.boneIndex]);
      kept[next[r.vertex]++] = r;
    }
  }
  for (size_t s = 0; s < slots; ++s) {  // a handful of records a slot: insertion sort, stable
    for (uint32_t i = bucket[s] + 1; i < bucket[s + 1]; ++i) {
      const SkinRecord r = kept[i];
      uint32_t j = i;
      for (; j > bucket[s] && kept[j - 1].boneIndex > r.boneIndex; --j) kept[j] = kept[j - 1];
      kept[j] = r;
    }
  }
  if (unknownBone > 0) {
    provenance.warn("sluggers-skin-bone", fmt::format("{} skin records name a bone index the ACT does not have; dropped", unknownBone));
  }

  // Per slot: duplicates (vertex, bone) summed (a full 256 is stored 255 + 1); the bind position and
  // normal are the sources' weighted mean (every record of a slot carries the same bind data).
  std::vector<uint32_t>& slotFirst = out.first;
  std::vector<Influence>& slotInfluences = out.influences;
  slotFirst.assign(slots + 1, 0);
  size_t unwritten = 0, off256 = 0;
  int64_t firstOff = -1;
  size_t k = 0;
  for (size_t s = 0; s < slots; ++s) {
    slotFirst[s] = static_cast<uint32_t>(slotInfluences.size());
    uint32_t total = 0;
    glm::dvec3 p(0.0), n(0.0);
    for (; k < kept.size() && kept[k].vertex == s; ++k) {
      const SkinRecord& r = kept[k];
      total += r.weight;
      p += glm::dvec3(r.position) * static_cast<double>(r.weight);
      n += glm::dvec3(r.normal) * static_cast<double>(r.weight);
      if (!slotInfluences.empty() && slotFirst[s] < slotInfluences.size() && slotInfluences.back().bone == r.boneIndex) {
        slotInfluences.back().weight += static_cast<float>(r.weight);
      } else {
        slotInfluences.push_back(Influence{r.boneIndex, static_cast<float>(r.weight)});
      }
    }
    if (total == 0) {
      ++unwritten;
      continue;
    }
    slotPositions[s] = glm::vec3(p / static_cast<double>(total));
    if (s < slotNormals.size()) slotNormals[s] = glm::vec3(n / static_cast<double>(total));
    if (total != kFullWeight) {
      ++off256;
      if (firstOff < 0) firstOff = static_cast<int64_t>(s);
    }
  }
  slotFirst[slots] = static_cast<uint32_t>(slotInfluences.size());
  for (Influence& i : slotInfluences) i.weight /= static_cast<float>(kFullWeight);
  if (off256 > 0) {
    provenance.warn("sluggers-weight-sum", fmt::format("{} skinned vertices have weights that do not sum to 256/256 (first: slot {}); "
                                                       "kept as stored",
                                                       off256, firstOff));
  }

  report["records"] = records.size();
  report["slotsBeyondPositions"] = beyond;  // §6: 163 of 325 vanilla models write scratch slots
  report["unwrittenSlots"] = unwritten;     // §6: gap slots left by cache-line exclusivity
  return out;
}

void applySkin(const SlotSkin& skin, const std::vector<uint32_t>& vertexSlot, Mesh& mesh) {
  mesh.influenceOffsets.assign(1, 0);
  mesh.influenceOffsets.reserve(vertexSlot.size() + 1);
  mesh.influences.clear();
  for (uint32_t slot : vertexSlot) {
    mesh.influences.insert(mesh.influences.end(), skin.influences.begin() + skin.first[slot], skin.influences.begin() + skin.first[slot + 1]);
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
}

}  // namespace rigport::sluggers
