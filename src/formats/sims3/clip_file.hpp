// A CLIP resource as it is stored (sims3_clip.md §2), between the bytes and the rig model: curves
// keep their quantised keys, events and IK slots their raw fields, so serializeClip(parseClip(b))
// gives b back for a clip laid out the way every real one is (§2.2: curve infos, names, palette,
// keys in curve order; sections padded with '~').
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/sims3/clip_layout.hpp"

namespace rigport::sims3 {

// §2.3 curve info and its key records (§2.5), kept as stored.
struct ClipCurve {
  uint32_t trackKey = 0;
  float offset = 0.0f;
  float scale = 1.0f;
  uint16_t frameCount = 0;
  uint8_t channelType = 0;
  uint8_t subTarget = 0;
  uint32_t stride = 0;            // bytes per key record (0 for constant channels)
  std::vector<uint8_t> keyBytes;  // frameCount x stride bytes: u16 frame, u16 flags, payload
};

// §2.12 one event: the common header and the type's payload bytes.
struct ClipEvent {
  uint16_t type = 0;
  uint32_t id = 0;
  float time = 0.0f;
  float unknown1 = -1.0f;
  float unknown2 = -1.0f;
  uint32_t unknown3 = 0;
  std::string name;
  std::vector<uint8_t> payload;
};

// §2.12 one IK slot target; names are the 512-byte fields as stored ('#'-padded after the NUL).
struct ClipSlotTarget {
  int32_t index = 0;
  std::string namespaceField;
  std::string boneField;
};

struct ClipFile {
  // §2.1 outer header
  uint32_t unknown1 = 0;
  uint32_t unknown2 = 1;
  bool hasIkTable = false;
  std::vector<std::vector<ClipSlotTarget>> ikChains;
  std::string actor = "x";
  uint32_t eventVersion = clip::kEventVersion;
  std::vector<ClipEvent> events;
  std::array<float, 4> endBlock{0.0f, 0.0f, 0.0f, 1.0f};  // §2.12: always (0, 0, 0, 1)
  // §2.2 _S3Clip_ blob
  uint32_t version = 2;
  uint32_t flags = 0;
  float frameDuration = 1.0f / 30.0f;
  uint16_t ticks = 0;      // maxFrameCount
  uint16_t unknown16 = 0;  // s3py writes 0x6C73 ("sl"); EA's 0
  std::string name;
  std::string source;
  std::vector<float> palette;  // §2.8 indexed floats
  std::vector<ClipCurve> curves;
};

// One dequantised key: frame index, the flags' upper bits (flags >> 4, 0 on all TS3 data) and up to
// four component values (R2: sign applied to the normalised value before scale and offset).
struct ClipKey {
  uint16_t frame = 0;
  uint16_t upperFlags = 0;
  std::array<float, 4> v{0.0f, 0.0f, 0.0f, 0.0f};
};

// The component count of a channel type (3, 4 or 1), 0 for constant and unknown types.
unsigned channelComponents(uint8_t channelType);
// True for the types with no key records (R8).
bool constantChannel(uint8_t channelType);

// Parses a whole CLIP resource. Damage a reader can step over (an unknown channel type, a palette
// index out of range, an event table that does not add up) becomes a warning in `warnings`.
// `storage`, when given: a clip whose curves' key byte arrays take the keys (curve i's for curve
// i), so that clips decoded one after another reuse them (43 of a package clip's allocations);
// nothing else of it is kept, and the result is the same as without it.
Result<ClipFile> parseClip(ByteReader& r, Provenance& warnings, ClipFile* storage = nullptr);
// What dequantiseCurve counts as it reads a curve's keys, for the reader's warnings.
struct KeyTally {
  size_t badIndices = 0;  // palette indices past the palette, read as 0
  size_t flagged = 0;     // keys that set flag bits 4-15
  size_t unsorted = 0;    // keys not after the key before them (R9)
};
// Dequantises one curve's keys, adding their counts to *tally.
void dequantiseCurve(const ClipCurve& curve, std::span<const float> palette, std::vector<ClipKey>& out, KeyTally* tally = nullptr);
// The bytes of a CLIP resource, laid out as every real one is.
std::vector<uint8_t> serializeClip(const ClipFile& clip);

}  // namespace rigport::sims3
