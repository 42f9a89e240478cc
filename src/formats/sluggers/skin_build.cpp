#include "formats/sluggers/skin_build.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#endif

namespace rigport::sluggers {
namespace {

using Json = nlohmann::json;

constexpr uint32_t kNoBone = std::numeric_limits<uint32_t>::max();  // a record's index names no bone under the reading taken
constexpr double kNoDistance = std::numeric_limits<double>::infinity();

#if RIGPORT_SSE2_LANES
// The four big-endian s16 in the low 8 bytes of `raw`, byte-swapped, sign-extended and scaled, one a
// lane: exact, as SknData::vector (s16 to float is exact, the scale a power of two).
inline __m128 decodeLanes(__m128i raw, __m128 scale) {
  const __m128i swapped = _mm_or_si128(_mm_slli_epi16(raw, 8), _mm_srli_epi16(raw, 8));
  return _mm_mul_ps(_mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(swapped, swapped), 16)), scale);
}
inline __m128i load8(const uint8_t* p) { return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)); }
inline void store3(glm::vec3& v, __m128 lanes) {
  _mm_storel_pi(reinterpret_cast<__m64*>(&v.x), lanes);
  _mm_store_ss(&v.z, _mm_movehl_ps(lanes, lanes));
}
#endif

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
  // bit the rule (SluggersModel.BuildSkinFollowsTheScalarRules).
  explicit DistanceSums(const SknData& skn) : skn_(skn) {}
  void add(const uint8_t* source, uint16_t weight, const IndexReadings::Origins& o) {
    weight_ += weight;
#if RIGPORT_SSE2_LANES
    // The position's three s16 (and the normal's first, in the unused lane).
    const __m128 position = decodeLanes(load8(source), scale_);
    const __m128 id = _mm_sub_ps(_mm_loadu_ps(&o.byId.x), position), depthFirst = _mm_sub_ps(_mm_loadu_ps(&o.byDepthFirst.x), position);
    const __m128 idSquared = _mm_mul_ps(id, id), depthFirstSquared = _mm_mul_ps(depthFirst, depthFirst);
    // (x x', y y') and (z z', ..): the dot products as glm adds them, (x + y) + z, in lanes 0 and 1.
    const __m128 xy = _mm_unpacklo_ps(idSquared, depthFirstSquared), zw = _mm_unpackhi_ps(idSquared, depthFirstSquared);
    const __m128 dot = _mm_add_ps(_mm_add_ps(xy, _mm_movehl_ps(xy, xy)), zw);
    const __m128d distances = _mm_cvtps_pd(_mm_sqrt_ps(dot));
    sums_ = _mm_add_pd(sums_, _mm_mul_pd(_mm_set1_pd(static_cast<double>(weight)), distances));
#else
    const glm::vec3 position = skn_.vector(source);
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
  const SknData& skn_;
#if RIGPORT_SSE2_LANES
  const __m128 scale_ = _mm_set1_ps(skn_.scale);
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

// What the passes keep of one slot of the position array, together: where an SKAcc entry's records
// jump from slot to slot (70 % of the benchmark block's), each touches one cache line of them.
// Where its region of influences starts is kept apart, in the array that becomes SlotSkin::first:
// not a second array of that size while the skin is built.
struct Slot {
  // Past every source offset: a section is at most 4 GiB and a source 12 bytes.
  static constexpr uint32_t kNoSource = std::numeric_limits<uint32_t>::max(), kMixedSources = kNoSource - 1;
  // Its bind data: the section offset of its first record's 12 source bytes while every record of
  // the slot has the same bytes (§6: the usual case), kMixedSources once one differs. An offset,
  // not a copy of the bytes: an entry's sources lie in slot order in the section. Records the bone
  // check later drops are looked at too: a difference there only sends the slot through the exact
  // weighted mean.
  uint32_t source = kNoSource;
  uint32_t influences = 0;  // in its region so far
  uint32_t weight = 0;      // its kept records' weights, summed

  bool oneSource() const { return source < kMixedSources; }
  // Its bind position and, given a place for it, normal (oneSource()).
  void decode(const SknData& skn, glm::vec3& position, glm::vec3* normal) const {
    const uint8_t* b = skn.section.data() + source;
#if RIGPORT_SSE2_LANES
    // The normal from bytes 4-11 moved down 2: nothing past the source's 12 bytes is read.
    const __m128 scale = _mm_set1_ps(skn.scale);
    store3(position, decodeLanes(load8(b), scale));
    if (normal != nullptr) store3(*normal, decodeLanes(_mm_srli_si128(load8(b + 4), 2), scale));
#else
    position = skn.vector(b);
    if (normal != nullptr) *normal = skn.vector(b + 6);
#endif
  }
};

// Gives the SKN section's pages back (ReadContext::releaseBytes, when set) each time the passes
// have gone through kSknReleaseVertices more: each pass reads the records from the section's bytes,
// and a given-back page of a mapped file is read in again when touched, so what the skin holds of
// the section at once is the pages of the last few thousand vertices', not all it touched.
class SectionPages {
 public:
  SectionPages(std::span<const uint8_t> section, const ReleaseBytes& releaseBytes)
      : section_(section), releaseBytes_(releaseBytes) {}
  void passed(size_t vertices) {
    since_ += vertices;
    if (since_ < kSknReleaseVertices || !releaseBytes_) return;
    releaseBytes_(section_);
    since_ = 0;
  }

 private:
  std::span<const uint8_t> section_;
  const ReleaseBytes& releaseBytes_;
  size_t since_ = 0;
};

// The bone indices the records name, read from the entries (an entry's records name its bones,
// and each kept entry has a record): so the reading is chosen before the records are gone through.
struct IndexUse {
  std::optional<SkinRecord> noId;  // the first record whose index is no bone id, if any (its slot and index)
  uint8_t unnamed = 0;             // IndexReadings::Unnamed bits of any record
};
IndexUse useOfIndices(const SknData& skn, const IndexReadings& readings) {
  IndexUse out;
  for (const SknEntry& e : skn.entries) {
    for (const uint16_t index : {e.bone0, e.kind == SkinEntryKind::SK2 ? e.bone1 : e.bone0}) {
      const uint8_t unnamed = readings.unnamed(readings.entry(index));
      out.unnamed |= unnamed;
      if ((unnamed & IndexReadings::kNoId) == 0 || out.noId) continue;
      // The entry's first record (an SK2 vertex's two come in bone order).
      uint32_t vertex = e.first;
      if (e.kind == SkinEntryKind::SKAcc) vertex += (uint32_t(skn.section[e.indices]) << 8) | skn.section[e.indices + 1];
      out.noId = SkinRecord{vertex, index, 0, 0};
    }
  }
  return out;
}

// All else that needs every record, from one pass over them in file order (where their sources lie
// in sequence), so the section's pages are read in once while the skin is built: each record's
// source loaded once for its slot's bind data and both readings' distances, its bone looked up
// once, its influence added.
struct RecordPass {
  size_t beyond = 0;      // records of slots beyond the position array (§6: runtime scratch)
  size_t mixedSlots = 0;  // slots whose records' bind data differ
  size_t unknownBone = 0;  // records whose index names no bone under the reading taken
  double byId = 0.0, byDepthFirst = 0.0;  // mean distances
};

Json distanceJson(double d) { return std::isfinite(d) ? Json(d) : Json("an index names no bone"); }

}  // namespace

