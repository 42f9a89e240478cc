// ANPK packages (GTA III / Vice City), renderware.md §4.1: tagged blocks `char tag[4], u32 size`.
//   ANPK { INFO{numAnims, name}, per animation: NAME{name}, DGAN{ INFO{numTracks, 0},
//          per track: CPAN{ ANIM{record}, KR00|KRT0|KRTS{keys} } } }
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <optional>

#include "formats/renderware/ifp_reader.hpp"

namespace rigport::renderware::ifp {
namespace {

struct Block {
  char tag[4] = {};
  size_t start = 0;  // position of the tag in the parent reader
  ByteReader body;
  bool is(const char* t) const { return std::memcmp(tag, t, 4) == 0; }
};

std::string tagText(const char* tag) {
  std::string s;
  for (int i = 0; i < 4; ++i) {
    const auto c = static_cast<unsigned char>(tag[i]);
    s += std::isprint(c) ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02X}", c);
  }
  return s;
}

// Sizes are not always multiples of 4 (INFO and NAME hold string lengths) but every payload is
// padded to 4, so readers round each size up (librwgta / gta-reversed-modern ROUNDSIZE).
Result<Block> readBlock(ByteReader& r, Field f) {
  Block b;
  b.start = r.position();
  RP_ASSIGN(const auto tag, r.bytes(4, f));
  std::memcpy(b.tag, tag.data(), 4);
  RP_ASSIGN(const uint32_t size, r.u32(f));
  RP_ASSIGN(b.body, r.sub(size, f));
  RP_CHECK(r.skip(std::min<size_t>((4 - size % 4) % 4, r.remaining()), f));
  return b;
}

Result<ByteReader> expectBlock(ByteReader& r, const char* tag, Field f) {
  RP_ASSIGN(Block b, readBlock(r, f));
  if (!b.is(tag)) {
    return r.errorAt(b.start, ErrorCode::BadValue, fmt::format("expected block '{}', found '{}'", tag, tagText(b.tag)), f);
  }
  return b.body;
}

// ANIM record: char name[28], i32 numKeys, i32 0, i32 numKeys-1, then 44 bytes: i32 boneId
// (Vice City); 48 bytes: two ints that are not a bone id (GTA III) — bind those by name.
constexpr size_t kViceCityRecord = 44;
constexpr size_t kGta3Record = 48;

// Key blocks: f32 q[4] (conjugated), [f32 t[3]], [f32 s[3]], f32 time.
struct KeyLayout {
  bool translation = false;
  bool scale = false;
  size_t size = 0;
};

std::optional<KeyLayout> layoutOf(const char (&tag)[4]) {
  if (std::memcmp(tag, "KR00", 4) == 0) return KeyLayout{false, false, 20};
  if (std::memcmp(tag, "KRT0", 4) == 0) return KeyLayout{true, false, 32};
  if (std::memcmp(tag, "KRTS", 4) == 0) return KeyLayout{true, true, 44};
  return std::nullopt;
}

Result<KeyLayout> keyLayout(const Block& b, const ByteReader& parent) {
  if (const auto layout = layoutOf(b.tag)) return *layout;
  return parent.errorAt(b.start, ErrorCode::Unsupported, fmt::format("key block '{}' (ANPK has KR00, KRT0, KRTS)", tagText(b.tag)), "keys");
}

// The keys of one track, `kFloats` floats each (5: KR00, 8: KRT0, 11: KRTS), into its channels.
// One loop per layout, writing through local pointers (indexing the vectors made the compiler
// reload them after every store: the stores might have changed them), and every channel's times a
// copy of the rotation's: a 1,000-clip package has 960,000 keys, and a loop asking the layout per
// key was a fifth of its reading. `last` becomes the latest time of those and its own, as
// lastKeyTime() takes it (the clip's duration; a pass of its own over every channel's times was
// another 9 M instructions of a 1,000-clip package).
template <size_t kFloats>
void unpackKeys(const uint8_t* bytes, size_t n, BoneTrack& track, float& last) {
  constexpr bool translation = kFloats >= 8, scale = kFloats == 11;
  track.rotation.times.resize(n);
  track.rotation.values.resize(n);
  if constexpr (translation) track.translation.values.resize(n);
  if constexpr (scale) track.scale.values.resize(n);
  float* times = track.rotation.times.data();
  glm::quat* rotations = track.rotation.values.data();
  glm::vec3* translations = track.translation.values.data();
  glm::vec3* scales = track.scale.values.data();
  // The latest time in a local: `last` might be one of the floats stored, so the compiler loaded
  // and stored it at every key (a fifth of the loop's instructions).
  float latest = last;
  for (size_t i = 0; i < n; ++i) {
    // Float j of the key: the host's floats, as arrayInto() gives them or the file holds them, each
    // loaded where it lies (a copy of the whole key went through the stack first).
    const uint8_t* key = bytes + i * kFloats * sizeof(float);
    auto at = [key](size_t j) {
      float v;
      std::memcpy(&v, key + j * sizeof v, sizeof v);
      return v;
    };
    times[i] = at(kFloats - 1);  // absolute seconds
    latest = std::max(latest, times[i]);
    // Stored conjugated w.r.t. the in-game quaternion (§4.1).
    rotations[i] = glm::quat(at(3), -at(0), -at(1), -at(2));
    if constexpr (translation) translations[i] = glm::vec3(at(4), at(5), at(6));
    // The game ignores KRTS scale ("scaling ignored"); it is still data, so it is kept.
    if constexpr (scale) scales[i] = glm::vec3(at(7), at(8), at(9));
  }
  last = latest;
  if constexpr (translation) track.translation.times = track.rotation.times;
  if constexpr (scale) track.scale.times = track.rotation.times;
}

void unpackKeys(const KeyLayout& layout, const uint8_t* bytes, size_t n, BoneTrack& track, float& last) {
  if (layout.scale) {
    unpackKeys<11>(bytes, n, track, last);
  } else if (layout.translation) {
    unpackKeys<8>(bytes, n, track, last);
  } else {
    unpackKeys<5>(bytes, n, track, last);
  }
}

// Into `track`, the clip's own (a track returned by value was moved twice more on its way there:
// 16 M instructions of a 1,000-clip package). `floats` holds the keys as read, its storage reused
// from track to track (a vector per track was an allocation and a free each, 32,000 of them).
Status readTrack(ByteReader& cpan, BoneTrack& track, float& last, std::vector<float>& floats) {
  RP_ASSIGN(Block anim, readBlock(cpan, "ANIM"));
  if (!anim.is("ANIM")) {
    return cpan.errorAt(anim.start, ErrorCode::BadValue, fmt::format("expected block 'ANIM', found '{}'", tagText(anim.tag)), "ANIM");
  }
  ByteReader& rec = anim.body;
  if (rec.size() != kViceCityRecord && rec.size() != kGta3Record) {
    return cpan.errorAt(anim.start + 4, ErrorCode::Unsupported,
                        fmt::format("ANIM record of {} bytes (44 in Vice City, 48 in GTA III)", rec.size()), "ANIM");
  }
  RP_ASSIGN(track.target.name, rec.fixedString(28, "name"));
  RP_ASSIGN(const int32_t numKeys, rec.s32("numKeys"));
  RP_CHECK(rec.skip(8, "numKeys"));  // 0 and numKeys-1; readers ignore both
  if (rec.size() == kViceCityRecord) {
    RP_ASSIGN(const int32_t boneId, rec.s32("boneId"));
    if (boneId >= 0) track.target.id = static_cast<uint32_t>(boneId);  // -1: no bone
  }
  if (numKeys < 0) return rec.errorAt(28, ErrorCode::BadValue, fmt::format("negative key count {}", numKeys), "numKeys");
  if (numKeys == 0) return Ok{};  // no key block follows (librwgta, Psycrow, the game)

  RP_ASSIGN(Block keys, readBlock(cpan, "keys"));
  RP_ASSIGN(const KeyLayout layout, keyLayout(keys, cpan));
  ByteReader& k = keys.body;
  RP_ASSIGN(const size_t n, k.count(static_cast<uint64_t>(numKeys), layout.size, "numKeys"));
  // All keys are f32; one checked bulk read instead of a checked read per value.
  RP_CHECK(k.arrayInto(floats, n * (layout.size / 4), "keys"));
  unpackKeys(layout, reinterpret_cast<const uint8_t*>(floats.data()), n, track, last);
  return Ok{};
}

// Where readBlock() would find a block in [r.position(), end) of `r`: its tag, its body and the
// position after its padding (cut at `end`, as readBlock() cuts it at its reader's end), with `r`
// left at the body; nullopt where readBlock() would fail.
struct BlockAt {
  char tag[4] = {};
  size_t body = 0;
  size_t size = 0;
  size_t next = 0;
  bool is(const char* t) const { return std::memcmp(tag, t, 4) == 0; }
};

std::optional<BlockAt> blockAt(ByteReader& r, size_t end) {
  if (end - r.position() < 8) return std::nullopt;
  const auto tag = r.bytes(4, "tag");
  const auto size = r.u32("size");
  if (!tag || !size || *size > end - r.position()) return std::nullopt;
  BlockAt b;
  std::memcpy(b.tag, tag->data(), 4);
  b.body = r.position();
  b.size = *size;
  const size_t after = b.body + b.size;
  b.next = after + std::min<size_t>((4 - b.size % 4) % 4, end - after);
  return b;
}

// The CPAN block at `dgan`'s position read as expectBlock() and readTrack() read it, but through
// `dgan` itself and with the keys taken from the file's bytes: their sub-readers each format a path
// ("ANPK/animation[9]/DGAN/CPAN[3]/ANIM"), and for a 1,000-clip package's 96,000 track blocks that
// cost more than reading the keys (BENCHMARKS.md, issue 30). Only a track they would read without
// an error is read here, and `track` is written only once it has been read whole; for any other
// this leaves `dgan` where it was and the budget as it was and says false, and readTrack() reads
// it again and makes the error.
bool readTrackInPlace(ByteReader& dgan, BoneTrack& track, float& last) {
  const size_t start = dgan.position();
  auto declined = [&] {
    static_cast<void>(dgan.seek(start, "CPAN"));
    return false;
  };
  // The keys are read as the host's floats: where the file's are not, arrayInto() swaps them.
  if (dgan.endian() != Endian::Little || std::endian::native != std::endian::little) return false;
  const auto cpan = blockAt(dgan, dgan.size());
  if (!cpan || !cpan->is("CPAN")) return declined();
  const size_t end = cpan->body + cpan->size;
  const auto anim = blockAt(dgan, end);
  if (!anim || !anim->is("ANIM") || (anim->size != kViceCityRecord && anim->size != kGta3Record)) return declined();
  // The record lies within the CPAN block, so its reads cannot fail.
  auto name = dgan.fixedString(28, "name");
  const auto numKeys = dgan.s32("numKeys");
  const auto skipped = dgan.skip(8, "numKeys");
  const auto boneId = anim->size == kViceCityRecord ? dgan.s32("boneId") : Result<int32_t>(-1);
  if (!name || !numKeys || !skipped || !boneId || *numKeys < 0) return declined();
  size_t n = 0;
  KeyLayout layout;
  const uint8_t* keyBytes = nullptr;
  if (*numKeys > 0) {
    static_cast<void>(dgan.seek(anim->next, "ANIM"));
    const auto keys = blockAt(dgan, end);
    const auto known = keys ? layoutOf(keys->tag) : std::nullopt;
    // count()'s check; then its charge and arrayInto()'s, each n x the key size, as one: both fit
    // exactly when their sum does, and a refused charge adds nothing.
    if (!known || static_cast<uint64_t>(*numKeys) > keys->size / known->size) return declined();
    layout = *known;
    n = static_cast<size_t>(*numKeys);
    Budget* const budget = dgan.budget();
    if (budget != nullptr && !budget->charge(2 * uint64_t{n} * layout.size)) return declined();
    keyBytes = dgan.data().data() + keys->body;
  }
  static_cast<void>(dgan.seek(cpan->next, "CPAN"));
  track.target.name = std::move(*name);
  if (*boneId >= 0) track.target.id = static_cast<uint32_t>(*boneId);
  if (n > 0) unpackKeys(layout, keyBytes, n, track, last);
  return true;
}

Result<Animation> readAnimation(ByteReader& r, std::vector<float>& floats) {
  Animation anim;
  RP_ASSIGN(ByteReader name, expectBlock(r, "NAME", "NAME"));
  RP_ASSIGN(anim.name, name.fixedString(name.size(), "name"));
  RP_ASSIGN(ByteReader dgan, expectBlock(r, "DGAN", "DGAN"));
  RP_ASSIGN(ByteReader info, expectBlock(dgan, "INFO", "INFO"));
  RP_ASSIGN(const int32_t numTracks, info.s32("numTracks"));
  if (numTracks < 0) return info.errorAt(0, ErrorCode::BadValue, fmt::format("negative track count {}", numTracks), "numTracks");
  // A track is at least a CPAN header plus an ANIM block of 8 + 44 bytes.
  RP_ASSIGN(const size_t n, dgan.count(static_cast<uint64_t>(numTracks), 8 + 8 + kViceCityRecord, "numTracks"));
  anim.tracks.reserve(n);
  float last = 0.0f;  // lastKeyTime(anim), taken as the keys are read
  for (size_t i = 0; i < n; ++i) {
    BoneTrack& track = anim.tracks.emplace_back();
    if (readTrackInPlace(dgan, track, last)) continue;
    RP_ASSIGN(ByteReader cpan, expectBlock(dgan, "CPAN", Field("CPAN", static_cast<int64_t>(i))));
    RP_CHECK(readTrack(cpan, track, last, floats));
  }
  anim.duration = last;
  return anim;
}

}  // namespace

