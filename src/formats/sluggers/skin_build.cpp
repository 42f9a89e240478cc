#include "formats/sluggers/skin_build.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/default_init_allocator.hpp"

namespace rigport::sluggers {
namespace {

using Json = nlohmann::json;

// Mean distance, over all records of slots in the array, from a slot's bind position to the bind
// origin of the bone the record names, for each reading: a skin vertex lies near the bones that move
// it, so the report lets a user judge a block's reading. Infinite for a reading under which an index
// names no bone, or that has no map.
struct MeanDistances {
  double byId = 0.0, byDepthFirst = 0.0;
};

// Each slot's bind data: the first record's 12 source bytes, and whether every record of the slot
// has the same (§6: the usual case), so that the per-slot pass reads a compact array instead of
// sources scattered over the section. Records the bone check later drops are looked at too: a
// difference there only sends the slot through the exact weighted mean.
struct SlotSources {
  enum State : uint8_t { kNone, kOne, kMixed };
  // Not zero-filled: a slot's bytes are read only once its state says they were written.
  std::vector<std::array<uint8_t, kSkinVertexBytes>, DefaultInitAllocator<std::array<uint8_t, kSkinVertexBytes>>> bytes;
  std::vector<uint8_t> state;
};

// Both, from one pass over the records in file order (where their sources lie in sequence), both
// readings at once: each record's source is loaded once for its slot's bytes and its position (a
// pass each loaded every source twice).
struct RecordSources {
  SlotSources slots;
  MeanDistances distances;
};
RecordSources recordSources(const SknData& skn, const BoneIndexMaps& maps, const std::vector<glm::mat4>& world, size_t slots) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  struct Sum {
    const std::vector<int32_t>& map;
    double sum = 0.0, weight = 0.0;
    bool named = true;
    void add(const SkinRecord& r, const glm::vec3& position, const std::vector<glm::mat4>& world) {
      if (!named) return;
      if (r.boneIndex >= map.size() || map[r.boneIndex] < 0) {
        named = false;
        return;
      }
      const glm::vec3 origin(world[static_cast<size_t>(map[r.boneIndex])][3]);
      sum += r.weight * static_cast<double>(glm::distance(position, origin));
      weight += r.weight;
    }
    double mean() const { return !named ? kNone : weight > 0.0 ? sum / weight : 0.0; }
  };
  Sum byId{maps.byId}, byDepthFirst{maps.byDepthFirst};
  const bool depthFirst = !maps.byDepthFirst.empty();
  RecordSources out;
  out.slots.bytes.resize(slots);
  out.slots.state.assign(slots, SlotSources::kNone);
  for (const SkinRecord& r : skn.records) {
    if (r.vertex >= slots) continue;
    const uint8_t* source = skn.section.data() + r.source;
    auto& first = out.slots.bytes[r.vertex];
    uint8_t& state = out.slots.state[r.vertex];
    if (state == SlotSources::kNone) {
      std::memcpy(first.data(), source, kSkinVertexBytes);
      state = SlotSources::kOne;
    } else if (state == SlotSources::kOne && std::memcmp(first.data(), source, kSkinVertexBytes) != 0) {
      state = SlotSources::kMixed;
    }
    const glm::vec3 position = skn.vector(source);
    byId.add(r, position, world);
    if (depthFirst) byDepthFirst.add(r, position, world);
  }
  out.distances = {byId.mean(), depthFirst ? byDepthFirst.mean() : kNone};
  return out;
}

// The first record whose index names no bone by id, if any: an index the block's bone ids cannot
// mean (§11 item 6: the community reads bone ids, the 2001 CP depth-first positions).
const SkinRecord* firstWithoutBoneId(const std::vector<SkinRecord>& records, const BoneIndexMaps& maps) {
  for (const SkinRecord& r : records) {
    if (r.boneIndex >= maps.byId.size() || maps.byId[r.boneIndex] < 0) return &r;
  }
  return nullptr;
}

bool allInDepthFirst(const std::vector<SkinRecord>& records, const BoneIndexMaps& maps) {
  for (const SkinRecord& r : records) {
    if (r.boneIndex >= maps.byDepthFirst.size() || maps.byDepthFirst[r.boneIndex] < 0) return false;
  }
  return !maps.byDepthFirst.empty();
}

Json distanceJson(double d) { return std::isfinite(d) ? Json(d) : Json("an index names no bone"); }

}  // namespace

