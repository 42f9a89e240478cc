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

Status parseCurves(ByteReader& blob, uint32_t curveCount, uint32_t curveInfoOffset, ClipFile& c, Provenance& warn) {
  ByteReader table = RP_TRY(blob.window(curveInfoOffset, blob.size() - std::min<size_t>(curveInfoOffset, blob.size()), "curveInfos"));
  const size_t n = RP_TRY(table.count(curveCount, kCurveInfoSize, "curveCount"));
  std::vector<CurveInfo> infos(n);
  for (size_t i = 0; i < n; ++i) {
    auto scope = table.scope(Field("curve", static_cast<int64_t>(i)));
    CurveInfo& info = infos[i];
    info.frameDataOffset = RP_TRY(table.u32("frameDataOffset"));
    info.curve.trackKey = RP_TRY(table.u32("trackKey"));
    info.curve.offset = RP_TRY(table.f32("offset"));
    info.curve.scale = RP_TRY(table.f32("scale"));
    info.curve.frameCount = RP_TRY(table.u16("frameCount"));
    info.curve.channelType = RP_TRY(table.u8("channelType"));
    info.curve.subTarget = RP_TRY(table.u8("subTarget"));
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
    ByteReader keys = RP_TRY(blob.window(info.frameDataOffset, blob.size() - info.frameDataOffset, field));
    const size_t count = RP_TRY(keys.count(curve.frameCount, stride, "frameCount"));
    const auto bytes = RP_TRY(keys.bytes(count * stride, "keys"));
    curve.stride = stride;
    curve.keyBytes.assign(bytes.begin(), bytes.end());
    c.curves.push_back(std::move(curve));
  }
  return Ok{};
}