Status readAnpk(ByteReader& r, ClipSet& clips, const ReadContext& ctx) {
  RP_ASSIGN(ByteReader pkg, expectBlock(r, "ANPK", "ANPK"));
  RP_ASSIGN(ByteReader info, expectBlock(pkg, "INFO", "INFO"));
  RP_ASSIGN(const int32_t numAnims, info.s32("numAnims"));
  RP_ASSIGN(const std::string packageName, info.fixedString(info.remaining(), "name"));
  if (clips.name.empty()) clips.name = packageName;
  if (numAnims < 0) return info.errorAt(0, ErrorCode::BadValue, fmt::format("negative animation count {}", numAnims), "numAnims");
  // An animation is at least a NAME header, a DGAN header and an 8-byte INFO block.
  RP_ASSIGN(const size_t n, pkg.count(static_cast<uint64_t>(numAnims), 8 + 8 + 16, "numAnims"));
  clips.animations.reserve(clips.animations.size() + n);
  std::vector<float> floats;  // readTrack's
  size_t kept = pkg.position();  // the bytes from here on are not given back yet (animationDecoded)
  for (size_t i = 0; i < n; ++i) {
    auto scope = pkg.scope(Field("animation", static_cast<int64_t>(i)));
    RP_ASSIGN(clips.animations.emplace_back(), readAnimation(pkg, floats));
    animationDecoded(ctx, clips, pkg, kept);
  }
  return Ok{};
}

}  // namespace rigport::renderware::ifp
