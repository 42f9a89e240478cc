// ANP3 (San Andreas) and ANP2 packages, renderware.md §4.2: flat, no tags after the magic.
//   u32 size (ignored, as Psycrow and the game do), char package[24], i32 numAnims;
//   per animation: char name[24], i32 numSequences, [ANP3: i32 keyDataSize, i32 flag];
//   per sequence: char name[24], i32 type, i32 numKeys, i32 boneId, numKeys keys of `type`.
#include <fmt/format.h>

#include "formats/renderware/ifp_reader.hpp"

namespace rigport::renderware::ifp {
namespace {

constexpr size_t kNameSize = 24;

// Sequence key types (gta-reversed-modern AnimSequenceFrames.h): 1/2 float, 3/4 int16 fixed point.
struct SequenceType {
  bool compressed = false;
  bool translation = false;
  size_t keySize = 0;
};

// Compressed fixed-point scales: quaternion /4096, time in ticks of 1/60 s, translation /1024.
constexpr float kQuatScale = 4096.0f;
constexpr float kTicksPerSecond = 60.0f;
constexpr float kTranslationScale = 1024.0f;

Result<SequenceType> sequenceType(int32_t type, const ByteReader& r, size_t typePos) {
  switch (type) {
    case 1: return SequenceType{false, false, 20};  // f32 q[4], f32 time
    case 2: return SequenceType{false, true, 32};   // f32 q[4], f32 time, f32 t[3]
    case 3: return SequenceType{true, false, 10};   // i16 q[4], i16 time
    case 4: return SequenceType{true, true, 16};    // i16 q[4], i16 time, i16 t[3]
    default:
      return r.errorAt(typePos, ErrorCode::Unsupported, fmt::format("sequence type {} (ANP3 has 1–4)", type), "type");
  }
}

// Key values of one sequence as stored: int16 for compressed types, f32 otherwise. Field order per
// key: q[4], time, [t[3]] in both cases.
template <class T>
void decodeKeys(const std::vector<T>& v, size_t n, const SequenceType& type, BoneTrack& track) {
  const size_t perKey = type.translation ? 8 : 5;
  const float qScale = type.compressed ? kQuatScale : 1.0f;
  const float timeScale = type.compressed ? kTicksPerSecond : 1.0f;
  const float tScale = type.compressed ? kTranslationScale : 1.0f;
  track.rotation.times.resize(n);
  track.rotation.values.resize(n);
  if (type.translation) {
    track.translation.times.resize(n);
    track.translation.values.resize(n);
  }
  for (size_t i = 0; i < n; ++i) {
    const T* key = v.data() + i * perKey;
    // Not conjugated, unlike ANPK (§4.2).
    glm::quat q(static_cast<float>(key[3]) / qScale, static_cast<float>(key[0]) / qScale, static_cast<float>(key[1]) / qScale,
                static_cast<float>(key[2]) / qScale);
    // Quantisation leaves each component up to one step off unit length (§4.2): renormalise.
    if (type.compressed) {
      if (const float len = glm::length(q); len > 0.0f) q = q / len;
    }
    const float time = static_cast<float>(key[4]) / timeScale;
    track.rotation.times[i] = time;
    track.rotation.values[i] = q;
    if (type.translation) {
      track.translation.times[i] = time;
      track.translation.values[i] = glm::vec3(static_cast<float>(key[5]), static_cast<float>(key[6]), static_cast<float>(key[7])) / tScale;
    }
  }
}

// Returns the track and adds its key bytes to *keyBytes.
Result<BoneTrack> readSequence(ByteReader& r, uint64_t* keyBytes) {
  BoneTrack track;
  RP_ASSIGN(track.target.name, r.fixedString(kNameSize, "name"));  // up to the first NUL; the rest may be junk
  const size_t typePos = r.position();
  RP_ASSIGN(const int32_t typeCode, r.s32("type"));
  RP_ASSIGN(const SequenceType type, sequenceType(typeCode, r, typePos));
  RP_ASSIGN(const int32_t numKeys, r.s32("numKeys"));
  RP_ASSIGN(const int32_t boneId, r.s32("boneId"));
  if (boneId >= 0) track.target.id = static_cast<uint32_t>(boneId);  // -1: no bone
  if (numKeys < 0) return r.errorAt(typePos + 4, ErrorCode::BadValue, fmt::format("negative key count {}", numKeys), "numKeys");
  RP_ASSIGN(const size_t n, r.count(static_cast<uint64_t>(numKeys), type.keySize, "numKeys"));
  // One checked bulk read per sequence instead of a checked read per value.
  const size_t values = n * (type.translation ? 8 : 5);
  if (type.compressed) {
    RP_ASSIGN(const auto keys, r.array<int16_t>(values, "keys"));
    decodeKeys(keys, n, type, track);
  } else {
    RP_ASSIGN(const auto keys, r.array<float>(values, "keys"));
    decodeKeys(keys, n, type, track);
  }
  *keyBytes += n * type.keySize;
  return track;
}

Result<Animation> readAnimation(ByteReader& r, bool isAnp3, ClipSet& clips) {
  Animation anim;
  RP_ASSIGN(anim.name, r.fixedString(kNameSize, "name"));
  const size_t countPos = r.position();
  RP_ASSIGN(const int32_t numSequences, r.s32("numSequences"));
  int32_t keyDataSize = -1;
  if (isAnp3) {
    RP_ASSIGN(keyDataSize, r.s32("keyDataSize"));
    RP_CHECK(r.s32("flag"));  // 1 = compressed; the game follows the first sequence's type instead
  }
  if (numSequences < 0) return r.errorAt(countPos, ErrorCode::BadValue, fmt::format("negative sequence count {}", numSequences), "numSequences");
  // A sequence is at least its 36-byte header.
  RP_ASSIGN(const size_t n, r.count(static_cast<uint64_t>(numSequences), kNameSize + 12, "numSequences"));
  anim.tracks.reserve(n);
  uint64_t keyBytes = 0;
  for (size_t i = 0; i < n; ++i) {
    auto scope = r.scope(Field("sequence", static_cast<int64_t>(i)));
    RP_ASSIGN(anim.tracks.emplace_back(), readSequence(r, &keyBytes));
  }
  // The game reads all key data into one keyDataSize-byte allocation: a smaller value is a broken file
  // for the game, though the keys themselves are intact.
  if (isAnp3 && (keyDataSize < 0 || static_cast<uint64_t>(keyDataSize) < keyBytes)) {
    clips.provenance.warn("ifp-key-data-size", fmt::format("animation '{}': keyDataSize {} is below the {} bytes of its keys", anim.name, keyDataSize, keyBytes));
  }
  anim.duration = lastKeyTime(anim);
  return anim;
}

}  // namespace

Status readAnp23(ByteReader& r, ClipSet& clips, bool isAnp3, const ReadContext& ctx) {
  RP_CHECK(r.u32("size"));
  RP_ASSIGN(const std::string packageName, r.fixedString(kNameSize, "name"));
  if (clips.name.empty()) clips.name = packageName;
  const size_t countPos = r.position();
  RP_ASSIGN(const int32_t numAnims, r.s32("numAnims"));
  if (numAnims < 0) return r.errorAt(countPos, ErrorCode::BadValue, fmt::format("negative animation count {}", numAnims), "numAnims");
  RP_ASSIGN(const size_t n, r.count(static_cast<uint64_t>(numAnims), kNameSize + (isAnp3 ? 12 : 4), "numAnims"));
  clips.animations.reserve(clips.animations.size() + n);
  size_t kept = r.position();  // the bytes from here on are not given back yet (animationDecoded)
  for (size_t i = 0; i < n; ++i) {
    auto scope = r.scope(Field("animation", static_cast<int64_t>(i)));
    RP_ASSIGN(clips.animations.emplace_back(), readAnimation(r, isAnp3, clips));
    animationDecoded(ctx, clips, r, kept);
  }
  return Ok{};
}

}  // namespace rigport::renderware::ifp