Status parseBlob(ByteReader& blob, ClipFile& c, Provenance& warn) {
  const auto magic = RP_TRY(blob.bytes(8, "magic"));
  if (std::memcmp(magic.data(), kBlobMagic, 8) != 0) {
    return blob.errorAt(0, ErrorCode::BadValue, "the clip blob does not start with \"_pilC3S_\"", "magic");
  }
  c.version = RP_TRY(blob.u32("version"));
  if (c.version != kBlobVersion) {
    warn.warn("clip-version", fmt::format("_S3Clip_ version {} (every known clip has 2); read as version 2", c.version));
  }
  c.flags = RP_TRY(blob.u32("flags"));
  c.frameDuration = RP_TRY(blob.f32("frameDuration"));
  c.ticks = RP_TRY(blob.u16("maxFrameCount"));
  c.unknown16 = RP_TRY(blob.u16("unknown"));
  const uint32_t curveCount = RP_TRY(blob.u32("curveCount"));
  const uint32_t paletteCount = RP_TRY(blob.u32("indexedFloatCount"));
  const uint32_t curveInfoOffset = RP_TRY(blob.u32("curveInfoOffset"));
  const uint32_t frameDataOffset = RP_TRY(blob.u32("frameDataOffset"));
  const uint32_t nameOffset = RP_TRY(blob.u32("animNameOffset"));
  const uint32_t sourceOffset = RP_TRY(blob.u32("srcNameOffset"));
  auto stringAt = [&](uint32_t at, Field f) -> Result<std::string> {
    if (at >= blob.size()) {
      return blob.error(ErrorCode::BadValue, fmt::format("offset 0x{:X} is past the {}-byte clip blob", at, blob.size()), f);
    }
    ByteReader s = RP_TRY(blob.window(at, blob.size() - at, f));
    return s.cString(f);
  };
  c.name = RP_TRY(stringAt(nameOffset, "animName"));
  c.source = RP_TRY(stringAt(sourceOffset, "srcName"));
  if (frameDataOffset > blob.size()) {
    return blob.errorAt(0x24, ErrorCode::BadValue, fmt::format("frameDataOffset 0x{:X} is past the {}-byte clip blob", frameDataOffset, blob.size()),
                        "frameDataOffset");
  }
  ByteReader palette = RP_TRY(blob.window(frameDataOffset, blob.size() - frameDataOffset, "palette"));
  c.palette = RP_TRY(palette.array<float>(paletteCount, "indexedFloatCount"));
  if (curveInfoOffset > blob.size()) {
    return blob.errorAt(0x20, ErrorCode::BadValue, fmt::format("curveInfoOffset 0x{:X} is past the {}-byte clip blob", curveInfoOffset, blob.size()),
                        "curveInfoOffset");
  }
  RP_CHECK(parseCurves(blob, curveCount, curveInfoOffset, c, warn));
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
  const int32_t chainCount = RP_TRY(r.s32("chainCount"));
  const size_t chains = RP_TRY(r.count(chainCount < 0 ? ~0ull : static_cast<uint64_t>(chainCount), 4 + 8, "chainCount"));
  const size_t chainBase = r.position();
  std::vector<uint32_t> chainOffsets = RP_TRY(r.array<uint32_t>(chains, "chainOffsets"));
  c.hasIkTable = true;
  c.ikChains.resize(chains);
  for (size_t i = 0; i < chains; ++i) {
    auto chainScope = r.scope(Field("chain", static_cast<int64_t>(i)));
    RP_CHECK(r.seek(chainBase + chainOffsets[i], "offset"));
    if (RP_TRY(r.u32("marker")) != kChainMarker) {
      warn.warn("ik-marker", fmt::format("IK chain {}: marker is not 0x7E7E7E7E at 0x{:X}", i, r.fileOffset() - 4));
    }
    const int32_t targetCount = RP_TRY(r.s32("targetCount"));
    const size_t n = RP_TRY(r.count(targetCount < 0 ? ~0ull : static_cast<uint64_t>(targetCount), 4 + kSlotTargetSize, "targetCount"));
    const size_t targetBase = r.position();
    std::vector<uint32_t> targetOffsets = RP_TRY(r.array<uint32_t>(n, "targetOffsets"));
    c.ikChains[i].resize(n);
    for (size_t j = 0; j < n; ++j) {
      auto targetScope = r.scope(Field("target", static_cast<int64_t>(j)));
      RP_CHECK(r.seek(targetBase + targetOffsets[j], "offset"));
      ClipSlotTarget& t = c.ikChains[i][j];
      t.index = RP_TRY(r.s32("index"));
      const auto ns = RP_TRY(r.bytes(kSlotNameSize, "namespace"));
      const auto bone = RP_TRY(r.bytes(kSlotNameSize, "bone"));
      t.namespaceField.assign(ns.begin(), ns.end());
      t.boneField.assign(bone.begin(), bone.end());
    }
  }
  return Ok{};
}

Result<ClipEvent> parseEvent(ByteReader& r, size_t tableEnd, bool* rawToEnd) {
  ClipEvent e;
  e.type = RP_TRY(r.u16("type"));
  if (RP_TRY(r.u16("marker")) != kEventMarker) {
    return r.errorAt(r.position() - 2, ErrorCode::BadValue, "event marker is not 0xC1E4", "marker");
  }
  e.id = RP_TRY(r.u32("id"));
  e.time = RP_TRY(r.f32("time"));
  e.unknown1 = RP_TRY(r.f32("unknown1"));
  e.unknown2 = RP_TRY(r.f32("unknown2"));
  e.unknown3 = RP_TRY(r.u32("unknown3"));
  const uint32_t nameLength = RP_TRY(r.u32("nameLength"));
  const size_t nameAt = r.position();
  e.name = RP_TRY(r.cString("name"));
  if (e.name.size() != nameLength) {
    return r.errorAt(nameAt, ErrorCode::BadValue, fmt::format("name is {} bytes but nameLength says {}", e.name.size(), nameLength), "name");
  }
  const size_t aligned = (r.position() + 3) & ~size_t{3};
  RP_CHECK(r.seek(std::min(aligned, r.size()), "namePadding"));
  if (aligned > r.size()) return r.error(ErrorCode::Truncated, "the name's padding runs past the end", "namePadding");
  int size = eventPayloadSize(e.type);
  *rawToEnd = size < 0;
  const size_t payload = size >= 0 ? static_cast<size_t>(size) : (tableEnd > r.position() ? tableEnd - r.position() : 0);
  const auto bytes = RP_TRY(r.bytes(payload, "payload"));
  e.payload.assign(bytes.begin(), bytes.end());
  return e;
}

