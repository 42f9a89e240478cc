// CLIP bytes -> ClipFile (sims3_clip.md §2). Every offset the file gives is checked against the
// bytes before it is followed; every count against the bytes left before anything is allocated.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "formats/sims3/clip_file.hpp"
#include "formats/sims3/clip_layout.hpp"

namespace rigport::sims3 {
namespace {

using namespace clip;

// A "rel" field (§2.1): the target is the field's own position plus the value; 0 means absent.
Result<size_t> relTarget(const ByteReader& r, size_t fieldPos, uint32_t rel, Field f) {
  const uint64_t target = static_cast<uint64_t>(fieldPos) + rel;
  if (target >= r.size()) {
    return r.errorAt(fieldPos, ErrorCode::BadValue,
                     fmt::format("offset 0x{:X} + 0x{:X} points past the end of the {}-byte clip", fieldPos, rel, r.size()), f);
  }
  return static_cast<size_t>(target);
}

// Key record size of a channel type (§2.4); the indexed type's comes from the next curve (R6).
uint32_t fixedStride(uint8_t type) {
  switch (type) {
    case kF3HighPrecisionNormalized: return kStrideTranslation;
    case kF4SuperHighPrecisionQuaternion: return kStrideQuaternion;
    case kF1Normalized: return kStrideScalar;
    default: return 0;
  }
}

struct CurveInfo {
  uint32_t frameDataOffset = 0;
  ClipCurve curve;
};

Status parseCurves(ByteReader& blob, uint32_t curveCount, uint32_t curveInfoOffset, ClipFile& c, Provenance& warn, ClipFile* storage) {
  RP_ASSIGN(ByteReader table, blob.window(curveInfoOffset, blob.size() - std::min<size_t>(curveInfoOffset, blob.size()), "curveInfos"));
  RP_ASSIGN(const size_t n, table.count(curveCount, kCurveInfoSize, "curveCount"));
  std::vector<CurveInfo> infos(n);
  // count() found room for all n records, so no read below can fail: no per-curve scope (a string
  // appended and cut per curve) is kept for errors that cannot happen.
  for (size_t i = 0; i < n; ++i) {
    CurveInfo& info = infos[i];
    RP_ASSIGN(info.frameDataOffset, table.u32("frameDataOffset"));
    RP_ASSIGN(info.curve.trackKey, table.u32("trackKey"));
    RP_ASSIGN(info.curve.offset, table.f32("offset"));
    RP_ASSIGN(info.curve.scale, table.f32("scale"));
    RP_ASSIGN(info.curve.frameCount, table.u16("frameCount"));
    RP_ASSIGN(info.curve.channelType, table.u8("channelType"));
    RP_ASSIGN(info.curve.subTarget, table.u8("subTarget"));
  }
  // Where each curve's keys end: the next curve's keys, or the blob's end (R6: the indexed stride).
  std::vector<uint32_t> starts;
  starts.reserve(n);
  for (const CurveInfo& info : infos) starts.push_back(info.frameDataOffset);
  std::sort(starts.begin(), starts.end());
  c.curves.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    CurveInfo& info = infos[i];
    ClipCurve& curve = info.curve;
    const Field field("curve", static_cast<int64_t>(i));
    if (constantChannel(curve.channelType)) {
      if (curve.frameCount != 0) {
        warn.warn("constant-channel-keys", fmt::format("curve {} (track 0x{:08X}): constant channel type 0x{:02X} with {} keys; "
                                                       "keys ignored", i, curve.trackKey, curve.channelType, curve.frameCount));
        curve.frameCount = 0;
      }
      c.curves.push_back(std::move(curve));
      continue;
    }
    auto next = std::upper_bound(starts.begin(), starts.end(), info.frameDataOffset);
    const uint64_t end = next == starts.end() ? blob.size() : *next;
    const uint64_t span = end > info.frameDataOffset ? end - info.frameDataOffset : 0;
    uint32_t stride = fixedStride(curve.channelType);
    if (curve.channelType == kF3Indexed) {
      stride = curve.frameCount > 0 && span == uint64_t{curve.frameCount} * kStrideF3Indexed4 ? kStrideF3Indexed4 : kStrideF3Indexed;
    }
    if (stride == 0) {
      warn.warn("unknown-channel", fmt::format("curve {} (track 0x{:08X}): channel type 0x{:02X} (sub-target {}) is not a TS3 type; "
                                               "its {} keys are skipped", i, curve.trackKey, curve.channelType, curve.subTarget,
                                               curve.frameCount));
      curve.frameCount = 0;
      c.curves.push_back(std::move(curve));
      continue;
    }
    if (info.frameDataOffset > blob.size()) {
      return blob.errorAt(curveInfoOffset + i * kCurveInfoSize, ErrorCode::BadValue,
                          fmt::format("frameDataOffset 0x{:X} is past the {}-byte clip blob", info.frameDataOffset, blob.size()),
                          Field("curve", static_cast<int64_t>(i)));
    }
    // Keys that fit and that the budget allows (every real clip's) are taken from the blob as they
    // are; the sub-reader, whose path costs a string per curve, reads only the others, for its errors.
    const uint64_t keyBytes = uint64_t{curve.frameCount} * stride;
    if (storage != nullptr && i < storage->curves.size()) curve.keyBytes = std::move(storage->curves[i].keyBytes);  // assigned below
    if (keyBytes <= blob.size() - info.frameDataOffset && blob.charge(keyBytes, field).ok()) {
      const uint8_t* keys = blob.data().data() + info.frameDataOffset;
      curve.keyBytes.assign(keys, keys + keyBytes);
    } else {
      RP_ASSIGN(ByteReader keys, blob.window(info.frameDataOffset, blob.size() - info.frameDataOffset, field));
      RP_ASSIGN(const size_t count, keys.count(curve.frameCount, stride, "frameCount"));
      RP_ASSIGN(const auto bytes, keys.bytes(count * stride, "keys"));
      curve.keyBytes.assign(bytes.begin(), bytes.end());
    }
    curve.stride = stride;
    c.curves.push_back(std::move(curve));
  }
  return Ok{};
}

Status parseBlob(ByteReader& blob, ClipFile& c, Provenance& warn, ClipFile* storage) {
  RP_ASSIGN(const auto magic, blob.bytes(8, "magic"));
  if (std::memcmp(magic.data(), kBlobMagic, 8) != 0) {
    return blob.errorAt(0, ErrorCode::BadValue, "the clip blob does not start with \"_pilC3S_\"", "magic");
  }
  RP_ASSIGN(c.version, blob.u32("version"));
  if (c.version != kBlobVersion) {
    warn.warn("clip-version", fmt::format("_S3Clip_ version {} (every known clip has 2); read as version 2", c.version));
  }
  RP_ASSIGN(c.flags, blob.u32("flags"));
  RP_ASSIGN(c.frameDuration, blob.f32("frameDuration"));
  RP_ASSIGN(c.ticks, blob.u16("maxFrameCount"));
  RP_ASSIGN(c.unknown16, blob.u16("unknown"));
  RP_ASSIGN(const uint32_t curveCount, blob.u32("curveCount"));
  RP_ASSIGN(const uint32_t paletteCount, blob.u32("indexedFloatCount"));
  RP_ASSIGN(const uint32_t curveInfoOffset, blob.u32("curveInfoOffset"));
  RP_ASSIGN(const uint32_t frameDataOffset, blob.u32("frameDataOffset"));
  RP_ASSIGN(const uint32_t nameOffset, blob.u32("animNameOffset"));
  RP_ASSIGN(const uint32_t sourceOffset, blob.u32("srcNameOffset"));
  auto stringAt = [&](uint32_t at, Field f) -> Result<std::string> {
    if (at >= blob.size()) {
      return blob.error(ErrorCode::BadValue, fmt::format("offset 0x{:X} is past the {}-byte clip blob", at, blob.size()), f);
    }
    RP_ASSIGN(ByteReader s, blob.window(at, blob.size() - at, f));
    return s.cString(f);
  };
  RP_ASSIGN(c.name, stringAt(nameOffset, "animName"));
  RP_ASSIGN(c.source, stringAt(sourceOffset, "srcName"));
  if (frameDataOffset > blob.size()) {
    return blob.errorAt(0x24, ErrorCode::BadValue, fmt::format("frameDataOffset 0x{:X} is past the {}-byte clip blob", frameDataOffset, blob.size()),
                        "frameDataOffset");
  }
  RP_ASSIGN(ByteReader palette, blob.window(frameDataOffset, blob.size() - frameDataOffset, "palette"));
  RP_ASSIGN(c.palette, palette.array<float>(paletteCount, "indexedFloatCount"));
  if (curveInfoOffset > blob.size()) {
    return blob.errorAt(0x20, ErrorCode::BadValue, fmt::format("curveInfoOffset 0x{:X} is past the {}-byte clip blob", curveInfoOffset, blob.size()),
                        "curveInfoOffset");
  }
  RP_CHECK(parseCurves(blob, curveCount, curveInfoOffset, c, warn, storage));
  if (!(c.frameDuration > 0.0f && c.frameDuration < 1e6f)) {
    warn.warn("frame-duration", fmt::format("frameDuration {} is not a positive time; 1/30 s used (R9)", c.frameDuration));
    c.frameDuration = kFrameDuration;
  }
  return Ok{};
}

// §2.12: the slot table, each chain and target found through its offset.
Status parseIkTable(ByteReader& r, size_t at, ClipFile& c, Provenance& warn) {
  RP_CHECK(r.seek(at, "ikTable"));
  auto scope = r.scope("ikTable");
  RP_ASSIGN(const int32_t chainCount, r.s32("chainCount"));
  RP_ASSIGN(const size_t chains, r.count(chainCount < 0 ? ~0ull : static_cast<uint64_t>(chainCount), 4 + 8, "chainCount"));
  const size_t chainBase = r.position();
  RP_ASSIGN(std::vector<uint32_t> chainOffsets, r.array<uint32_t>(chains, "chainOffsets"));
  c.hasIkTable = true;
  c.ikChains.resize(chains);
  for (size_t i = 0; i < chains; ++i) {
    auto chainScope = r.scope(Field("chain", static_cast<int64_t>(i)));
    RP_CHECK(r.seek(chainBase + chainOffsets[i], "offset"));
    RP_ASSIGN(const uint32_t marker, r.u32("marker"));
    if (marker != kChainMarker) {
      warn.warn("ik-marker", fmt::format("IK chain {}: marker is not 0x7E7E7E7E at 0x{:X}", i, r.fileOffset() - 4));
    }
    RP_ASSIGN(const int32_t targetCount, r.s32("targetCount"));
    RP_ASSIGN(const size_t n, r.count(targetCount < 0 ? ~0ull : static_cast<uint64_t>(targetCount), 4 + kSlotTargetSize, "targetCount"));
    const size_t targetBase = r.position();
    RP_ASSIGN(std::vector<uint32_t> targetOffsets, r.array<uint32_t>(n, "targetOffsets"));
    c.ikChains[i].resize(n);
    for (size_t j = 0; j < n; ++j) {
      auto targetScope = r.scope(Field("target", static_cast<int64_t>(j)));
      RP_CHECK(r.seek(targetBase + targetOffsets[j], "offset"));
      ClipSlotTarget& t = c.ikChains[i][j];
      RP_ASSIGN(t.index, r.s32("index"));
      RP_ASSIGN(const auto ns, r.bytes(kSlotNameSize, "namespace"));
      RP_ASSIGN(const auto bone, r.bytes(kSlotNameSize, "bone"));
      t.namespaceField.assign(ns.begin(), ns.end());
      t.boneField.assign(bone.begin(), bone.end());
    }
  }
  return Ok{};
}

Result<ClipEvent> parseEvent(ByteReader& r, size_t tableEnd, bool* rawToEnd) {
  ClipEvent e;
  RP_ASSIGN(e.type, r.u16("type"));
  RP_ASSIGN(const uint16_t marker, r.u16("marker"));
  if (marker != kEventMarker) {
    return r.errorAt(r.position() - 2, ErrorCode::BadValue, "event marker is not 0xC1E4", "marker");
  }
  RP_ASSIGN(e.id, r.u32("id"));
  RP_ASSIGN(e.time, r.f32("time"));
  RP_ASSIGN(e.unknown1, r.f32("unknown1"));
  RP_ASSIGN(e.unknown2, r.f32("unknown2"));
  RP_ASSIGN(e.unknown3, r.u32("unknown3"));
  RP_ASSIGN(const uint32_t nameLength, r.u32("nameLength"));
  const size_t nameAt = r.position();
  RP_ASSIGN(e.name, r.cString("name"));
  if (e.name.size() != nameLength) {
    return r.errorAt(nameAt, ErrorCode::BadValue, fmt::format("name is {} bytes but nameLength says {}", e.name.size(), nameLength), "name");
  }
  const size_t aligned = (r.position() + 3) & ~size_t{3};
  RP_CHECK(r.seek(std::min(aligned, r.size()), "namePadding"));
  if (aligned > r.size()) return r.error(ErrorCode::Truncated, "the name's padding runs past the end", "namePadding");
  int size = eventPayloadSize(e.type);
  *rawToEnd = size < 0;
  const size_t payload = size >= 0 ? static_cast<size_t>(size) : (tableEnd > r.position() ? tableEnd - r.position() : 0);
  RP_ASSIGN(const auto bytes, r.bytes(payload, "payload"));
  e.payload.assign(bytes.begin(), bytes.end());
  return e;
}

Status parseEvents(ByteReader& r, size_t at, ClipFile& c, Provenance& warn) {
  RP_CHECK(r.seek(at, "events"));
  auto scope = r.scope("events");
  RP_ASSIGN(const auto magic, r.bytes(4, "magic"));
  if (std::memcmp(magic.data(), kEventMagic, 4) != 0) {
    return r.errorAt(at, ErrorCode::BadValue, "event table does not start with \"=CE=\"", "magic");
  }
  RP_ASSIGN(c.eventVersion, r.u32("version"));
  RP_ASSIGN(const int32_t count, r.s32("count"));
  RP_ASSIGN(const uint32_t byteLength, r.u32("byteLength"));
  const size_t startField = r.position();
  RP_ASSIGN(const uint32_t start, r.u32("start"));
  RP_ASSIGN(const size_t n, r.count(count < 0 ? ~0ull : static_cast<uint64_t>(count), kEventHeaderSize + 4, "count"));
  if (n == 0) return Ok{};
  RP_CHECK(r.seek(startField + std::min<uint64_t>(start, r.size() - startField), "start"));
  const size_t first = r.position();
  const size_t tableEnd = std::min<uint64_t>(first + uint64_t{byteLength}, r.size());
  c.events.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    auto eventScope = r.scope(Field("event", static_cast<int64_t>(i)));
    bool rawToEnd = false;
    RP_ASSIGN(c.events.emplace_back(), parseEvent(r, tableEnd, &rawToEnd));
    if (rawToEnd) {
      warn.warn("unknown-event", fmt::format("event {} has type {}, whose layout is unknown: its bytes up to the table's end are "
                                             "kept raw{}", i, c.events.back().type,
                                             i + 1 < n ? fmt::format("; the {} events after it are skipped", n - i - 1) : ""));
      break;
    }
  }
  if (r.position() - first != byteLength) {
    warn.warn("event-table-size", fmt::format("event table says {} bytes of events, they take {}", byteLength, r.position() - first));
  }
  return Ok{};
}

}  // namespace

