// KeyframeAnim 0x70001 (rw4_arena.md §5; offsets in arena_layout.hpp, keyframeanim).
#include "formats/rw4/keyframe_anim.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/key_sample.hpp"
#include "formats/rw4/spore_mesh_layout.hpp"

namespace rigport::rw4 {
namespace {

using namespace keyframeanim;

// A header pointer (file-absolute on PC, object-relative elsewhere) → offset in the object.
Result<size_t> pointerAt(const Arena& arena, const ByteReader& obj, size_t field, uint32_t value, const char* name) {
  uint64_t rel = value;
  if (arena.absoluteAnimationPointers()) {
    if (value < obj.fileOffsetOfStart()) {
      return obj.errorAt(field, ErrorCode::BadValue, fmt::format("pointer 0x{:X} lies before the object", value), name);
    }
    rel = value - obj.fileOffsetOfStart();
  }
  if (rel > obj.size()) {
    return obj.errorAt(field, ErrorCode::BadValue, fmt::format("pointer 0x{:X} lies past the {}-byte object", value, obj.size()), name);
  }
  return static_cast<size_t>(rel);
}

size_t poseBytes(uint32_t components) {
  switch (components) {
    case kLocRotScale: return 16 + 12 + 12 + 4;
    case kLocRot: return 16 + 12 + 4;
    case kBlendFactor: return kBlendFactorSize;
    default: return 0;
  }
}

struct Channel {
  uint32_t id = 0;
  uint32_t pos = 0, poseSize = 0, components = 0;
};

// One channel's keys from [begin, end) of the object into a track or a scalar channel.
Status readKeys(ByteReader keys, const Channel& c, float length, bool last, Animation& anim, size_t* dropped) {
  BoneTrack track;
  track.target.nameHash = c.id;
  ScalarChannel scalar;
  scalar.name = fmt::format("0x{:08X}", c.id);
  scalar.target = "blend shape weight";
  float previous = -INFINITY;
  while (keys.remaining() >= c.poseSize) {
    RP_ASSIGN(ByteReader pose, keys.sub(c.poseSize, "key"));
    RP_CHECK(pose.seek(c.poseSize - 4, "time"));
    RP_ASSIGN(const float time, pose.f32("time"));
    RP_CHECK(pose.seek(0, "key"));
    if (last && !(time >= previous)) break;  // past the last key: padding or the next object's bytes
    if (!(time > previous) || !std::isfinite(time)) {
      ++*dropped;
      continue;
    }
    previous = time;
    if (c.components == kBlendFactor) {
      scalar.keys.times.push_back(time);
      RP_ASSIGN(scalar.keys.values.emplace_back(), pose.f32("factor"));
    } else {
      float q[4], t[3];
      for (float& x : q) { RP_ASSIGN(x, pose.f32("rotation")); }
      for (float& x : t) { RP_ASSIGN(x, pose.f32("location")); }
      track.rotation.times.push_back(time);
      track.rotation.values.push_back(glm::quat(q[3], q[0], q[1], q[2]));
      track.translation.times.push_back(time);
      track.translation.values.emplace_back(t[0], t[1], t[2]);
      if (c.components == kLocRotScale) {
        float s[3];
        for (float& x : s) { RP_ASSIGN(x, pose.f32("scale")); }
        track.scale.times.push_back(time);
        track.scale.values.emplace_back(s[0], s[1], s[2]);
      }
    }
    if (last && time >= length) break;  // §5: the key that reaches the length ends the last channel
  }
  if (c.components == kBlendFactor) {
    anim.scalars.push_back(std::move(scalar));
  } else {
    anim.tracks.push_back(std::move(track));
  }
  return Ok{};
}

// The blend-shape mesh a clip's BlendFactor channels key: the one whose BlendShape id is the clip's
// skeleton id, else the one whose shapes include every channel id.
const SporeMorphMesh* morphTarget(const std::vector<SporeMorphMesh>& morphs, uint32_t skeletonId, const std::vector<uint32_t>& ids) {
  for (const SporeMorphMesh& m : morphs)
    if (m.blendShapeId == skeletonId) return &m;
  for (const SporeMorphMesh& m : morphs) {
    const bool all = std::all_of(ids.begin(), ids.end(), [&](uint32_t id) { return std::find(m.shapeIds.begin(), m.shapeIds.end(), id) != m.shapeIds.end(); });
    if (all && !m.shapeIds.empty()) return &m;
  }
  return nullptr;
}

// The BlendFactor scalar channels (ids[i] names anim.scalars[first + i]) as one morph weight track.
void blendFactorsToWeights(Animation& anim, size_t first, const std::vector<uint32_t>& ids, uint32_t skeletonId,
                           const std::vector<SporeMorphMesh>& morphs, uint32_t row, Provenance& prov) {
  const SporeMorphMesh* mesh = morphTarget(morphs, skeletonId, ids);
  if (mesh == nullptr) {
    prov.warn("rw4-blend-factor", fmt::format("KeyframeAnim (row {}): {} BlendFactor channel(s) match no blend-shape mesh (skeleton id "
                                              "0x{:08X}); kept as scalar channels",
                                              row, ids.size(), skeletonId));
    return;
  }
  std::vector<const Keys<float>*> byShape(mesh->shapeIds.size(), nullptr);
  std::set<float> times;
  size_t unmatched = 0;
  // One channel a shape: channel i keys shape i, as the game plays them (the add-on: "Spore only seems
  // to care about the order"); otherwise each channel keys the shape of its id.
  const bool byOrder = ids.size() == mesh->shapeIds.size();
  if (byOrder && ids != mesh->shapeIds) {
    prov.warn("rw4-blend-factor", fmt::format("KeyframeAnim (row {}): its BlendFactor channel ids are not mesh '{}''s shape ids in "
                                              "order; channel i keys shape i, as Spore plays them",
                                              row, mesh->mesh));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    const auto at = byOrder ? mesh->shapeIds.begin() + static_cast<std::ptrdiff_t>(i) : std::find(mesh->shapeIds.begin(), mesh->shapeIds.end(), ids[i]);
    if (at == mesh->shapeIds.end() || byShape[static_cast<size_t>(at - mesh->shapeIds.begin())] != nullptr) {
      ++unmatched;
      continue;
    }
    const Keys<float>& keys = anim.scalars[first + i].keys;
    byShape[static_cast<size_t>(at - mesh->shapeIds.begin())] = &keys;
    times.insert(keys.times.begin(), keys.times.end());
  }
  if (unmatched > 0) {
    prov.warn("rw4-blend-factor", fmt::format("KeyframeAnim (row {}): {} BlendFactor channel(s) name no shape of mesh '{}' (or one "
                                              "named twice); dropped",
                                              row, unmatched, mesh->mesh));
  }
  MorphWeightTrack track;
  track.mesh = mesh->mesh;
  track.targetCount = static_cast<uint32_t>(mesh->shapeIds.size());
  track.times.assign(times.begin(), times.end());
  track.weights.reserve(track.times.size() * track.targetCount);
  for (float t : track.times)
    for (const Keys<float>* keys : byShape) track.weights.push_back(keys != nullptr ? sampleKeys(*keys, t, 0.0f) : 0.0f);
  anim.scalars.erase(anim.scalars.begin() + static_cast<std::ptrdiff_t>(first), anim.scalars.begin() + static_cast<std::ptrdiff_t>(first + ids.size()));
  if (!track.times.empty()) anim.morphWeights.push_back(std::move(track));
}

}  // namespace

Result<Animation> readKeyframeAnim(const Arena& arena, ByteReader obj, uint32_t row, const std::vector<SporeMorphMesh>& morphs,
                                   Provenance& prov) {
  Animation anim;
  anim.name = fmt::format("KeyframeAnim_{}", row);
  RP_ASSIGN(const uint32_t pNames, obj.u32("pChannelNames"));
  RP_ASSIGN(const uint32_t count, obj.u32("channelCount"));
  RP_ASSIGN(const uint32_t skeletonId, obj.u32("skeletonId"));
  RP_CHECK(obj.seek(kPaddingEnd, "pPaddingEnd"));
  RP_ASSIGN(const uint32_t pEnd, obj.u32("pPaddingEnd"));
  RP_CHECK(obj.seek(kLength, "length"));
  RP_ASSIGN(anim.duration, obj.f32("length"));
  RP_CHECK(obj.seek(kChannelInfo, "pChannelInfo"));
  RP_ASSIGN(const uint32_t pInfo, obj.u32("pChannelInfo"));
  if (!std::isfinite(anim.duration) || anim.duration < 0.0f) {
    return obj.errorAt(kLength, ErrorCode::BadValue, fmt::format("length {}", anim.duration), "length");
  }
  RP_ASSIGN(const size_t n, obj.count(count, 4 + kChannelInfoSize, "channelCount"));
  RP_ASSIGN(const size_t namesAt, pointerAt(arena, obj, kChannelNames, pNames, "pChannelNames"));
  RP_ASSIGN(const size_t infoAt, pointerAt(arena, obj, kChannelInfo, pInfo, "pChannelInfo"));
  RP_ASSIGN(const size_t end, pointerAt(arena, obj, kPaddingEnd, pEnd, "pPaddingEnd"));
  RP_ASSIGN(ByteReader ids, obj.window(namesAt, std::min(obj.size() - namesAt, n * 4), "channelNames"));
  RP_ASSIGN(ByteReader info, obj.window(infoAt, std::min(obj.size() - infoAt, n * kChannelInfoSize), "channelInfo"));
  std::vector<Channel> channels(n);
  for (size_t i = 0; i < n; ++i) {
    Channel& c = channels[i];
    RP_ASSIGN(c.id, ids.u32(Field("channelId", static_cast<int64_t>(i))));
    const size_t at = info.position();
    RP_ASSIGN(c.pos, info.u32(Field("pos", static_cast<int64_t>(i))));
    RP_ASSIGN(c.poseSize, info.u32(Field("poseSize", static_cast<int64_t>(i))));
    RP_ASSIGN(c.components, info.u32(Field("components", static_cast<int64_t>(i))));
    if (poseBytes(c.components) == 0) {
      return info.errorAt(at + 8, ErrorCode::Unsupported, fmt::format("key kind 0x{:X} (LocRotScale 0x601, LocRot 0x101, BlendFactor 0x100 are read)", c.components),
                          Field("components", static_cast<int64_t>(i)));
    }
    if (c.poseSize < poseBytes(c.components) || c.pos > obj.size()) {
      return info.errorAt(at, ErrorCode::BadValue,
                          fmt::format("{}-byte keys of kind 0x{:X} at +0x{:X} in a {}-byte object", c.poseSize, c.components, c.pos, obj.size()),
                          Field("pos", static_cast<int64_t>(i)));
    }
  }
  size_t dropped = 0;
  const size_t firstScalar = anim.scalars.size();
  std::vector<uint32_t> blendIds;  // the BlendFactor channels' ids, in the order their scalar channels follow
  for (size_t i = 0; i < n; ++i) {
    const Channel& c = channels[i];
    if (c.components == kBlendFactor) blendIds.push_back(c.id);
    const bool last = i + 1 == n;
    const size_t stop = last ? std::clamp<size_t>(end, c.pos, obj.size()) : std::max<size_t>(c.pos, std::min<size_t>(channels[i + 1].pos, obj.size()));
    RP_ASSIGN(ByteReader keys, obj.window(c.pos, stop - c.pos, Field("channel", static_cast<int64_t>(i))));
    RP_CHECK(readKeys(keys, c, anim.duration, last, anim, &dropped));
  }
  if (dropped > 0) {
    prov.warn("rw4-key-time", fmt::format("KeyframeAnim (row {}): {} key(s) not later than the key before; dropped", row, dropped));
  }
  if (!blendIds.empty()) blendFactorsToWeights(anim, firstScalar, blendIds, skeletonId, morphs, row, prov);
  return anim;
}

std::map<uint32_t, uint32_t> readAnimationIds(const Arena& arena, const ByteReader& root, Provenance& prov) {
  std::map<uint32_t, uint32_t> ids;
  for (uint32_t row = 0; row < arena.dictionary.size(); ++row) {
    if (arena.dictionary[row].typeId != spore::kAnimations) continue;
    std::map<uint32_t, uint32_t> found;
    const Status read = [&]() -> Status {
      RP_ASSIGN(ByteReader obj, objectReader(arena, root, row, "Animations"));
      RP_CHECK(obj.skip(4, "self"));
      RP_ASSIGN(const uint32_t count, obj.u32("count"));
      RP_ASSIGN(const size_t n, obj.count(count, spore::animations::kEntrySize, "count"));
      for (size_t i = 0; i < n; ++i) {
        RP_ASSIGN(const uint32_t id, obj.u32(Field("animationId", static_cast<int64_t>(i))));
        const size_t at = obj.position();
        RP_ASSIGN(const uint32_t anim, obj.u32(Field("keyframeAnim", static_cast<int64_t>(i))));
        RP_CHECK(expectType(arena, obj, at, anim, kKeyframeAnim, "keyframeAnim"));
        found.emplace(anim, id);
      }
      return Ok{};
    }();
    if (!read) {
      prov.warn("rw4-animations", fmt::format("Animations (row {}) is not read: {}; its clips keep their row names", row,
                                              read.error().describe()));
      continue;
    }
    ids.merge(found);
  }
  return ids;
}

void writeKeyframeAnim(ByteWriter& w, const Animation& anim, const Skeleton& skeleton, const std::vector<uint32_t>& hashes,
                       uint32_t skeletonId, bool absolute) {
  const size_t start = w.size();
  std::vector<const BoneTrack*> tracks;
  for (const BoneTrack& t : anim.tracks) {
    if (t.bone >= 0 && static_cast<size_t>(t.bone) < skeleton.bones.size()) tracks.push_back(&t);
  }
  const size_t n = tracks.size();
  const size_t names = kHeaderSize, info = names + 4 * n, data = info + kChannelInfoSize * n;
  std::vector<std::vector<float>> times(n);
  size_t keys = 0;
  for (size_t i = 0; i < n; ++i) {
    std::set<float> all;
    for (float t : tracks[i]->translation.times) all.insert(t);
    for (float t : tracks[i]->rotation.times) all.insert(t);
    for (float t : tracks[i]->scale.times) all.insert(t);
    if (all.empty()) all.insert(0.0f);
    times[i].assign(all.begin(), all.end());
    keys += times[i].size();
  }
  const size_t end = data + keys * kLocRotScaleSize;
  auto ptr = [&](size_t rel) { return static_cast<uint32_t>(absolute ? start + rel : rel); };
  w.u32(ptr(names));
  w.u32(static_cast<uint32_t>(n));
  w.u32(skeletonId);
  w.u32(0);
  w.u32(ptr(data));
  w.u32(ptr(end));
  w.u32(static_cast<uint32_t>(n));
  w.u32(0);
  w.f32(anim.duration);
  w.u32(12);  // as SporeModder-FX writes it; meaning unknown
  w.u32(0);   // flags
  w.u32(ptr(info));
  for (const BoneTrack* t : tracks) w.u32(hashes[static_cast<size_t>(t->bone)]);
  size_t pos = data;
  for (size_t i = 0; i < n; ++i) {
    w.u32(static_cast<uint32_t>(pos));  // object-relative on every platform (§5)
    w.u32(kLocRotScaleSize);
    w.u32(kLocRotScale);
    pos += times[i].size() * kLocRotScaleSize;
  }
  for (size_t i = 0; i < n; ++i) {
    const BoneTrack& t = *tracks[i];
    const Bone& bone = skeleton.bones[static_cast<size_t>(t.bone)];
    for (float time : times[i]) {
      const glm::quat q = sampleKeys(t.rotation, time, bone.rotation);
      const glm::vec3 l = sampleKeys(t.translation, time, bone.translation);
      const glm::vec3 s = sampleKeys(t.scale, time, bone.scale);
      for (float x : {q.x, q.y, q.z, q.w, l.x, l.y, l.z, s.x, s.y, s.z, 0.0f, time}) w.f32(x);
    }
  }
}

void writeBlendFactorAnim(ByteWriter& w, const MorphWeightTrack& track, float duration, const std::vector<uint32_t>& shapeIds,
                          uint32_t blendShapeId, bool absolute) {
  const size_t start = w.size();
  const size_t n = shapeIds.size(), keys = track.times.size();
  const size_t names = kHeaderSize, info = names + 4 * n, data = info + kChannelInfoSize * n;
  const size_t end = data + n * keys * kBlendFactorSize;
  auto ptr = [&](size_t rel) { return static_cast<uint32_t>(absolute ? start + rel : rel); };
  w.u32(ptr(names));
  w.u32(static_cast<uint32_t>(n));
  w.u32(blendShapeId);
  w.u32(0);
  w.u32(ptr(data));
  w.u32(ptr(end));
  w.u32(static_cast<uint32_t>(n));
  w.u32(0);
  w.f32(duration);
  w.u32(12);  // as SporeModder-FX and the add-on write it; meaning unknown
  w.u32(3);   // flags, as the add-on writes every clip
  w.u32(ptr(info));
  for (uint32_t id : shapeIds) w.u32(id);
  for (size_t i = 0; i < n; ++i) {
    w.u32(static_cast<uint32_t>(data + i * keys * kBlendFactorSize));  // object-relative on every platform (§5)
    w.u32(kBlendFactorSize);
    w.u32(kBlendFactor);
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < keys; ++k) {
      w.f32(track.weights[k * track.targetCount + i]);
      w.f32(track.times[k]);
    }
  }
}

}  // namespace rigport::rw4