Status parseEvents(ByteReader& r, size_t at, ClipFile& c, Provenance& warn) {
  RP_CHECK(r.seek(at, "events"));
  auto scope = r.scope("events");
  const auto magic = RP_TRY(r.bytes(4, "magic"));
  if (std::memcmp(magic.data(), kEventMagic, 4) != 0) {
    return r.errorAt(at, ErrorCode::BadValue, "event table does not start with \"=CE=\"", "magic");
  }
  c.eventVersion = RP_TRY(r.u32("version"));
  const int32_t count = RP_TRY(r.s32("count"));
  const uint32_t byteLength = RP_TRY(r.u32("byteLength"));
  const size_t startField = r.position();
  const uint32_t start = RP_TRY(r.u32("start"));
  const size_t n = RP_TRY(r.count(count < 0 ? ~0ull : static_cast<uint64_t>(count), kEventHeaderSize + 4, "count"));
  if (n == 0) return Ok{};
  RP_CHECK(r.seek(startField + std::min<uint64_t>(start, r.size() - startField), "start"));
  const size_t first = r.position();
  const size_t tableEnd = std::min<uint64_t>(first + uint64_t{byteLength}, r.size());
  c.events.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    auto eventScope = r.scope(Field("event", static_cast<int64_t>(i)));
    bool rawToEnd = false;
    c.events.push_back(RP_TRY(parseEvent(r, tableEnd, &rawToEnd)));
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

Result<ClipFile> parseClip(ByteReader& r, Provenance& warn) {
  ClipFile c;
  auto scope = r.scope("CLIP");
  const uint32_t type = RP_TRY(r.u32("type"));
  if (type != kType) return r.errorAt(0, ErrorCode::BadValue, fmt::format("type 0x{:08X} is not CLIP (0x6B20C4F3)", type), "type");
  if (RP_TRY(r.u32("linkedClipOffset")) != 0) {
    return r.errorAt(kLinkedClipField, ErrorCode::Unsupported, "a linked clip (non-zero offset; 0 in all known clips)", "linkedClipOffset");
  }
  const uint32_t blobSize = RP_TRY(r.u32("clipSize"));
  const uint32_t blobRel = RP_TRY(r.u32("clipOffset"));
  const uint32_t ikRel = RP_TRY(r.u32("slotOffset"));
  const uint32_t actorRel = RP_TRY(r.u32("actorOffset"));
  const uint32_t eventRel = RP_TRY(r.u32("eventOffset"));
  c.unknown1 = RP_TRY(r.u32("unknown1"));
  c.unknown2 = RP_TRY(r.u32("unknown2"));
  const uint32_t endRel = RP_TRY(r.u32("endOffset"));
  RP_CHECK(r.skip(16, "reserved"));

  const size_t blobAt = RP_TRY(relTarget(r, kBlobField, blobRel, "clipOffset"));
  ByteReader blob = RP_TRY(r.window(blobAt, blobSize, "S3Clip"));
  RP_CHECK(parseBlob(blob, c, warn));

  if (ikRel != 0) RP_CHECK(parseIkTable(r, RP_TRY(relTarget(r, kIkTableField, ikRel, "slotOffset")), c, warn));
  if (actorRel != 0) {
    RP_CHECK(r.seek(RP_TRY(relTarget(r, kActorField, actorRel, "actorOffset")), "actor"));
    c.actor = RP_TRY(r.cString("actor"));
  } else {
    c.actor.clear();
  }
  if (eventRel != 0) RP_CHECK(parseEvents(r, RP_TRY(relTarget(r, kEventField, eventRel, "eventOffset")), c, warn));
  if (endRel != 0) {
    RP_CHECK(r.seek(RP_TRY(relTarget(r, kEndBlockField, endRel, "endOffset")), "end"));
    for (int i = 0; i < 4; ++i) c.endBlock[i] = RP_TRY(r.f32(Field("end", i)));
  }
  return c;
}

}  // namespace rigport::sims3
