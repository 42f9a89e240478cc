#include "formats/sluggers/skin_build.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/default_init_allocator.hpp"
#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#endif

namespace rigport::sluggers {
namespace {

using Json = nlohmann::json;

constexpr uint32_t kNoBone = std::numeric_limits<uint32_t>::max();  // a record's index names no bone under the reading taken
constexpr double kNoDistance = std::numeric_limits<double>::infinity();

// What every SK bone index means under both readings, looked up once a record instead of checking
// both maps' bounds and entries (§11 item 6). The last entry stands for every index past both maps
// (indices are clamped to it), so it names no bone either way; an SK index is a u16, so there are
// at most 65,536 entries before it.
class IndexReadings {
 public:
  enum Unnamed : uint8_t { kNoId = 1, kNoDepthFirst = 2 };  // bits: the readings under which an index names no bone
  // The bind origin of the bone each reading names (w 0; all 0 where it names none): 16 bytes each,
  // as the vector lanes load them.
  struct Origins {
    glm::vec4 byId, byDepthFirst;
  };

  IndexReadings(const BoneIndexMaps& maps, const std::vector<glm::mat4>& world) {
    const size_t past = std::min<size_t>(std::max(maps.byId.size(), maps.byDepthFirst.size()), size_t{1} << 16);
    origins_.assign(past + 1, Origins{glm::vec4(0.0f), glm::vec4(0.0f)});
    unnamed_.assign(past + 1, kNoId | kNoDepthFirst);
    auto read = [&](const std::vector<int32_t>& map, glm::vec4 Origins::*origin, Unnamed bit) {
      for (size_t i = 0; i < std::min(map.size(), past); ++i) {
        if (map[i] < 0) continue;
        origins_[i].*origin = glm::vec4(glm::vec3(world[static_cast<size_t>(map[i])][3]), 0.0f);
        unnamed_[i] = static_cast<uint8_t>(unnamed_[i] & ~bit);
      }
    };
    read(maps.byId, &Origins::byId, kNoId);
    read(maps.byDepthFirst, &Origins::byDepthFirst, kNoDepthFirst);
  }
  size_t entry(uint16_t index) const { return std::min<size_t>(index, unnamed_.size() - 1); }
  uint8_t unnamed(size_t entry) const { return unnamed_[entry]; }
  const Origins& origins(size_t entry) const { return origins_[entry]; }
  // Each entry's bone under one reading, kNoBone where it names none.
  std::vector<uint32_t> bones(const std::vector<int32_t>& map) const {
    std::vector<uint32_t> out(unnamed_.size(), kNoBone);
    for (size_t i = 0; i + 1 < out.size() && i < map.size(); ++i) {
      if (map[i] >= 0) out[i] = static_cast<uint32_t>(map[i]);
    }
    return out;
  }

 private:
  std::vector<Origins> origins_;
  std::vector<uint8_t> unnamed_;
};

// Mean distance, over all records of slots in the array, from a record's bind position to the bind
// origin of the bone the record names, for each reading: a skin vertex lies near the bones that move
// it, so the report lets a user judge a block's reading. Infinite for a reading under which an index
// names no bone, or that has no map. The sums run in record order (they round), both at once.
class DistanceSums {
 public:
  // The rule: glm::distance in single precision from the record's bind position, times its weight
  // and summed in double. Where the build has SSE2 lanes, both readings take one register, bit for
  // bit the rule (SluggersModel.MeanDistancesFollowTheScalarRule).
  void add(const SknData& skn, const uint8_t* source, uint16_t weight, const IndexReadings::Origins& o) {
    weight_ += weight;
#if RIGPORT_SSE2_LANES
    // The position's three big-endian s16 (and the normal's first, in the unused lane), byte-swapped,
    // sign-extended and scaled: exact, as the scalar decode.
    const __m128i raw = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(source));
    const __m128i swapped = _mm_or_si128(_mm_slli_epi16(raw, 8), _mm_srli_epi16(raw, 8));
    const __m128 position = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(swapped, swapped), 16)), _mm_set1_ps(skn.scale));
    const __m128 id = _mm_sub_ps(_mm_loadu_ps(&o.byId.x), position), depthFirst = _mm_sub_ps(_mm_loadu_ps(&o.byDepthFirst.x), position);
    const __m128 idSquared = _mm_mul_ps(id, id), depthFirstSquared = _mm_mul_ps(depthFirst, depthFirst);
    // (x x', y y') and (z z', ..): the dot products as glm adds them, (x + y) + z, in lanes 0 and 1.
    const __m128 xy = _mm_unpacklo_ps(idSquared, depthFirstSquared), zw = _mm_unpackhi_ps(idSquared, depthFirstSquared);
    const __m128 dot = _mm_add_ps(_mm_add_ps(xy, _mm_movehl_ps(xy, xy)), zw);
    const __m128d distances = _mm_cvtps_pd(_mm_sqrt_ps(dot));
    sums_ = _mm_add_pd(sums_, _mm_mul_pd(_mm_set1_pd(static_cast<double>(weight)), distances));
