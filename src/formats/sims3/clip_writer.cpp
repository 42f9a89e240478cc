// ClipFile -> CLIP bytes, in the layout of every real clip (sims3_clip.md §2.1, §2.2): outer
// header, blob (curve infos, anim name, source name, palette, keys in curve order), IK table,
// actor, events, end block, each section padded to 4 bytes with '~'.
#include "core/byte_writer.hpp"
#include "formats/sims3/clip_file.hpp"
#include "formats/sims3/clip_layout.hpp"

namespace rigport::sims3 {
namespace {

using namespace clip;

void padTo4(ByteWriter& w, uint8_t with) {
  while (w.size() % 4 != 0) w.u8(with);
}

std::vector<uint8_t> serializeBlob(const ClipFile& c) {
  ByteWriter w;
  const uint32_t curveInfoOffset = kBlobHeaderSize;
  const uint32_t nameOffset = curveInfoOffset + static_cast<uint32_t>(kCurveInfoSize * c.curves.size());
  const uint32_t sourceOffset = nameOffset + static_cast<uint32_t>(c.name.size() + 1);
  const uint32_t paletteOffset = sourceOffset + static_cast<uint32_t>(c.source.size() + 1);
  const uint32_t keysOffset = paletteOffset + static_cast<uint32_t>(4 * c.palette.size());
  w.raw({reinterpret_cast<const uint8_t*>(kBlobMagic), 8});
  w.u32(c.version);
  w.u32(c.flags);
  w.f32(c.frameDuration);
  w.u16(c.ticks);
  w.u16(c.unknown16);
  w.u32(static_cast<uint32_t>(c.curves.size()));
  w.u32(static_cast<uint32_t>(c.palette.size()));
  w.u32(curveInfoOffset);
  w.u32(paletteOffset);
  w.u32(nameOffset);
  w.u32(sourceOffset);
  uint32_t at = keysOffset;
  for (const ClipCurve& curve : c.curves) {
    w.u32(at);  // a constant channel points where the next keys start, as real clips do
    w.u32(curve.trackKey);
    w.f32(curve.offset);
    w.f32(curve.scale);
    w.u16(curve.frameCount);
    w.u8(curve.channelType);
    w.u8(curve.subTarget);
    at += static_cast<uint32_t>(curve.keyBytes.size());
  }
  w.cString(c.name);
  w.cString(c.source);
  for (float f : c.palette) w.f32(f);
  for (const ClipCurve& curve : c.curves) w.raw(curve.keyBytes);
  return w.take();
}

void writeSlotName(ByteWriter& w, const std::string& field) {
  const size_t n = std::min(field.size(), kSlotNameSize);
  w.raw({reinterpret_cast<const uint8_t*>(field.data()), n});
  if (n < kSlotNameSize) {
    size_t pad = kSlotNameSize - n;
    if (field.find('\0') == std::string::npos) {  // a bare name: NUL, then '#' (§2.12)
      w.u8(0);
      --pad;
    }
    for (size_t i = 0; i < pad; ++i) w.u8(kSlotPadding);
  }
}

void serializeIkTable(ByteWriter& w, const ClipFile& c) {
  w.s32(static_cast<int32_t>(c.ikChains.size()));
  uint32_t chainAt = static_cast<uint32_t>(4 * c.ikChains.size());
  for (const auto& chain : c.ikChains) {
    w.u32(chainAt);
    chainAt += static_cast<uint32_t>(8 + (4 + kSlotTargetSize) * chain.size());
  }
  for (const auto& chain : c.ikChains) {
    w.u32(kChainMarker);
    w.s32(static_cast<int32_t>(chain.size()));
    uint32_t targetAt = static_cast<uint32_t>(4 * chain.size());
    for (size_t i = 0; i < chain.size(); ++i, targetAt += kSlotTargetSize) w.u32(targetAt);
    for (const ClipSlotTarget& t : chain) {
      w.s32(t.index);
      writeSlotName(w, t.namespaceField);
      writeSlotName(w, t.boneField);
    }
  }
}

void serializeEvents(ByteWriter& w, const ClipFile& c) {
  w.raw({reinterpret_cast<const uint8_t*>(kEventMagic), 4});
  w.u32(c.eventVersion);
  w.s32(static_cast<int32_t>(c.events.size()));
  const size_t lengthAt = w.size();
  w.u32(0);
  w.u32(c.events.empty() ? 0 : 4);
  const size_t first = w.size();
  for (const ClipEvent& e : c.events) {
    w.u16(e.type);
    w.u16(kEventMarker);
    w.u32(e.id);
    w.f32(e.time);
    w.f32(e.unknown1);
    w.f32(e.unknown2);
    w.u32(e.unknown3);
    w.u32(static_cast<uint32_t>(e.name.size()));
    w.cString(e.name);
    padTo4(w, 0);
    w.raw(e.payload);
  }
  w.patchU32(lengthAt, static_cast<uint32_t>(w.size() - first));
}

}  // namespace

std::vector<uint8_t> serializeClip(const ClipFile& c) {
  ByteWriter w;
  w.u32(kType);
  w.u32(0);  // linked clip
  const std::vector<uint8_t> blob = serializeBlob(c);
  w.u32(static_cast<uint32_t>(blob.size()));
  for (size_t i = 0; i < 5; ++i) w.u32(0);  // clip, slot, actor, event offsets; unknown1 (patched)
  w.u32(c.unknown2);
  w.u32(0);  // end offset
  w.zeros(16);
  auto rel = [&](size_t field) { w.patchU32(field, static_cast<uint32_t>(w.size() - field)); };
  rel(kBlobField);
  w.raw(blob);
  padTo4(w, kPadding);
  if (c.hasIkTable) {
    rel(kIkTableField);
    serializeIkTable(w, c);
    padTo4(w, kPadding);
  }
  rel(kActorField);
  w.cString(c.actor);
  padTo4(w, kPadding);
  rel(kEventField);
  serializeEvents(w, c);
  padTo4(w, kPadding);
  rel(kEndBlockField);
  for (float f : c.endBlock) w.f32(f);
  w.patchU32(kUnknown1Field, c.unknown1);
  return w.take();
}

}  // namespace rigport::sims3