unsigned channelComponents(uint8_t type) {
  switch (type) {
    case kF3Indexed:
    case kF3HighPrecisionNormalized: return 3;
    case kF4SuperHighPrecisionQuaternion: return 4;
    case kF1Normalized: return 1;
    default: return 0;
  }
}

bool constantChannel(uint8_t type) {
  return type == kF1Zero || type == kF3Zero || type == kF4Zero || type == kF4QuaternionIdentity;
}

Result<ClipFile> parseClip(ByteReader& r, Provenance& warn, ClipFile* storage) {
  ClipFile c;
  auto scope = r.scope("CLIP");
  RP_ASSIGN(const uint32_t type, r.u32("type"));
  if (type != kType) return r.errorAt(0, ErrorCode::BadValue, fmt::format("type 0x{:08X} is not CLIP (0x6B20C4F3)", type), "type");
  RP_ASSIGN(const uint32_t linkedClipOffset, r.u32("linkedClipOffset"));
  if (linkedClipOffset != 0) {
    return r.errorAt(kLinkedClipField, ErrorCode::Unsupported, "a linked clip (non-zero offset; 0 in all known clips)", "linkedClipOffset");
  }
  RP_ASSIGN(const uint32_t blobSize, r.u32("clipSize"));
  RP_ASSIGN(const uint32_t blobRel, r.u32("clipOffset"));
  RP_ASSIGN(const uint32_t ikRel, r.u32("slotOffset"));
  RP_ASSIGN(const uint32_t actorRel, r.u32("actorOffset"));
  RP_ASSIGN(const uint32_t eventRel, r.u32("eventOffset"));
  RP_ASSIGN(c.unknown1, r.u32("unknown1"));
  RP_ASSIGN(c.unknown2, r.u32("unknown2"));
  RP_ASSIGN(const uint32_t endRel, r.u32("endOffset"));
  RP_CHECK(r.skip(16, "reserved"));

  RP_ASSIGN(const size_t blobAt, relTarget(r, kBlobField, blobRel, "clipOffset"));
  RP_ASSIGN(ByteReader blob, r.window(blobAt, blobSize, "S3Clip"));
  RP_CHECK(parseBlob(blob, c, warn, storage));

  if (ikRel != 0) {
    RP_ASSIGN(const size_t ikAt, relTarget(r, kIkTableField, ikRel, "slotOffset"));
    RP_CHECK(parseIkTable(r, ikAt, c, warn));
  }
  if (actorRel != 0) {
    RP_ASSIGN(const size_t actorAt, relTarget(r, kActorField, actorRel, "actorOffset"));
    RP_CHECK(r.seek(actorAt, "actor"));
    RP_ASSIGN(c.actor, r.cString("actor"));
  } else {
    c.actor.clear();
  }
  if (eventRel != 0) {
    RP_ASSIGN(const size_t eventAt, relTarget(r, kEventField, eventRel, "eventOffset"));
    RP_CHECK(parseEvents(r, eventAt, c, warn));
  }
  if (endRel != 0) {
    RP_ASSIGN(const size_t endAt, relTarget(r, kEndBlockField, endRel, "endOffset"));
    RP_CHECK(r.seek(endAt, "end"));
    for (int i = 0; i < 4; ++i) { RP_ASSIGN(c.endBlock[i], r.f32(Field("end", i))); }
  }
  return c;
}

}  // namespace rigport::sims3