#else
    const glm::vec3 position = skn.vector(source);
    byId_ += weight * static_cast<double>(glm::distance(position, glm::vec3(o.byId)));
    byDepthFirst_ += weight * static_cast<double>(glm::distance(position, glm::vec3(o.byDepthFirst)));
#endif
  }
  // The means, given the readings under which some record's index named no bone.
  double byId(uint8_t unnamed) const { return mean(unnamed & IndexReadings::kNoId, sum(0)); }
  double byDepthFirst(uint8_t unnamed) const { return mean(unnamed & IndexReadings::kNoDepthFirst, sum(1)); }

 private:
  // A reading that names every record's bone sums every record's weight: one integer sum, exact.
  double mean(bool unnamed, double sum) const { return unnamed ? kNoDistance : weight_ > 0 ? sum / static_cast<double>(weight_) : 0.0; }
#if RIGPORT_SSE2_LANES
  double sum(int lane) const {
    alignas(16) double lanes[2];
    _mm_store_pd(lanes, sums_);
    return lanes[lane];
  }
  __m128d sums_ = _mm_setzero_pd();
#else
  double sum(int reading) const { return reading == 0 ? byId_ : byDepthFirst_; }
  double byId_ = 0.0, byDepthFirst_ = 0.0;
#endif
  uint64_t weight_ = 0;
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

// All that needs every record, from one pass over them in file order (where their sources lie in
// sequence): each record's source loaded once for its slot's bytes and both readings' distances,
// its index looked up once for the choice of reading, and the slots' record counts.
struct RecordPass {
  const SkinRecord* noId = nullptr;  // the first record whose index is no bone id, if any
  uint8_t unnamed = 0;               // IndexReadings::Unnamed bits of any record
  size_t beyond = 0;                 // records of slots beyond the position array (§6: runtime scratch)
  std::vector<uint32_t> bucket;      // bucket[s + 1]: the records of slot s
  SlotSources slots;
  double byId = 0.0, byDepthFirst = 0.0;  // mean distances
};
RecordPass passRecords(const SknData& skn, const IndexReadings& readings, bool hasDepthFirst, size_t slots) {
  RecordPass out;
  out.bucket.assign(slots + 1, 0);
  out.slots.bytes.resize(slots);
  out.slots.state.assign(slots, SlotSources::kNone);
  DistanceSums sums;
  uint8_t unnamedInArray = 0;
  for (const SkinRecord& r : skn.records) {
    const size_t entry = readings.entry(r.boneIndex);
    const uint8_t unnamed = readings.unnamed(entry);
    if ((unnamed & IndexReadings::kNoId) != 0 && out.noId == nullptr) out.noId = &r;
    out.unnamed |= unnamed;
    if (r.vertex >= slots) {
      ++out.beyond;
      continue;
    }
    ++out.bucket[r.vertex + 1];
    const uint8_t* source = skn.section.data() + r.source;
    auto& first = out.slots.bytes[r.vertex];
    uint8_t& state = out.slots.state[r.vertex];
    if (state == SlotSources::kNone) {
      std::memcpy(first.data(), source, kSkinVertexBytes);
      state = SlotSources::kOne;
    } else if (state == SlotSources::kOne && std::memcmp(first.data(), source, kSkinVertexBytes) != 0) {
      state = SlotSources::kMixed;
    }
    unnamedInArray |= unnamed;
    sums.add(skn, source, r.weight, readings.origins(entry));
  }
  out.byId = sums.byId(unnamedInArray);
  out.byDepthFirst = hasDepthFirst ? sums.byDepthFirst(unnamedInArray) : kNoDistance;
  return out;
}