SlotSkin buildSkin(const SknData& skn, const BoneIndexMaps& maps, const Skeleton& skeleton,
                   std::vector<glm::vec3>& slotPositions, std::vector<glm::vec3>& slotNormals, Provenance& provenance) {
  const size_t slots = slotPositions.size();
  const std::vector<SkinRecord>& records = skn.records;
  const std::vector<glm::mat4> world = skeleton.worldBindMatrices();
  SlotSkin out;
  nlohmann::json& report = out.report;
  // §11 item 6, settled by the vanilla Mario block's public dumps: read as bone ids, all 10 finger
  // chains are skinned on segments 0-2 and never on the tips. So indices are bone ids, as the
  // community tools read them; the depth-first (boneArray) reading is taken only where bone ids are
  // impossible, an index no bone id has, and every index names a bone that way.
  const SkinRecord* noId = firstWithoutBoneId(records, maps);
  const bool depthFirst = noId != nullptr && allInDepthFirst(records, maps);
  const RecordSources recorded = recordSources(skn, maps, world, slots);
  const MeanDistances& distances = recorded.distances;
  report["boneIndex"] = depthFirst ? "depthFirst" : "boneId";
  report["reason"] = noId == nullptr ? "every index is a bone id (sluggers.md §11 item 6)"
                     : depthFirst    ? "an index no bone id has; every index is a depth-first (boneArray) position"
                                     : "an index no bone id has, nor a depth-first position; its records are dropped";
  // Where the skinned bind vertices lie against each reading's bones: for a user to judge a block.
  report["meanDistance"] = {{"boneId", distanceJson(distances.byId)}, {"depthFirst", distanceJson(distances.byDepthFirst)}};
  if (depthFirst) {
    provenance.warn("sluggers-skin-bone-index",
                    fmt::format("SK bone index {} (skin record of slot {}) is no bone id of this block; every index read as a "
                                "depth-first boneArray position instead (sluggers.md §11 item 6)",
                                noId->boneIndex, noId->vertex));
  }
  const std::vector<int32_t>& map = depthFirst ? maps.byDepthFirst : maps.byId;
  out.boneOfIndex = map;

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
  // Record numbers are sorted, not the 32-byte records: scattering those was most of the time.
  std::vector<uint32_t, DefaultInitAllocator<uint32_t>> kept(bucket[slots]);  // every element written below: no zero fill
  auto boneOf = [&](uint32_t record) { return static_cast<uint32_t>(map[records[record].boneIndex]); };
  {
    std::vector<uint32_t> next(bucket.begin(), bucket.end() - 1);
    for (uint32_t i = 0; i < records.size(); ++i) {
      const SkinRecord& r = records[i];
      if (r.vertex >= slots || r.boneIndex >= map.size() || map[r.boneIndex] < 0) continue;
      kept[next[r.vertex]++] = i;
    }
  }
  for (size_t s = 0; s < slots; ++s) {  // a handful of records a slot: insertion sort, stable
    for (uint32_t i = bucket[s] + 1; i < bucket[s + 1]; ++i) {
      const uint32_t r = kept[i];
      const uint32_t bone = boneOf(r);
      uint32_t j = i;
      for (; j > bucket[s] && boneOf(kept[j - 1]) > bone; --j) kept[j] = kept[j - 1];
      kept[j] = r;
    }
  }
  if (unknownBone > 0) {
    provenance.warn("sluggers-skin-bone", fmt::format("{} skin records name a bone index the ACT does not have; dropped", unknownBone));
  }

  // Per slot: duplicates (vertex, bone) summed (a full 256 is stored 255 + 1); the bind position and
  // normal are the sources' weighted mean (every record of a slot carries the same bind data).
  std::vector<uint32_t>& slotFirst = out.first;
  InfluenceList& slotInfluences = out.influences;
  slotFirst.assign(slots + 1, 0);
  size_t unwritten = 0, off256 = 0;
  int64_t firstOff = -1;
  slotInfluences.reserve(kept.size());
  const SlotSources& sources = recorded.slots;
  for (size_t s = 0; s < slots; ++s) {
    slotFirst[s] = static_cast<uint32_t>(slotInfluences.size());
    uint32_t total = 0;
    const bool oneSource = sources.state[s] == SlotSources::kOne;
    for (uint32_t k = bucket[s]; k < bucket[s + 1]; ++k) {
      const SkinRecord& r = records[kept[k]];
      const uint32_t bone = boneOf(kept[k]);
      total += r.weight;
      if (slotFirst[s] < slotInfluences.size() && slotInfluences.back().bone == bone) {
        slotInfluences.back().weight += static_cast<float>(r.weight);
      } else {
        slotInfluences.push_back(Influence{bone, static_cast<float>(r.weight)});
      }
    }
    glm::dvec3 p(0.0), n(0.0);
    if (total != 0 && !oneSource) {
      for (uint32_t k = bucket[s]; k < bucket[s + 1]; ++k) {
        const SkinRecord& r = records[kept[k]];
        p += glm::dvec3(skn.position(r)) * static_cast<double>(r.weight);
        n += glm::dvec3(skn.normal(r)) * static_cast<double>(r.weight);
      }
    }
    if (total == 0) {
      ++unwritten;
      continue;
    }
    // One source: the weighted mean is exactly that source (float × integer weights sum exactly
    // in double), so it is taken as it is.
    slotPositions[s] = oneSource ? skn.vector(sources.bytes[s].data()) : glm::vec3(p / static_cast<double>(total));
    if (s < slotNormals.size()) slotNormals[s] = oneSource ? skn.vector(sources.bytes[s].data() + 6) : glm::vec3(n / static_cast<double>(total));
    if (total != kFullWeight) {
      ++off256;
      if (firstOff < 0) firstOff = static_cast<int64_t>(s);
    }
  }
  slotFirst[slots] = static_cast<uint32_t>(slotInfluences.size());
  for (Influence& i : slotInfluences) i.weight /= static_cast<float>(kFullWeight);
  if (off256 > 0) {
    provenance.warn("sluggers-weight-sum", fmt::format("{} skinned vertices have weights that do not sum to 256/256 (first: slot {}); "
                                                       "read as stored, and a glTF export rescales each such vertex's weights to sum 1",
                                                       off256, firstOff));
  }

  report["records"] = records.size();
  report["slotsBeyondPositions"] = beyond;  // §6: 163 of 325 vanilla models write scratch slots
  report["unwrittenSlots"] = unwritten;     // §6: gap slots left by cache-line exclusivity
  return out;
}

void applySkin(SlotSkin&& skin, const std::vector<uint32_t>& vertexSlot, Mesh& mesh) {
  bool slotPerVertex = vertexSlot.size() + 1 == skin.first.size();
  for (size_t v = 0; slotPerVertex && v < vertexSlot.size(); ++v) slotPerVertex = vertexSlot[v] == v;
  if (slotPerVertex) {  // the skinned layout: vertex v is slot v
    mesh.influenceOffsets = std::move(skin.first);
    mesh.influences = std::move(skin.influences);
    return;
  }
  mesh.influenceOffsets.assign(1, 0);
  mesh.influenceOffsets.reserve(vertexSlot.size() + 1);
  mesh.influences.clear();
  for (uint32_t slot : vertexSlot) {
    mesh.influences.insert(mesh.influences.end(), skin.influences.begin() + skin.first[slot], skin.influences.begin() + skin.first[slot + 1]);
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
}

}  // namespace rigport::sluggers