SlotSkin buildSkin(const SknData& skn, const BoneIndexMaps& maps, const Skeleton& skeleton, std::vector<glm::vec3>& slotPositions,
                   std::vector<glm::vec3>& slotNormals, Provenance& provenance, const ReleaseBytes& releaseBytes) {
  const size_t slots = slotPositions.size();
  SectionPages pages(skn.section, releaseBytes);
  const auto entryDone = [&pages](const SknEntry& e) { pages.passed(e.count); };
  const IndexReadings readings(maps, skeleton.worldBindMatrices());
  const IndexUse use = useOfIndices(skn, readings);
  SlotSkin out;
  nlohmann::json& report = out.report;
  // §11 item 6, settled by the vanilla Mario block's public dumps: read as bone ids, all 10 finger
  // chains are skinned on segments 0-2 and never on the tips. So indices are bone ids, as the
  // community tools read them; the depth-first (boneArray) reading is taken only where bone ids are
  // impossible, an index no bone id has, and every index names a bone that way (so never without a
  // depth-first map: there every index is unnamed that way, and noId means there is one).
  const std::optional<SkinRecord>& noId = use.noId;
  const bool depthFirst = noId.has_value() && (use.unnamed & IndexReadings::kNoDepthFirst) == 0;
  report["boneIndex"] = depthFirst ? "depthFirst" : "boneId";
  report["reason"] = !noId        ? "every index is a bone id (sluggers.md §11 item 6)"
                     : depthFirst ? "an index no bone id has; every index is a depth-first (boneArray) position"
                                  : "an index no bone id has, nor a depth-first position; its records are dropped";
  if (depthFirst) {
    provenance.warn("sluggers-skin-bone-index",
                    fmt::format("SK bone index {} (skin record of slot {}) is no bone id of this block; every index read as a "
                                "depth-first boneArray position instead (sluggers.md §11 item 6)",
                                noId->boneIndex, noId->vertex));
  }
  const std::vector<int32_t>& map = depthFirst ? maps.byDepthFirst : maps.byId;
  out.boneOfIndex = map;
  const std::vector<uint32_t> boneOfEntry = readings.bones(map);

  // Each slot's records, counted (one more place, for the end), from the vertex indices alone; then
  // where its region of `influences` starts (where a counting sort would put its records), in the
  // array that becomes SlotSkin::first.
  std::vector<uint32_t>& slotFirst = out.first;
  slotFirst.resize(slots + 1);
  skn.forEachRecord(
      [&](const SkinRecord& r) {
        if (r.vertex < slots) ++slotFirst[r.vertex];
      },
      entryDone);
  uint32_t regions = 0;
  for (size_t s = 0; s < slots; ++s) regions += std::exchange(slotFirst[s], regions);
  InfluenceList& influences = out.influences;
  influences.resize(regions);  // cut to the influences made, below

  // Per slot: its influences by bone, duplicates (vertex, bone) summed (a full 256 is stored
  // 255 + 1), each bone's weights added in file order, kept in bone order by insertion in its
  // region as the records come in file order (a handful a slot); then the regions close up.
  // Records naming no bone are dropped (§6). Weights are divided by 256 as they come: a power of
  // two, so every sum rounds as the sum of the stored weights would. A slot's bind data are its
  // first record's source's once a kept record gives it weight (a slot none does keeps the GPL's);
  // a slot whose records' sources differ takes their weighted mean, below.
  std::vector<Slot> slot(slots);
  RecordPass pass;
  DistanceSums sums(skn);
  uint8_t unnamedInArray = 0;
  const uint8_t* const section = skn.section.data();
  skn.forEachRecord(
      [&](const SkinRecord& r) {
        if (r.vertex >= slots) {
          ++pass.beyond;
          return;
        }
        const size_t entry = readings.entry(r.boneIndex);
        Slot& to = slot[r.vertex];
        const uint8_t* source = section + r.source;
        if (to.source == Slot::kNoSource) {
          to.source = r.source;
        } else if (to.source != Slot::kMixedSources && to.source != r.source &&
                   std::memcmp(section + to.source, source, kSkinVertexBytes) != 0) {
          to.source = Slot::kMixedSources;
          ++pass.mixedSlots;
        }
        unnamedInArray |= readings.unnamed(entry);
        sums.add(source, r.weight, readings.origins(entry));
        const uint32_t bone = boneOfEntry[entry];
        if (bone == kNoBone) {
          ++pass.unknownBone;
          return;
        }
        if (to.weight == 0 && r.weight != 0 && to.oneSource()) {
          to.decode(skn, slotPositions[r.vertex], r.vertex < slotNormals.size() ? &slotNormals[r.vertex] : nullptr);
        }
        to.weight += r.weight;
        Influence* const first = influences.data() + slotFirst[r.vertex];
        uint32_t at = to.influences;
        while (at > 0 && first[at - 1].bone > bone) --at;
        const float weight = static_cast<float>(r.weight) / static_cast<float>(kFullWeight);
        if (at > 0 && first[at - 1].bone == bone) {
          first[at - 1].weight += weight;
        } else {
          std::copy_backward(first + at, first + to.influences, first + to.influences + 1);
          first[at] = Influence{bone, weight};
          ++to.influences;
        }
      },
      entryDone);
  pass.byId = sums.byId(unnamedInArray);
  pass.byDepthFirst = !maps.byDepthFirst.empty() ? sums.byDepthFirst(unnamedInArray) : kNoDistance;
  // Where the skinned bind vertices lie against each reading's bones: for a user to judge a block.
  report["meanDistance"] = {{"boneId", distanceJson(pass.byId)}, {"depthFirst", distanceJson(pass.byDepthFirst)}};

  // The weighted means (float × integer weights sum exactly in double, so in any order).
  std::vector<std::array<glm::dvec3, 2>> mixedSums(pass.mixedSlots > 0 ? slots : 0, {glm::dvec3(0.0), glm::dvec3(0.0)});
  if (pass.mixedSlots > 0) {
    skn.forEachRecord(
        [&](const SkinRecord& r) {
          if (r.vertex >= slots || slot[r.vertex].source != Slot::kMixedSources || boneOfEntry[readings.entry(r.boneIndex)] == kNoBone) {
            return;
          }
          mixedSums[r.vertex][0] += glm::dvec3(skn.position(r)) * static_cast<double>(r.weight);
          mixedSums[r.vertex][1] += glm::dvec3(skn.normal(r)) * static_cast<double>(r.weight);
        },
        entryDone);
  }

  // The regions close up (they touch already where no record was merged or dropped): each slot's
  // first influence is written over its region's start, which is never before it.
  uint32_t written = 0;
  size_t unwritten = 0, off256 = 0;
  int64_t firstOff = -1;
  for (size_t s = 0; s < slots; ++s) {
    const Slot& from = slot[s];
    const uint32_t region = std::exchange(slotFirst[s], written);
    if (written != region) std::copy_n(influences.begin() + region, from.influences, influences.begin() + written);
    written += from.influences;
    if (from.weight == 0) {
      ++unwritten;
      continue;
    }
    if (!from.oneSource()) {
      slotPositions[s] = glm::vec3(mixedSums[s][0] / static_cast<double>(from.weight));
      if (s < slotNormals.size()) slotNormals[s] = glm::vec3(mixedSums[s][1] / static_cast<double>(from.weight));
    }
    if (from.weight != kFullWeight) {
      ++off256;
      if (firstOff < 0) firstOff = static_cast<int64_t>(s);
    }
  }
  slotFirst[slots] = written;
  influences.resize(written);
  if (pass.unknownBone > 0) {
    provenance.warn("sluggers-skin-bone", fmt::format("{} skin records name a bone index the ACT does not have; dropped", pass.unknownBone));
  }
  if (off256 > 0) {
    provenance.warn("sluggers-weight-sum", fmt::format("{} skinned vertices have weights that do not sum to 256/256 (first: slot {}); "
                                                       "read as stored, and a glTF export rescales each such vertex's weights to sum 1",
                                                       off256, firstOff));
  }

  report["records"] = skn.recordCount;
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