Json distanceJson(double d) { return std::isfinite(d) ? Json(d) : Json("an index names no bone"); }

}  // namespace

SlotSkin buildSkin(const SknData& skn, const BoneIndexMaps& maps, const Skeleton& skeleton,
                   std::vector<glm::vec3>& slotPositions, std::vector<glm::vec3>& slotNormals, Provenance& provenance) {
  const size_t slots = slotPositions.size();
  const std::vector<SkinRecord>& records = skn.records;
  const IndexReadings readings(maps, skeleton.worldBindMatrices());
  RecordPass pass = passRecords(skn, readings, !maps.byDepthFirst.empty(), slots);
  SlotSkin out;
  nlohmann::json& report = out.report;
  // §11 item 6, settled by the vanilla Mario block's public dumps: read as bone ids, all 10 finger
  // chains are skinned on segments 0-2 and never on the tips. So indices are bone ids, as the
  // community tools read them; the depth-first (boneArray) reading is taken only where bone ids are
  // impossible, an index no bone id has, and every index names a bone that way (so never without a
  // depth-first map: there every index is unnamed that way, and noId means there is one).
  const SkinRecord* noId = pass.noId;
  const bool depthFirst = noId != nullptr && (pass.unnamed & IndexReadings::kNoDepthFirst) == 0;
  report["boneIndex"] = depthFirst ? "depthFirst" : "boneId";
  report["reason"] = noId == nullptr ? "every index is a bone id (sluggers.md §11 item 6)"
                     : depthFirst    ? "an index no bone id has; every index is a depth-first (boneArray) position"
                                     : "an index no bone id has, nor a depth-first position; its records are dropped";
  // Where the skinned bind vertices lie against each reading's bones: for a user to judge a block.
  report["meanDistance"] = {{"boneId", distanceJson(pass.byId)}, {"depthFirst", distanceJson(pass.byDepthFirst)}};
  if (depthFirst) {
    provenance.warn("sluggers-skin-bone-index",
                    fmt::format("SK bone index {} (skin record of slot {}) is no bone id of this block; every index read as a "
                                "depth-first boneArray position instead (sluggers.md §11 item 6)",
                                noId->boneIndex, noId->vertex));
  }
  const std::vector<int32_t>& map = depthFirst ? maps.byDepthFirst : maps.byId;
  out.boneOfIndex = map;
  const std::vector<uint32_t> boneOfEntry = readings.bones(map);

  // Bucketed by slot (a counting sort, in file order within a slot), then by bone within each slot;
  // records naming no bone (§6: dropped) sort last in their slot, where the slot's pass stops.
  // Record numbers and bones are sorted, not the records.
  struct Kept {
    uint32_t bone, record;
  };
  std::vector<uint32_t>& bucket = pass.bucket;
  for (size_t s = 0; s < slots; ++s) bucket[s + 1] += bucket[s];
  std::vector<Kept, DefaultInitAllocator<Kept>> kept(bucket[slots]);  // every element written below: no zero fill
  {
    std::vector<uint32_t> next(bucket.begin(), bucket.end() - 1);
    for (uint32_t i = 0; i < records.size(); ++i) {
      const SkinRecord& r = records[i];
      if (r.vertex < slots) kept[next[r.vertex]++] = Kept{boneOfEntry[readings.entry(r.boneIndex)], i};
    }
  }
  for (size_t s = 0; s < slots; ++s) {  // a handful of records a slot: insertion sort, stable
    for (uint32_t i = bucket[s] + 1; i < bucket[s + 1]; ++i) {
      const Kept k = kept[i];
      uint32_t j = i;
      for (; j > bucket[s] && kept[j - 1].bone > k.bone; --j) kept[j] = kept[j - 1];
      kept[j] = k;
    }
  }

  // Per slot: duplicates (vertex, bone) summed (a full 256 is stored 255 + 1); the bind position and
  // normal are the sources' weighted mean (every record of a slot carries the same bind data).
  std::vector<uint32_t>& slotFirst = out.first;
  InfluenceList& slotInfluences = out.influences;
  slotFirst.assign(slots + 1, 0);
  size_t unwritten = 0, off256 = 0, unknownBone = 0;
  int64_t firstOff = -1;
  slotInfluences.reserve(kept.size());
  const SlotSources& sources = pass.slots;
  for (size_t s = 0; s < slots; ++s) {
    slotFirst[s] = static_cast<uint32_t>(slotInfluences.size());
    uint32_t end = bucket[s + 1];
    while (end > bucket[s] && kept[end - 1].bone == kNoBone) --end;
    unknownBone += bucket[s + 1] - end;
    uint32_t total = 0;
    const bool oneSource = sources.state[s] == SlotSources::kOne;
    for (uint32_t k = bucket[s]; k < end; ++k) {
      const uint16_t weight = records[kept[k].record].weight;
      total += weight;
      if (slotFirst[s] < slotInfluences.size() && slotInfluences.back().bone == kept[k].bone) {
        slotInfluences.back().weight += static_cast<float>(weight);
      } else {
        slotInfluences.push_back(Influence{kept[k].bone, static_cast<float>(weight)});
      }
    }
    if (total == 0) {
      ++unwritten;
      continue;
    }
    // One source: the weighted mean is exactly that source (float × integer weights sum exactly
    // in double), so it is taken as it is.
    if (oneSource) {
      slotPositions[s] = skn.vector(sources.bytes[s].data());
      if (s < slotNormals.size()) slotNormals[s] = skn.vector(sources.bytes[s].data() + 6);
    } else {
      glm::dvec3 p(0.0), n(0.0);
      for (uint32_t k = bucket[s]; k < end; ++k) {
        const SkinRecord& r = records[kept[k].record];
        p += glm::dvec3(skn.position(r)) * static_cast<double>(r.weight);
        n += glm::dvec3(skn.normal(r)) * static_cast<double>(r.weight);
      }
      slotPositions[s] = glm::vec3(p / static_cast<double>(total));
      if (s < slotNormals.size()) slotNormals[s] = glm::vec3(n / static_cast<double>(total));
    }
    if (total != kFullWeight) {
      ++off256;
      if (firstOff < 0) firstOff = static_cast<int64_t>(s);
    }
  }
  slotFirst[slots] = static_cast<uint32_t>(slotInfluences.size());
  for (Influence& i : slotInfluences) i.weight /= static_cast<float>(kFullWeight);
  // §6: records naming no bone are dropped.
  if (unknownBone > 0) {
    provenance.warn("sluggers-skin-bone", fmt::format("{} skin records name a bone index the ACT does not have; dropped", unknownBone));
  }
  if (off256 > 0) {
    provenance.warn("sluggers-weight-sum", fmt::format("{} skinned vertices have weights that do not sum to 256/256 (first: slot {}); "
                                                       "read as stored, and a glTF export rescales each such vertex's weights to sum 1",
                                                       off256, firstOff));
  }

  report["records"] = records.size();
  report["slotsBeyondPositions"] = pass.beyond;  // §6: 163 of 325 vanilla models write scratch slots
  report["unwrittenSlots"] = unwritten;          // §6: gap slots left by cache-line exclusivity
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
