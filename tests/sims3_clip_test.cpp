// The Sims 3 CLIP / RIG / DBPF readers and writers against the samples' ground truth
// (tests/data/samples/sims3: decodes by s3py and s3pi-wrappers, see SOURCES.md there), round
// trips with stated bounds, the real-data traps of sims3_clip.md §6, and hostile input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/bind.hpp"
#include "core/hash.hpp"
#include "export/json_report.hpp"
#include "formats/sims3/clip_file.hpp"
#include "formats/sims3/clip_resource_key.hpp"
#include "formats/sims3/clip_layout.hpp"
#include "formats/sims3/clip_model.hpp"
#include "formats/sims3/package.hpp"
#include "formats/sims3/refpack.hpp"
#include "formats/sims3/sims3.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

using namespace sims3;
using Json = nlohmann::json;

std::string s3Sample(const std::string& name) { return test::sample("sims3/" + name); }
std::vector<uint8_t> s3Bytes(const std::string& name) { return test::readBytes(s3Sample(name)); }
Json s3Json(const std::string& name) {
  std::ifstream in(s3Sample(name));
  return Json::parse(in);
}

// float32 precision: the reference decoders compute in double, rigport in float.
void expectFloat32(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 2e-7 * std::max(1.0, std::fabs(want))) << what;
}

Result<ClipFile> parse(std::span<const uint8_t> bytes, Provenance& warn) {
  ByteReader r(bytes);
  return parseClip(r, warn);
}

Result<ClipSet> readClipBytes(std::span<const uint8_t> bytes) {
  ReadContext ctx;
  return readClip(bytes, ctx);
}

Result<Rig> readRigBytes(std::span<const uint8_t> bytes) {
  ReadContext ctx;
  return readRig(bytes, ctx);
}

Result<Asset> readPackageBytes(std::vector<uint8_t> bytes, const std::string& name = "x.package", ReadOptions options = {}) {
  auto source = Source::fromBytes(std::move(bytes), name);
  ReadContext ctx(std::move(options));
  return readPackage(*source, ctx);
}

bool hasWarning(const Provenance& p, const std::string& code) {
  for (const Warning& w : p.warnings)
    if (w.code == code) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Ground truth
// ---------------------------------------------------------------------------------------------

// Every field of the s3py dump: header values, and per track its curves in order, each with the
// sub-target, the channel type's bit fields and every key (frame, flags >> 4, values).
void expectMatchesS3py(const std::string& clipFile, const std::string& jsonFile) {
  const std::vector<uint8_t> bytes = s3Bytes(clipFile);
  const Json want = s3Json(jsonFile);
  Provenance warn;
  auto clip = parse(bytes, warn);
  ASSERT_TRUE(clip) << clip.error().describe();
  EXPECT_EQ(warn.warningCount(), 0u);
  EXPECT_EQ(clip->name, want["name"]);
  EXPECT_EQ(clip->source, want["src"]);
  EXPECT_FLOAT_EQ(clip->frameDuration, want["frame_duration"].get<float>());
  EXPECT_EQ(clip->ticks, want["max_frame_count"]);
  EXPECT_EQ(clip->actor, want["actor"]);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(clip->endBlock[i], want["end"][i].get<float>());

  // s3py groups curves by track key, in first-seen order, keeping curve order within a track.
  size_t curve = 0;
  std::vector<ClipKey> keys;
  for (const Json& track : want["tracks"]) {
    for (const Json& c : track["curves"]) {
      ASSERT_LT(curve, clip->curves.size());
      const ClipCurve& got = clip->curves[curve++];
      const std::string where = clipFile + " track " + track["key"].get<std::string>() + " curve " + std::to_string(curve - 1);
      EXPECT_EQ(fmt::format("{:08X}", got.trackKey), track["key"]) << where;
      EXPECT_EQ(got.subTarget, c["type"]) << where;
      EXPECT_EQ(got.channelType & 7, c["flags_type"]) << where;
      EXPECT_EQ((got.channelType & 8) != 0, c["static"]) << where;
      EXPECT_EQ(got.channelType >> 4, c["fmt"]) << where;
      dequantiseCurve(got, clip->palette, keys);
      ASSERT_EQ(keys.size(), c["frames"].size()) << where;
      for (size_t k = 0; k < keys.size(); ++k) {
        const Json& f = c["frames"][k];
        EXPECT_EQ(keys[k].frame, f[0]) << where;
        EXPECT_EQ(keys[k].upperFlags, f[1]) << where;
        for (size_t v = 2; v < f.size(); ++v) expectFloat32(keys[k].v[v - 2], f[v].get<double>(), where + " key " + std::to_string(k));
      }
    }
  }
  EXPECT_EQ(curve, clip->curves.size());
}

// `frames` keys of random bytes in a curve of the channel type: every flag bit, code and top bit occurs,
// for the lanes tests below to hold each key against the scalar rule.
ClipCurve randomCurve(uint8_t channelType, uint32_t stride, uint16_t frames, float scale, float offset, std::mt19937& random) {
  ClipCurve curve;
  curve.channelType = channelType;
  curve.scale = scale;
  curve.offset = offset;
  curve.stride = stride;
  curve.frameCount = frames;
  curve.keyBytes.resize(curve.frameCount * curve.stride);
  for (uint8_t& b : curve.keyBytes) b = static_cast<uint8_t>(random());
  return curve;
}

// The quaternion channel (F4 super high precision) is decoded four components at a time in SSE2
// lanes where the build has them: every key bit for bit R4's rule, (sign ? -n : n) * scale + offset
// with n = (code & 0xFFF) / 4095, whatever the flag bits, the upper code bits, scale and offset.
TEST(Sims3Keys, QuaternionLanesMatchTheScalarRule) {
  std::mt19937 random(99);
  for (const float scale : {1.0f, 2.0f, -0.37f, 1e-20f, 3e38f}) {
    for (const float offset : {0.0f, -1.0f, 0.123f, -0.0f}) {
      const ClipCurve curve = randomCurve(clip::kF4SuperHighPrecisionQuaternion, 12, 300, scale, offset, random);
      std::vector<ClipKey> keys;
      dequantiseCurve(curve, {}, keys);
      ASSERT_EQ(keys.size(), curve.frameCount);
      for (size_t k = 0; k < keys.size(); ++k) {
        const uint8_t* p = curve.keyBytes.data() + k * curve.stride;
        const uint16_t flags = static_cast<uint16_t>(p[2] | p[3] << 8);
        for (unsigned c = 0; c < 4; ++c) {
          const uint16_t code = static_cast<uint16_t>(p[4 + 2 * c] | p[5 + 2 * c] << 8);
          const float n = static_cast<float>(code & 0xFFFu) / clip::kMax12;
          const float want = ((flags >> c) & 1u ? -n : n) * scale + offset;
          EXPECT_EQ(std::memcmp(&keys[k].v[c], &want, sizeof want), 0)
              << "scale " << scale << " offset " << offset << " key " << k << " component " << c << ": " << keys[k].v[c] << " against " << want;
        }
      }
    }
  }
}

// The 10-bit translation channel (F3 high precision) is decoded three components at a time in SSE2
// lanes where the build has them: every key bit for bit R5's rule, (sign ? -n : n) * scale + offset
// with n = ((w >> 10c) & 0x3FF) / 1023, whatever the flag bits (bit 3 too), the top bits, scale and
// offset; the fourth value is left as it was.
TEST(Sims3Keys, TranslationLanesMatchTheScalarRule) {
  std::mt19937 random(98);
  for (const float scale : {1.0f, 2.0f, -0.37f, 1e-20f, 3e38f}) {
    for (const float offset : {0.0f, -1.0f, 0.123f, -0.0f}) {
      const ClipCurve curve = randomCurve(clip::kF3HighPrecisionNormalized, 8, 300, scale, offset, random);
      std::vector<ClipKey> keys(curve.frameCount);
      for (ClipKey& k : keys) k.v[3] = 7.0f;
      dequantiseCurve(curve, {}, keys);
      ASSERT_EQ(keys.size(), curve.frameCount);
      for (size_t k = 0; k < keys.size(); ++k) {
        const uint8_t* p = curve.keyBytes.data() + k * curve.stride;
        const uint16_t flags = static_cast<uint16_t>(p[2] | p[3] << 8);
        const uint32_t w = static_cast<uint32_t>(p[4] | p[5] << 8 | p[6] << 16) | static_cast<uint32_t>(p[7]) << 24;
        for (unsigned c = 0; c < 3; ++c) {
          const float n = static_cast<float>((w >> (10 * c)) & 0x3FFu) / clip::kMax10;
          const float want = ((flags >> c) & 1u ? -n : n) * scale + offset;
          EXPECT_EQ(std::memcmp(&keys[k].v[c], &want, sizeof want), 0)
              << "scale " << scale << " offset " << offset << " key " << k << " component " << c << ": " << keys[k].v[c] << " against " << want;
        }
        EXPECT_EQ(keys[k].v[3], 7.0f) << k;
      }
    }
  }
}

// A rotation key is renormalised in one SSE2 register where the build has them: every key bit for
// bit R4's rule, glm::quat(w, x, y, z) / glm::length, and the identity (counted in the warning)
// where the length is not above 1e-6 or not finite: lengths that overflow (scale 3e38), underflow
// (1e-20), are NaN, or are exactly 0 (offset 0, codes 0).
TEST(Sims3Keys, RotationRenormalisationLanesMatchTheScalarRule) {
  std::mt19937 random(97);
  for (const float scale : {1.0f, -0.37f, 1e-20f, 3e38f, std::nanf("")}) {
    ClipFile file;
    ClipCurve curve = randomCurve(clip::kF4SuperHighPrecisionQuaternion, 12, 400, scale, 0.0f, random);
    curve.trackKey = 0x1234;
    for (size_t k = 0; k < 40; ++k) std::fill_n(curve.keyBytes.data() + k * curve.stride + 4, 8, uint8_t{0});  // zero length
    file.curves.push_back(curve);
    std::vector<ClipKey> keys;
    dequantiseCurve(curve, {}, keys);
    Provenance warn;
    const Animation anim = clipToAnimation(file, warn);
    ASSERT_EQ(anim.tracks.size(), 1u);
    const std::vector<glm::quat>& got = anim.tracks[0].rotation.values;
    ASSERT_EQ(got.size(), keys.size());
    size_t identities = 0;
    for (size_t k = 0; k < keys.size(); ++k) {
      glm::quat want(keys[k].v[3], keys[k].v[0], keys[k].v[1], keys[k].v[2]);
      const float len = glm::length(want);
      if (!(len > 1e-6f) || !std::isfinite(len)) {
        want = glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
        ++identities;
      } else {
        want /= len;
      }
      EXPECT_EQ(std::memcmp(&got[k], &want, sizeof want), 0) << "scale " << scale << " key " << k;
    }
    EXPECT_GE(identities, 40u) << scale;
    const bool warned = std::any_of(warn.warnings.begin(), warn.warnings.end(), [&](const Warning& w) {
      return w.code == "zero-rotation" && w.message.starts_with(std::to_string(identities) + " rotation keys");
    });
    EXPECT_TRUE(warned) << scale;
  }
}

// dequantiseCurve counts, as it reads the keys, what clipToAnimation warns about: keys not after the
// key before them in the same curve (the next curve's first key starts afresh), keys that set flag
// bits 4-15, and palette indices past the palette.
TEST(Sims3Keys, KeyOrderFlagsAndPaletteIndicesAreCountedPerCurve) {
  auto key = [](std::vector<uint8_t>& bytes, uint16_t frame, uint16_t flags, std::array<uint16_t, 4> payload, size_t words) {
    for (const uint16_t v : {frame, flags}) bytes.insert(bytes.end(), {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8)});
    for (size_t i = 0; i < words; ++i) bytes.insert(bytes.end(), {static_cast<uint8_t>(payload[i]), static_cast<uint8_t>(payload[i] >> 8)});
  };
  ClipFile file;
  file.palette = {0.5f, -0.25f};
  ClipCurve rotation;
  rotation.trackKey = 1;
  rotation.channelType = clip::kF4SuperHighPrecisionQuaternion;
  rotation.stride = 12;
  const uint16_t frames[] = {0, 3, 3, 2, 7};
  const uint16_t flags[] = {0, 0x10, 0x5, 0, 0x8000};
  for (size_t k = 0; k < 5; ++k) key(rotation.keyBytes, frames[k], flags[k], {100, 200, 300, 4000}, 4);
  rotation.frameCount = 5;
  ClipCurve translation;
  translation.trackKey = 1;
  translation.channelType = clip::kF3Indexed;
  translation.stride = 10;
  key(translation.keyBytes, 0, 0, {0, 1, 2}, 3);  // after the rotation's frame 7, but in its own curve
  key(translation.keyBytes, 4, 0, {5, 1, 0}, 3);
  translation.frameCount = 2;
  file.curves = {rotation, translation};
  Provenance warn;
  (void)clipToAnimation(file, warn);
  auto has = [&](const char* code, const std::string& start) {
    return std::any_of(warn.warnings.begin(), warn.warnings.end(), [&](const Warning& w) { return w.code == code && w.message.starts_with(start); });
  };
  std::string all;
  for (const Warning& w : warn.warnings) all += w.code + ": " + w.message + "\n";
  EXPECT_TRUE(has("key-order", "2 keys are not after")) << all;
  EXPECT_TRUE(has("key-flags", "2 keys set flag bits 4-15")) << all;
  EXPECT_TRUE(has("palette-index", "2 palette indices point past the 2-float palette")) << all;
}

// A clip's curves find their tracks by key (clipToAnimation's open-addressed index): tracks in the
// order their first curve comes, a later curve of the same key on the same track, a second curve
// of one kind warned and ignored, with 1,000 keys that agree in their low 20 bits and whose rotation
// curves come in the reverse order.
TEST(Sims3Clip, CurvesFindTheirTracksByKey) {
  ClipFile file;
  auto curve = [&](uint32_t key, uint8_t type) {
    ClipCurve c;
    c.trackKey = key;
    c.channelType = type;
    file.curves.push_back(c);
  };
  constexpr uint32_t kTracks = 1000;
  for (uint32_t t = 0; t < kTracks; ++t) curve(t << 20, clip::kF3Zero);
  for (uint32_t t = kTracks; t-- > 0;) curve(t << 20, clip::kF4QuaternionIdentity);
  curve(5u << 20, clip::kF3Zero);
  Provenance warn;
  const Animation anim = clipToAnimation(file, warn);
  ASSERT_EQ(anim.tracks.size(), kTracks);
  for (uint32_t t = 0; t < kTracks; ++t) {
    EXPECT_EQ(anim.tracks[t].target.nameHash, t << 20) << t;
    EXPECT_EQ(anim.tracks[t].translation.values.size(), 1u) << t;
    EXPECT_EQ(anim.tracks[t].rotation.values.size(), 1u) << t;
  }
  ASSERT_EQ(warn.warnings.size(), 1u);
  EXPECT_EQ(warn.warnings[0].code, "duplicate-curve");
  EXPECT_EQ(warn.warnings[0].message, fmt::format("curve {}: a second translation curve for track 0x{:08X}; ignored", 2 * kTracks, 5u << 20));
}

// clipToAnimation() with another clip's animation as storage (a package's clips converted one at a
// time): the same animation as without, field by field and key by key, bit for bit, whatever the
// storage's tracks held besides their keys; track 0's key arrays are the storage's, used again.
TEST(Sims3Clip, KeysDecodedIntoStorageAreTheKeysDecodedFresh) {
  Provenance warn;
  auto decode = [&](const std::string& sample, Animation* storage) {
    auto file = parse(s3Bytes(sample), warn);
    EXPECT_TRUE(file.ok());
    return clipToAnimation(*file, warn, storage);
  };
  const Animation fresh = decode("synthetic_a_synthetic_test_x.clip", nullptr);
  Animation storage = decode("synthetic_a_synthetic_nomorph_x.clip", nullptr);
  ASSERT_FALSE(storage.tracks.empty());
  for (BoneTrack& t : storage.tracks) {  // as a clip played and written leaves them: bound, normalised
    t.bone = 3;
    t.target.name = "bound";
    t.scale.times.assign(2, 0.5f);
    t.scale.values.assign(2, glm::vec3(2.0f));
    t.rotation.interpolation = Interpolation::Step;
  }
  const float* const reused = storage.tracks[0].translation.times.data();
  ASSERT_NE(reused, nullptr);
  const Animation into = decode("synthetic_a_synthetic_test_x.clip", &storage);
  auto sameBits = [](const auto& a, const auto& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof a[0]) == 0);
  };
  auto sameKeys = [&](const auto& a, const auto& b) {
    return sameBits(a.times, b.times) && sameBits(a.values, b.values) && a.interpolation == b.interpolation &&
           sameBits(a.inTangents, b.inTangents) && sameBits(a.outTangents, b.outTangents);
  };
  EXPECT_EQ(into.name, fresh.name);
  EXPECT_EQ(into.duration, fresh.duration);
  EXPECT_EQ(into.extras, fresh.extras);
  EXPECT_EQ(into.events.size(), fresh.events.size());
  ASSERT_EQ(into.scalars.size(), fresh.scalars.size());
  for (size_t i = 0; i < fresh.scalars.size(); ++i) EXPECT_TRUE(sameKeys(into.scalars[i].keys, fresh.scalars[i].keys)) << i;
  ASSERT_EQ(into.tracks.size(), fresh.tracks.size());
  for (size_t i = 0; i < fresh.tracks.size(); ++i) {
    const BoneTrack &a = into.tracks[i], &b = fresh.tracks[i];
    EXPECT_EQ(a.target.nameHash, b.target.nameHash) << i;
    EXPECT_EQ(a.target.nameHashKind, b.target.nameHashKind) << i;
    EXPECT_EQ(a.target.name, b.target.name) << i;
    EXPECT_EQ(a.bone, b.bone) << i;
    EXPECT_TRUE(sameKeys(a.translation, b.translation)) << i;
    EXPECT_TRUE(sameKeys(a.rotation, b.rotation)) << i;
    EXPECT_TRUE(sameKeys(a.scale, b.scale)) << i;
  }
  EXPECT_EQ(into.tracks[0].translation.times.data(), reused);
}

// `info` and the listing of a CLIP's clips need its counts, not its keys (ReadOptions::animationRead):
// the reader hands its one clip over with every channel's keys let go as they were decoded (a
// 100,000-key CLIP's decoded keys were 1.8 times the file, all held at once), and what is counted
// is the whole decode's: tracks, stored keys, duration, events, extras, warnings (here a duplicate
// curve's and zero-length rotations' too).
TEST(Sims3Clip, ACallerThatCountsIsHandedTheClipWithItsKeysLetGo) {
  Provenance warn;
  auto file = parse(s3Bytes("synthetic_a_synthetic_test_x.clip"), warn);
  ASSERT_TRUE(file.ok());
  const auto rotation = std::find_if(file->curves.begin(), file->curves.end(), [](const ClipCurve& c) {
    return c.channelType == clip::kF4SuperHighPrecisionQuaternion && c.frameCount > 0;
  });
  ASSERT_NE(rotation, file->curves.end());
  rotation->scale = 0.0f, rotation->offset = 0.0f;  // every key of zero length
  const ClipCurve second = *rotation;
  file->curves.push_back(second);
  const std::vector<uint8_t> bytes = serializeClip(*file);
  ReadContext whole;
  const auto plain = readClip(bytes, whole);
  ReadOptions counting;
  std::vector<Animation> handed;
  counting.animationRead = [&handed](Animation& decoded) { handed.push_back(decoded); };
  ReadContext counted(counting);
  const auto read = readClip(bytes, counted);
  ASSERT_TRUE(plain.ok() && read.ok());
  ASSERT_EQ(handed.size(), 1u);
  ASSERT_EQ(plain->animations.size(), 1u);
  const Animation &a = handed[0], &w = plain->animations[0];
  EXPECT_EQ(a.keyCount(), 0u) << "no key held";
  EXPECT_GT(w.keyCount(), 0u);
  const AnimationCounts got = countAnimation(a), want = countAnimation(w);
  EXPECT_EQ(std::tie(got.name, got.duration, got.tracks, got.keys, got.events), std::tie(want.name, want.duration, want.tracks, want.keys, want.events));
  EXPECT_EQ(a.extras, w.extras);
  ASSERT_EQ(a.tracks.size(), w.tracks.size());
  for (size_t i = 0; i < a.tracks.size(); ++i) EXPECT_EQ(a.tracks[i].target.nameHash, w.tracks[i].target.nameHash) << i;
  EXPECT_EQ(a.scalars.size(), w.scalars.size());
  EXPECT_TRUE(hasWarning(plain->provenance, "duplicate-curve"));
  EXPECT_TRUE(hasWarning(plain->provenance, "zero-rotation"));
  ASSERT_EQ(read->provenance.warnings.size(), plain->provenance.warnings.size());
  for (size_t i = 0; i < plain->provenance.warnings.size(); ++i) {
    const Warning &g = read->provenance.warnings[i], &p = plain->provenance.warnings[i];
    EXPECT_EQ(std::tie(g.code, g.message, g.count), std::tie(p.code, p.message, p.count)) << i;
  }
}

// parseClip() with another clip as storage: the same stored form as without, every curve's key
// bytes among it; curve 0's array is the storage's, used again.
TEST(Sims3Clip, KeyBytesReadIntoStorageAreTheKeyBytesReadFresh) {
  Provenance warn;
  const std::vector<uint8_t> bytes = s3Bytes("synthetic_a_synthetic_test_x.clip");
  auto fresh = parse(bytes, warn);
  auto storage = parse(s3Bytes("synthetic_a_synthetic_nomorph_x.clip"), warn);
  ASSERT_TRUE(fresh.ok() && storage.ok());
  auto keyed = std::find_if(storage->curves.begin(), storage->curves.end(), [](const ClipCurve& c) { return !c.keyBytes.empty(); });
  ASSERT_NE(keyed, storage->curves.end());
  const size_t first = static_cast<size_t>(keyed - storage->curves.begin());
  const uint8_t* const reused = keyed->keyBytes.data();
  ByteReader r(bytes);
  auto into = parseClip(r, warn, &*storage);
  ASSERT_TRUE(into.ok());
  EXPECT_EQ(serializeClip(*into), serializeClip(*fresh));
  ASSERT_EQ(into->curves.size(), fresh->curves.size());
  for (size_t i = 0; i < fresh->curves.size(); ++i) {
    EXPECT_EQ(into->curves[i].keyBytes, fresh->curves[i].keyBytes) << i;
    EXPECT_EQ(into->curves[i].stride, fresh->curves[i].stride) << i;
  }
  ASSERT_GT(into->curves.size(), first);
  if (!into->curves[first].keyBytes.empty()) EXPECT_EQ(into->curves[first].keyBytes.data(), reused);
}

TEST(Sims3Clip, EveryChannelTypeMatchesS3py) {
  expectMatchesS3py("synthetic_a_synthetic_test_x.clip", "synthetic_a_synthetic_test_x.expected_s3py.json");
}

TEST(Sims3Clip, NoMorphClipMatchesS3py) {
  expectMatchesS3py("synthetic_a_synthetic_nomorph_x.clip", "synthetic_a_synthetic_nomorph_x.expected_s3py.json");
}

// s3pi-wrappers' float32 output: "trackKey curveType frameIndex flags values...", one line per key.
TEST(Sims3Clip, NoMorphClipMatchesS3piWrappersBitForBitInFloat32) {
  Provenance warn;
  const auto bytes = s3Bytes("synthetic_a_synthetic_nomorph_x.clip");
  auto clip = parse(bytes, warn);
  ASSERT_TRUE(clip) << clip.error().describe();
  std::vector<std::string> got;
  std::vector<ClipKey> keys;
  std::vector<std::vector<float>> gotValues;
  for (const ClipCurve& c : clip->curves) {
    dequantiseCurve(c, clip->palette, keys);
    for (const ClipKey& k : keys) {
      got.push_back(fmt::format("{:08X} {} {} {}", c.trackKey, c.subTarget, k.frame, k.upperFlags));
      gotValues.emplace_back(k.v.begin(), k.v.begin() + channelComponents(c.channelType));
    }
  }
  std::ifstream in(s3Sample("synthetic_a_synthetic_nomorph_x.expected_s3piwrappers.txt"));
  std::string line;
  size_t i = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream s(line);
    std::string key;
    int type = 0, frame = 0, flags = 0;
    s >> key >> type >> frame >> flags;
    ASSERT_LT(i, got.size());
    EXPECT_EQ(got[i], fmt::format("{} {} {} {}", key, type, frame, flags));
    std::vector<float> values;
    for (float v; s >> v;) values.push_back(v);
    ASSERT_EQ(values.size(), gotValues[i].size()) << line;
    // C#'s shortest round-trip text of a float32: within one float32 ulp of what rigport computes.
    for (size_t v = 0; v < values.size(); ++v) expectFloat32(gotValues[i][v], values[v], line);
    ++i;
  }
  EXPECT_EQ(i, got.size());
}

TEST(Sims3Clip, ModelHasTimesRenormalisedRotationsMorphAndEvents) {
  auto clips = readClipBytes(s3Bytes("synthetic_a_synthetic_test_x.clip"));
  ASSERT_TRUE(clips) << clips.error().describe();
  ASSERT_EQ(clips->animations.size(), 1u);
  const Animation& a = clips->animations[0];
  EXPECT_EQ(a.name, "a_synthetic_test_x");
  EXPECT_NEAR(a.duration, 1.0f, 1e-6f);  // 31 ticks: the last key at (31 - 1) / 30 s
  ASSERT_EQ(a.tracks.size(), 4u);
  const uint32_t keys[] = {0xFEAE6981, 0x57884BB9, 0x556B181A, 0x6FA96266};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(a.tracks[i].target.nameHash, keys[i]);
    EXPECT_EQ(a.tracks[i].target.nameHashKind, HashKind::Fnv1_32Lower);
  }
  const BoneTrack& bind = a.tracks[1];
  ASSERT_EQ(bind.rotation.times.size(), 3u);
  EXPECT_NEAR(bind.rotation.times[1], 0.5f, 1e-6f);  // frame 15 x 1/30
  for (const glm::quat& q : bind.rotation.values) EXPECT_NEAR(glm::length(q), 1.0f, 1e-6f);
  // Constant channels: F4QuaternionIdentity, F4Zero read as no rotation, F3Zero as the origin.
  EXPECT_EQ(a.tracks[0].rotation.values.at(0), glm::quat(1, 0, 0, 0));
  EXPECT_EQ(a.tracks[2].rotation.values.at(0), glm::quat(1, 0, 0, 0));
  EXPECT_EQ(a.tracks[3].translation.values.at(0), glm::vec3(0));
  ASSERT_EQ(a.scalars.size(), 1u);
  EXPECT_EQ(a.scalars[0].name, fmt::format("0x{:08X}", fnv1_64Lower("synthMorph") & 0xFFFFFFFF));
  ASSERT_EQ(a.scalars[0].keys.values.size(), 3u);
  EXPECT_NEAR(a.scalars[0].keys.values[1], 1.0f, 1e-6f);
  ASSERT_EQ(a.events.size(), 1u);
  EXPECT_EQ(a.events[0].type, "sound");
  EXPECT_NEAR(a.events[0].time, 0.5f, 1e-7f);
  const Json payload = Json::parse(a.events[0].payload);
  EXPECT_EQ(payload["sound"], "synth_sound");
  EXPECT_EQ(payload["name"], "snd_evt");
  EXPECT_EQ(a.extras["sims3"]["actor"], "x");
}

TEST(Sims3Rig, MatchesS3py) {
  const Json want = s3Json("synthetic_synthRig.expected_s3py.json");
  auto rig = readRigBytes(s3Bytes("synthetic_synthRig.rig"));
  ASSERT_TRUE(rig) << rig.error().describe();
  EXPECT_EQ(rig->provenance.warningCount(), 0u);
  EXPECT_EQ(rig->name, want["name"]);
  EXPECT_EQ(rig->extras["sims3"]["major"], want["major"]);
  EXPECT_EQ(rig->extras["sims3"]["minor"], want["minor"]);
  const auto& bones = rig->skeleton.bones;
  ASSERT_EQ(bones.size(), want["bones"].size());
  for (size_t i = 0; i < bones.size(); ++i) {
    const Json& b = want["bones"][i];
    EXPECT_EQ(bones[i].name, b["name"]);
    EXPECT_EQ(bones[i].parent < 0 ? Json(nullptr) : Json(bones[static_cast<size_t>(bones[i].parent)].name), b["parent"]);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(bones[i].translation[k], b["pos"][k].get<float>());
    const float q[4] = {bones[i].rotation.x, bones[i].rotation.y, bones[i].rotation.z, bones[i].rotation.w};
    for (int k = 0; k < 4; ++k) EXPECT_EQ(q[k], b["rot"][k].get<float>());
    for (int k = 0; k < 3; ++k) EXPECT_EQ(bones[i].scale[k], b["scale"][k].get<float>());
    EXPECT_EQ(bones[i].extras["sims3"]["flags"], b["flags"]);
    EXPECT_EQ(bones[i].nameHash, fnv1_32Lower(bones[i].name));
  }
}

TEST(Sims3Probe, EachProbeTakesItsOwnSampleOnly) {
  const auto clip = s3Bytes("synthetic_a_synthetic_test_x.clip");
  const auto rig = s3Bytes("synthetic_synthRig.rig");
  const auto pkg = s3Bytes("synthetic_clip_and_rig.package");
  EXPECT_TRUE(probeClip(clip));
  EXPECT_TRUE(probeRig(rig));
  EXPECT_TRUE(probePackage(pkg));
  EXPECT_FALSE(probeClip(rig) || probeClip(pkg) || probeRig(clip) || probeRig(pkg) || probePackage(clip) || probePackage(rig));
  std::vector<uint8_t> versionOnly{4, 0, 0, 0, 2, 0, 0, 0, 0xFF, 0, 0, 0};  // 255 bones in 0 bytes
  EXPECT_FALSE(probeRig(versionOnly));
}

TEST(Sims3Rig, Granny2RigsAreNotSupportedAndSaySo) {
  std::vector<uint8_t> wrapped{0xDE, 0x13, 0xAF, 0x8E, 0, 0, 0, 0, 1, 2, 3, 4};
  auto rig = readRigBytes(wrapped);
  ASSERT_FALSE(rig);
  EXPECT_EQ(rig.error().code, ErrorCode::Unsupported);
  EXPECT_NE(rig.error().message.find("Granny2 rig"), std::string::npos) << rig.error().describe();
  std::vector<uint8_t> raw{0xB8, 0x67, 0xB0, 0xCA, 0xF8, 0x6D, 0xB1, 0x0F, 0x84, 0x72, 0x8C, 0x7E};
  auto gr2 = readRigBytes(raw);
  ASSERT_FALSE(gr2);
  EXPECT_NE(gr2.error().message.find("Granny2 rig: not supported"), std::string::npos) << gr2.error().describe();
  EXPECT_EQ(gr2.error().offset, 0u);
}

TEST(Sims3Package, ListsEveryResourceWithItsName) {
  auto source = Source::fromBytes(s3Bytes("synthetic_clip_and_rig.package"), "p.package");
  ReadContext ctx;
  auto items = listPackage(*source, ctx);
  ASSERT_TRUE(items) << items.error().describe();
  ASSERT_EQ(items->size(), 3u);
  EXPECT_EQ((*items)[0].kind, "name-map");
  EXPECT_EQ((*items)[1].kind, "clip");
  EXPECT_EQ((*items)[1].id, "6B20C4F3:00000000:2643EC3DB99F3F8C");
  EXPECT_EQ((*items)[1].name, "a_synthetic_test_x");
  EXPECT_EQ((*items)[1].bytes, 644u);
  EXPECT_EQ((*items)[2].kind, "rig");
  EXPECT_EQ((*items)[2].name, "synthRig");
}

// The compressed entry decodes to the loose clip's values: the package's RefPack stream expands to
// exactly the loose file's bytes, and both read to the same keys.
TEST(Sims3Package, CompressedClipAndRigReadLikeTheLooseFiles) {
  const auto pkg = s3Bytes("synthetic_clip_and_rig.package");
  ByteReader r(pkg);
  auto entries = parsePackageIndex(r);
  ASSERT_TRUE(entries) << entries.error().describe();
  ASSERT_EQ((*entries)[1].compression, 0xFFFF);
  auto clipBytes = packageResource(r, (*entries)[1]);
  ASSERT_TRUE(clipBytes) << clipBytes.error().describe();
  EXPECT_EQ(*clipBytes, s3Bytes("synthetic_a_synthetic_test_x.clip"));

  auto asset = readPackageBytes(pkg);
  ASSERT_TRUE(asset) << asset.error().describe();
  ASSERT_EQ(asset->rigs.size(), 1u);
  ASSERT_EQ(asset->clips.size(), 1u);
  EXPECT_EQ(asset->rigs[0].name, "synthRig");
  EXPECT_EQ(asset->clips[0].name, "a_synthetic_test_x");
  EXPECT_EQ(asset->clips[0].item, "6B20C4F3:00000000:2643EC3DB99F3F8C");
  EXPECT_FALSE(hasWarning(asset->clips[0].provenance, "clip-key"));
  auto loose = readClipBytes(s3Bytes("synthetic_a_synthetic_test_x.clip"));
  ASSERT_TRUE(loose);
  const Animation& a = asset->clips[0].animations[0];
  const Animation& b = loose->animations[0];
  ASSERT_EQ(a.tracks.size(), b.tracks.size());
  for (size_t i = 0; i < a.tracks.size(); ++i) {
    EXPECT_EQ(a.tracks[i].translation.values, b.tracks[i].translation.values);
    EXPECT_EQ(a.tracks[i].rotation.values, b.tracks[i].rotation.values);
  }
  // Every track of the clip names a bone of the package's rig.
  Rig bound = asset->rigs[0];
  auto report = bindAnimations(bound, asset->clips[0].animations);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->bound, 4u);
  EXPECT_TRUE(report->dropped.empty());
}

// ---------------------------------------------------------------------------------------------
// Hashes
// ---------------------------------------------------------------------------------------------

TEST(Sims3Hash, BoneKeysAndClipKeysFollowTheNote) {
  EXPECT_EQ(fnv1_32Lower("b__ROOT_bind__"), 0x57884BB9u);  // §2.13 examples
  EXPECT_EQ(fnv1_32Lower("b__ROOT__"), 0xFEAE6981u);
  // R12 worked example on real data: a child's clip, filed under the adult name with the age mask.
  const ClipKey64 child = clipKey("c_buff_EWGermy_coughing_x");
  EXPECT_EQ(child.instance, 0xAE79976FFBB8D529ull);
  EXPECT_EQ(child.genericName, "a_buff_EWGermy_coughing_x");
  EXPECT_EQ(child.ageMask, 0x8300);
  EXPECT_EQ(clipKey("a_buff_EWGermy_coughing_x").instance >> 56, 0x2Du);
  // Generic names hash as they are, top bit cleared; two-actor names map each side.
  EXPECT_EQ(clipKey("a_synthetic_test_x").instance, fnv1_64Lower("a_synthetic_test_x") & 0x7FFFFFFFFFFFFFFFull);
  const ClipKey64 pets = clipKey("ad2cd_sniff_x");
  EXPECT_EQ(pets.genericName, "a2a_sniff_x");
  EXPECT_EQ(pets.ageMask, 0x8809);
  EXPECT_EQ(pets.group, 0x48000000u);
  EXPECT_EQ(clipKey("a2o_sit_x").ageMask, 0);
}

// ---------------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------------

// encode(decode(sample)) at the layer that keeps quantised keys reproduces every byte.
TEST(Sims3RoundTrip, ClipFileRewritesTheSamplesByteForByte) {
  for (const char* name : {"synthetic_a_synthetic_test_x.clip", "synthetic_a_synthetic_nomorph_x.clip"}) {
    const auto bytes = s3Bytes(name);
    Provenance warn;
    auto clip = parse(bytes, warn);
    ASSERT_TRUE(clip) << clip.error().describe();
    EXPECT_EQ(serializeClip(*clip), bytes) << name;
  }
}

TEST(Sims3RoundTrip, RigWriterRewritesTheSampleByteForByte) {
  const auto bytes = s3Bytes("synthetic_synthRig.rig");
  auto rig = readRigBytes(bytes);
  ASSERT_TRUE(rig);
  auto written = writeRig(*rig);
  ASSERT_TRUE(written) << written.error().describe();
  EXPECT_EQ(*written, bytes);
}

// The package writer given the sample's stored resources (its RefPack stream included) rewrites it
// byte for byte; recompressed by rigport, the clip's stream differs (another match finder) but
// expands to the same 644 bytes.
TEST(Sims3RoundTrip, PackageWriterRewritesTheSampleAndRecompressesLosslessly) {
  const auto bytes = s3Bytes("synthetic_clip_and_rig.package");
  ByteReader r(bytes);
  auto entries = parsePackageIndex(r);
  ASSERT_TRUE(entries);
  std::vector<PackageResource> stored, recompressed;
  for (const PackageEntry& e : *entries) {
    auto window = r.window(e.offset, e.fileSize, "resource");
    ASSERT_TRUE(window);
    const auto raw = window->data();
    stored.push_back(PackageResource{e.type, e.group, e.instance, {raw.begin(), raw.end()}, e.memSize, e.compression});
    auto plain = packageResource(r, e);
    ASSERT_TRUE(plain);
    recompressed.push_back(PackageResource::make(e.type, e.group, e.instance, *plain, e.compression != 0));
  }
  EXPECT_EQ(serializePackage(stored), bytes);
  auto again = readPackageBytes(serializePackage(recompressed));
  ASSERT_TRUE(again) << again.error().describe();
  ASSERT_EQ(again->clips.size(), 1u);
  auto loose = readClipBytes(s3Bytes("synthetic_a_synthetic_test_x.clip"));
  EXPECT_EQ(again->clips[0].animations[0].tracks[1].rotation.values, loose->animations[0].tracks[1].rotation.values);
}

// `in` compressed and decompressed again is `in`; `label` names the case in a failure.
void expectRefPackRoundTrip(const std::vector<uint8_t>& in, const std::string& label) {
  const auto packed = refpackCompress(in);
  auto out = refpackDecompress(ByteReader(packed));
  ASSERT_TRUE(out) << label << ": " << out.error().describe();
  EXPECT_EQ(*out, in) << label;
}

TEST(Sims3RoundTrip, RefPackRoundTripsEveryKindOfInput) {
  std::mt19937 rng(7);
  std::vector<std::vector<uint8_t>> inputs = {{}, {1}, {1, 2, 3}, std::vector<uint8_t>(5000, 0xAB)};
  std::vector<uint8_t> noise(70000), text, far(300000);
  for (auto& b : noise) b = static_cast<uint8_t>(rng());
  for (int i = 0; i < 4000; ++i) text.push_back(static_cast<uint8_t>("b__ROOT_bind__ keys "[i % 20] + (i / 997)));
  for (size_t i = 0; i < far.size(); ++i) far[i] = noise[i % 20000] ^ static_cast<uint8_t>(i / 60000);  // matches 20 KB back
  inputs.push_back(noise);
  inputs.push_back(text);
  inputs.push_back(far);
  for (const auto& in : inputs) {
    expectRefPackRoundTrip(in, std::to_string(in.size()));
  }
  EXPECT_LT(refpackCompress(inputs[3]).size(), 200u);  // runs compress
}

// The decoder moves bytes 16 (or 8) at a time where the stream and the output have room past an
// opcode, writing past its end and reading a copy's source while the copy writes (refpack.cpp):
// the output must be what a byte at a time gives. Repeats of a pattern of 1 to 40 bytes make copies
// from 1 to 40 bytes back (overlapping themselves below 16), flipped bytes make literals between
// them, the short inputs end with no room past the last copy, and the long ones grow the output
// in the middle of the stream.
TEST(Sims3RoundTrip, RefPackCopiesFromEveryNearOffsetDecodeExactly) {
  std::mt19937 rng(11);
  for (size_t period = 1; period <= 40; ++period) {
    for (const size_t length : {size_t{23}, size_t{301}, size_t{70001}}) {
      std::vector<uint8_t> in;
      for (size_t i = 0; i < period; ++i) in.push_back(static_cast<uint8_t>(rng()));
      while (in.size() < length) in.push_back(in[in.size() - period]);
      for (size_t i = period + 5; i < in.size(); i += 29 + i % 7) in[i] ^= 0x5A;
      expectRefPackRoundTrip(in, fmt::format("period {}, length {}", period, length));
    }
  }
}

// The fast loop checks room once per opcode for every kind but the long copy (refpack.cpp,
// decodeWithRoom): a long copy of 68 to 1,028 bytes ending 0 to 40 bytes before the output's end,
// then literals to the end, must leave it for the exact path (the copy's 16-byte moves would write
// past the output; an address-sanitised build sees those) and decode to the input.
TEST(Sims3RoundTrip, RefPackLongCopiesNearTheOutputsEndDecodeExactly) {
  std::mt19937 rng(13);
  std::vector<uint8_t> noise(2000);
  for (auto& b : noise) b = static_cast<uint8_t>(rng());
  for (const size_t length : {size_t{68}, size_t{69}, size_t{120}, size_t{1028}}) {
    for (size_t tail = 0; tail <= 40; ++tail) {
      std::vector<uint8_t> in(noise.begin(), noise.begin() + 1100);
      for (size_t i = 0; i < length; ++i) in.push_back(in[i]);  // 1,100 bytes back: one long copy
      in.insert(in.end(), noise.begin() + 1500, noise.begin() + 1500 + static_cast<std::ptrdiff_t>(tail));
      expectRefPackRoundTrip(in, fmt::format("copy of {}, tail {}", length, tail));
    }
  }
}

// A package's resources are decompressed into one buffer (PackageReader): each decodes there to
// what it decodes to alone, a damaged one fails with the same error, and the buffer keeps the
// allocation of the largest so far.
TEST(Sims3RoundTrip, RefPackIntoAReusedBufferIsAFreshDecode) {
  std::mt19937 rng(17);
  std::vector<uint8_t> noise(40000), text;
  for (auto& b : noise) b = static_cast<uint8_t>(rng());
  for (int i = 0; i < 3000; ++i) text.push_back(static_cast<uint8_t>("b__ROOT_bind__ keys "[i % 20] + (i / 997)));
  std::vector<uint8_t> truncated = refpackCompress(text);
  truncated.resize(truncated.size() - 9);
  const std::vector<std::vector<uint8_t>> streams = {refpackCompress(noise), refpackCompress(text), truncated, refpackCompress({}),
                                                     refpackCompress(std::vector<uint8_t>(5000, 0xAB)), refpackCompress(text)};
  RefPackBytes buffer;
  const uint8_t* kept = nullptr;
  for (size_t i = 0; i < streams.size(); ++i) {
    const auto fresh = refpackDecompress(ByteReader(streams[i]));
    const Status reused = refpackDecompressInto(ByteReader(streams[i]), buffer);
    ASSERT_EQ(reused.ok(), fresh.ok()) << i;
    if (!fresh) {
      EXPECT_EQ(reused.error().describe(), fresh.error().describe()) << i;
      continue;
    }
    EXPECT_EQ(std::vector<uint8_t>(buffer.begin(), buffer.end()), *fresh) << i;
    if (i == 0) kept = buffer.data();
    EXPECT_EQ(buffer.data(), kept) << i;  // the first (largest) output's allocation, kept
  }
}

// No sample carries IK slots or the other event types: a clip with 2 IK chains and one event of
// every type (7 unknown, kept raw) rewrites byte for byte, and the model keeps them in extras and
// event payloads, from which the writer puts them back.
TEST(Sims3RoundTrip, IkSlotsAndEveryEventTypeSurviveBothLayers) {
  Provenance warn;
  const auto sample = s3Bytes("synthetic_a_synthetic_nomorph_x.clip");
  auto clip = parse(sample, warn);
  ASSERT_TRUE(clip);
  clip->hasIkTable = true;
  clip->ikChains = {{ClipSlotTarget{0, "x", "b__R_Hand__"}, ClipSlotTarget{3, "surface", "_ctnm_slot_"}}, {ClipSlotTarget{1, "y", "b__L_Foot__"}}};
  clip->events.clear();
  for (uint16_t type : {1, 2, 3, 4, 5, 6, 9, 10, 7}) {
    ClipEvent e;
    e.type = type;
    e.id = 100u + type;
    e.time = 0.1f * type;
    e.name = "evt" + std::string(type, 'x');
    const int size = clip::eventPayloadSize(type);
    for (int i = 0; i < (size < 0 ? 12 : size); ++i) e.payload.push_back(static_cast<uint8_t>(type * 16 + i));
    clip->events.push_back(e);
  }
  const auto bytes = serializeClip(*clip);
  Provenance warn2;
  auto again = parse(bytes, warn2);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(serializeClip(*again), bytes);
  ASSERT_EQ(again->ikChains.size(), 2u);
  EXPECT_EQ(again->ikChains[0][1].boneField.substr(0, 12), std::string("_ctnm_slot_\0", 12));
  EXPECT_EQ(again->ikChains[0][1].boneField.size(), 512u);
  EXPECT_EQ(again->ikChains[0][1].boneField.back(), '#');
  ASSERT_EQ(again->events.size(), 9u);
  EXPECT_EQ(again->events[8].payload.size(), 12u);  // type 7: to the table's end
  EXPECT_TRUE(hasWarning(warn2, "unknown-event"));

  auto clips = readClipBytes(bytes);
  ASSERT_TRUE(clips);
  const Animation& a = clips->animations[0];
  EXPECT_EQ(a.extras["sims3"]["ikChains"][0][1]["bone"], "_ctnm_slot_");
  EXPECT_EQ(a.extras["sims3"]["ikChains"][1][0]["index"], 1);
  ASSERT_EQ(a.events.size(), 9u);
  EXPECT_EQ(a.events[0].type, "attach");
  EXPECT_EQ(a.events[4].type, "start-effect");
  EXPECT_EQ(a.events[8].type, "unknown");
  auto written = writeClipAnimation(a, nullptr);
  ASSERT_TRUE(written);
  Provenance warn3;
  auto back = parse(*written, warn3);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->events.size(), 9u);
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(back->events[i].type, again->events[i].type);
    EXPECT_EQ(back->events[i].id, again->events[i].id);
    EXPECT_EQ(back->events[i].name, again->events[i].name);
    EXPECT_EQ(back->events[i].payload, again->events[i].payload);
    EXPECT_EQ(back->events[i].time, again->events[i].time);
  }
  ASSERT_EQ(back->ikChains.size(), 2u);
  EXPECT_EQ(back->ikChains[0][1].boneField, again->ikChains[0][1].boneField);
  EXPECT_EQ(back->ikChains[1][0].index, 1);
}

// A reference animation with every channel kind, written as a CLIP and read back. Bounds per
// channel type, from the quantisation step (half a step, plus float32 rounding):
//   0x12 translation: |scale| / 1023 / 2 per component (scale = half the value range);
//   0x14 rotation: 1 / 4095 / 2 per component before renormalising, so under 1.5e-4 after;
//   0x05 morph: |scale| / 65535 / 2;
// constant channels (0x0B, 0x11, 0x09) are exact, and key times are frame x 1/30 exactly.
TEST(Sims3RoundTrip, AnimationThroughClipIsWithinTheQuantisationStep) {
  Animation a;
  a.name = "a2o_roundtrip_x";
  a.duration = 1.0f;
  BoneTrack moving, still;
  moving.target.name = "b__Pelvis__";
  still.target.name = "b__Spine0__";
  float lo = 1e9f, hi = -1e9f;
  for (int f = 0; f <= 30; f += 3) {
    const float t = f / 30.0f;
    const glm::vec3 v(0.3f * std::sin(t * 5), 1.0f + 0.2f * t, -0.5f * std::cos(t * 3));
    for (int i = 0; i < 3; ++i) lo = std::min(lo, v[i]), hi = std::max(hi, v[i]);
    moving.translation.times.push_back(t);
    moving.translation.values.push_back(v);
    moving.rotation.times.push_back(t);
    moving.rotation.values.push_back(glm::angleAxis(2.5f * t - 1.0f, glm::normalize(glm::vec3(1, t, -0.3f))));
  }
  still.translation.times = {0.0f};
  still.translation.values = {glm::vec3(0)};
  still.rotation.times = {0.0f, 1.0f};
  still.rotation.values = {glm::quat(1, 0, 0, 0), glm::quat(1, 0, 0, 0)};
  a.tracks = {moving, still};
  ScalarChannel morph;
  morph.name = "synthMorph";
  morph.keys.times = {0.0f, 0.5f, 1.0f};
  morph.keys.values = {0.0f, 1.0f, 0.25f};
  a.scalars = {morph};
  a.events = {Event{0.25f, "footstep", "{}"}};

  auto bytes = writeClipAnimation(a, nullptr);
  ASSERT_TRUE(bytes) << bytes.error().describe();
  Provenance warn;
  auto file = parse(*bytes, warn);
  ASSERT_TRUE(file) << file.error().describe();
  std::vector<uint8_t> types;
  for (const ClipCurve& c : file->curves) types.push_back(c.channelType);
  EXPECT_EQ(types, (std::vector<uint8_t>{0x12, 0x14, 0x0B, 0x11, 0x05}));
  EXPECT_EQ(file->curves[0].trackKey, fnv1_32Lower("b__Pelvis__"));
  EXPECT_EQ(file->curves[4].trackKey, static_cast<uint32_t>(fnv1_64Lower("synthMorph")));
  EXPECT_EQ(file->ticks, 31);

  auto back = readClipBytes(*bytes);
  ASSERT_TRUE(back);
  const Animation& b = back->animations[0];
  ASSERT_EQ(b.tracks.size(), 2u);
  const float tBound = (hi - lo) / 2 / 1023.0f / 2 + 1e-6f;
  for (size_t k = 0; k < moving.translation.values.size(); ++k) {
    EXPECT_FLOAT_EQ(b.tracks[0].translation.times[k], moving.translation.times[k]);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(b.tracks[0].translation.values[k][i], moving.translation.values[k][i], tBound) << k;
    const glm::quat q = b.tracks[0].rotation.values[k], want = moving.rotation.values[k];
    const float d = std::min(glm::length(q - want), glm::length(q + want));
    EXPECT_LT(d, 1.5e-4f) << k;
  }
  EXPECT_EQ(b.tracks[1].translation.values, std::vector<glm::vec3>{glm::vec3(0)});
  EXPECT_EQ(b.tracks[1].rotation.values, std::vector<glm::quat>{glm::quat(1, 0, 0, 0)});
  ASSERT_EQ(b.scalars.size(), 1u);
  for (size_t k = 0; k < 3; ++k) EXPECT_NEAR(b.scalars[0].keys.values[k], morph.keys.values[k], 0.5f / 65535 / 2 + 1e-7f);
  ASSERT_EQ(b.events.size(), 1u);  // another format's event: a script event named by its type
  EXPECT_EQ(b.events[0].type, "script");
  EXPECT_EQ(Json::parse(b.events[0].payload)["name"], "footstep");
}

// encode(decode(sample)) through the model: the sample's IK-free layout, names, actor, event and
// end block come back byte for byte; the curve records and key codes differ where the writer
// chooses its own quantisation: offset = mid-range and scale = +half-range (s3py wrote the
// sample's translation curve with a negative scale), one shared constant-rotation type (0x11 for
// the sample's 0x020C F4_Zero), and 0x12 where the sample used the indexed 0x03 palette (so
// indexedFloatCount becomes 0). Every value decodes within the stated bounds of the original.
TEST(Sims3RoundTrip, SampleThroughTheModelDiffersOnlyInQuantisation) {
  const auto bytes = s3Bytes("synthetic_a_synthetic_test_x.clip");
  auto clips = readClipBytes(bytes);
  ASSERT_TRUE(clips);
  auto rewritten = writeClipAnimation(clips->animations[0], nullptr);
  ASSERT_TRUE(rewritten) << rewritten.error().describe();
  Provenance w1, w2;
  auto a = parse(bytes, w1);
  auto b = parse(*rewritten, w2);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->name, b->name);
  EXPECT_EQ(a->source, b->source);
  EXPECT_EQ(a->actor, b->actor);
  EXPECT_EQ(a->ticks, b->ticks);
  EXPECT_EQ(a->endBlock, b->endBlock);
  ASSERT_EQ(b->events.size(), 1u);
  EXPECT_EQ(a->events[0].payload, b->events[0].payload);
  EXPECT_EQ(a->events[0].name, b->events[0].name);
  EXPECT_EQ(b->palette.size(), 0u);
  ASSERT_EQ(a->curves.size(), b->curves.size());
  EXPECT_LT(a->curves[2].scale, 0.0f);  // the sample's negative scale
  EXPECT_GT(b->curves[2].scale, 0.0f);
  EXPECT_EQ(a->curves[5].channelType, 0x0C);
  EXPECT_EQ(b->curves[5].channelType, 0x11);
  auto again = readClipBytes(*rewritten);
  ASSERT_TRUE(again);
  const Animation& x = clips->animations[0];
  const Animation& y = again->animations[0];
  for (size_t t = 0; t < x.tracks.size(); ++t) {
    for (size_t k = 0; k < x.tracks[t].translation.values.size(); ++k) {
      for (int i = 0; i < 3; ++i) EXPECT_NEAR(y.tracks[t].translation.values[k][i], x.tracks[t].translation.values[k][i], 2e-3f);
    }
    for (size_t k = 0; k < x.tracks[t].rotation.values.size(); ++k) {
      const glm::quat p = x.tracks[t].rotation.values[k], q = y.tracks[t].rotation.values[k];
      EXPECT_LT(std::min(glm::length(p - q), glm::length(p + q)), 1.5e-4f);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Real-data traps (sims3_clip.md §6): each a warning, never a failure
// ---------------------------------------------------------------------------------------------

TEST(Sims3Traps, TrackKeysMatchingNoBoneAreReportedAndTheRestBinds) {
  auto rig = readRigBytes(s3Bytes("synthetic_synthRig.rig"));
  Provenance warn;
  const auto bytes = s3Bytes("synthetic_a_synthetic_test_x.clip");
  auto file = parse(bytes, warn);
  ASSERT_TRUE(rig && file);
  file->curves[0].trackKey = 0xDEADBEEF;  // an authoring rig's extra joint
  file->curves[1].trackKey = 0xDEADBEEF;
  auto clips = readClipBytes(serializeClip(*file));
  ASSERT_TRUE(clips);
  auto report = bindAnimations(*rig, clips->animations);
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(report->bound, 3u);
  ASSERT_EQ(report->dropped.size(), 1u);
  EXPECT_EQ(report->dropped[0].count, 1u);
  EXPECT_NE(report->dropped[0].examples.at(0).find("0xDEADBEEF"), std::string::npos) << report->dropped[0].examples[0];
  EXPECT_GE(rig->provenance.warningCount(), 1u);
}

TEST(Sims3Traps, MirrorIndexPastTheBoneCountIsKeptAndWarned) {
  auto rig = readRigBytes(s3Bytes("synthetic_synthRig.rig"));
  ASSERT_TRUE(rig);
  rig->skeleton.bones[3].extras["sims3"]["opposite"] = 4;  // 4 in a 4-bone rig, as one real object rig has 17 of 16
  auto bytes = writeRig(*rig);
  ASSERT_TRUE(bytes);
  auto again = readRigBytes(*bytes);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_TRUE(hasWarning(again->provenance, "mirror-index"));
  EXPECT_EQ(again->skeleton.bones[3].extras["sims3"]["opposite"], 4);
}

TEST(Sims3Traps, NamesThatDoNotHashToTheirInstanceAreWarnedAndKeptByKey) {
  const auto clip = s3Bytes("synthetic_a_synthetic_test_x.clip");
  const uint64_t instance = 0x0123456789ABCDEFull;  // a modder's clip filed under another name's key
  std::vector<PackageResource> resources{
      PackageResource::make(0x0166038C, 0, 0, serializeNameMap({{instance, "a_renamed_x"}}), false),
      PackageResource::make(0x6B20C4F3, 0, instance, clip, true)};
  auto asset = readPackageBytes(serializePackage(resources));
  ASSERT_TRUE(asset) << asset.error().describe();
  ASSERT_EQ(asset->clips.size(), 1u);
  EXPECT_TRUE(hasWarning(asset->clips[0].provenance, "clip-key"));
  EXPECT_EQ(asset->clips[0].item, "6B20C4F3:00000000:0123456789ABCDEF");
  EXPECT_EQ(asset->clips[0].name, "a_renamed_x");                           // the name as given
  EXPECT_EQ(asset->clips[0].animations[0].name, "a_synthetic_test_x");     // the clip's own name
}

TEST(Sims3Traps, NameMapNamesWithTheirInstanceAppendedNeedNoWarning) {
  const uint64_t instance = 0x0123456789ABCDEFull;
  std::vector<PackageResource> resources{
      PackageResource::make(0x0166038C, 0, 0, serializeNameMap({{instance, "a_renamed_x_0x0123456789abcdef"}}), false),
      PackageResource::make(0x6B20C4F3, 0, instance, s3Bytes("synthetic_a_synthetic_test_x.clip"), false)};
  auto asset = readPackageBytes(serializePackage(resources));
  ASSERT_TRUE(asset) << asset.error().describe();
  ASSERT_EQ(asset->clips.size(), 1u);
  EXPECT_FALSE(hasWarning(asset->clips[0].provenance, "clip-key"));
  EXPECT_EQ(asset->clips[0].name, "a_renamed_x_0x0123456789abcdef");
}

TEST(Sims3Traps, DamagedResourceIsSkippedWithAWarningNamingIt) {
  auto clip = s3Bytes("synthetic_a_synthetic_test_x.clip");
  auto broken = clip;
  broken.resize(100);
  std::vector<PackageResource> resources{PackageResource::make(0x6B20C4F3, 0, 1, clip, true),
                                         PackageResource::make(0x6B20C4F3, 0, 2, broken, true)};
  auto asset = readPackageBytes(serializePackage(resources));
  ASSERT_TRUE(asset) << asset.error().describe();
  EXPECT_EQ(asset->clips.size(), 1u);
  ASSERT_TRUE(hasWarning(asset->provenance, "resource-skipped"));
  EXPECT_NE(asset->provenance.warnings[0].message.find("6B20C4F3:00000000:0000000000000002"), std::string::npos)
      << asset->provenance.warnings[0].message;
}

// `--skeleton X.package#RIG` reads the rig alone (issue 30: decoding every clip of a package to get
// its rig took 8x the time and memory): the clips are not even decompressed, so a damaged one
// gives no warning.
TEST(Sims3Package, ASkeletonsOnlyReadDecodesTheRigAndNoClip) {
  auto clip = s3Bytes("synthetic_a_synthetic_test_x.clip");
  auto broken = clip;
  broken.resize(100);
  std::vector<PackageResource> resources{PackageResource::make(0x6B20C4F3, 0, 1, clip, true),
                                         PackageResource::make(0x6B20C4F3, 0, 2, broken, true),
                                         PackageResource::make(0x8EAF13DE, 0, 3, s3Bytes("synthetic_synthRig.rig"), true)};
  ReadOptions options;
  options.skeletonsOnly = true;
  auto asset = readPackageBytes(serializePackage(resources), "x.package", options);
  ASSERT_TRUE(asset) << asset.error().describe();
  ASSERT_EQ(asset->rigs.size(), 1u);
  EXPECT_FALSE(asset->rigs[0].skeleton.bones.empty());
  EXPECT_TRUE(asset->clips.empty());
  EXPECT_FALSE(hasWarning(asset->provenance, "resource-skipped"));
}

TEST(Sims3Traps, ParentAfterChildIsReorderedParentsFirst) {
  auto rig = readRigBytes(s3Bytes("synthetic_synthRig.rig"));
  ASSERT_TRUE(rig);
  // File order: Spine0, ROOT, ROOT_bind (Spine0's parent comes later).
  Rig shuffled = *rig;
  shuffled.skeleton.bones = {rig->skeleton.bones[3], rig->skeleton.bones[0], rig->skeleton.bones[1]};
  shuffled.skeleton.bones[0].parent = 2;
  shuffled.skeleton.bones[1].parent = -1;
  shuffled.skeleton.bones[2].parent = 1;
  auto bytes = writeRig(shuffled);
  ASSERT_TRUE(bytes);
  auto again = readRigBytes(*bytes);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_TRUE(hasWarning(again->provenance, "bone-order"));
  const auto& b = again->skeleton.bones;
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].name, "b__ROOT__");
  EXPECT_EQ(b[1].name, "b__ROOT_bind__");
  EXPECT_EQ(b[2].name, "b__Spine0__");
  EXPECT_EQ(b[2].parent, 1);
}

// ---------------------------------------------------------------------------------------------
// Hostile input
// ---------------------------------------------------------------------------------------------

TEST(Sims3Hostile, HugeCountsAreTooLargeBeforeAllocating) {
  auto clip = s3Bytes("synthetic_a_synthetic_test_x.clip");
  const uint32_t huge = 0x7FFFFFFF;
  std::memcpy(clip.data() + 0x38 + 0x18, &huge, 4);  // curveCount
  auto a = readClipBytes(clip);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code, ErrorCode::TooLarge);
  auto rig = s3Bytes("synthetic_synthRig.rig");
  std::memcpy(rig.data() + 8, &huge, 4);  // boneCount
  auto b = readRigBytes(rig);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, ErrorCode::TooLarge);
  // A RefPack stream announcing 4 GiB is refused by the budget before allocating.
  std::vector<uint8_t> bomb{0x80 | 0x10, 0xFB, 0xFF, 0xFF, 0xFF, 0xF0, 0xFC};
  ByteReader r(bomb);
  Budget budget(1 << 20);
  r.setBudget(&budget);
  auto c = refpackDecompress(r);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, ErrorCode::TooLarge) << c.error().describe();
}

// A curve's keys are charged to the budget, key by key, whether they are read in place or through a
// sub-reader; keys that run past the blob are an error naming the curve and its frame count.
TEST(Sims3Hostile, CurveKeysAreChargedAndKeysPastTheBlobNameTheirCurve) {
  Provenance warn;
  auto file = parse(s3Bytes("synthetic_a_synthetic_test_x.clip"), warn);
  ASSERT_TRUE(file);
  const auto keyed = std::find_if(file->curves.begin(), file->curves.end(), [](const ClipCurve& c) { return c.stride > 0; });
  ASSERT_NE(keyed, file->curves.end());
  const size_t at = static_cast<size_t>(keyed - file->curves.begin());
  auto charged = [](const ClipFile& clip) {
    const auto bytes = serializeClip(clip);
    ByteReader r(bytes);
    Budget budget;
    r.setBudget(&budget);
    Provenance w;
    EXPECT_TRUE(parseClip(r, w));
    return budget.used();
  };
  ClipFile longer = *file;
  ClipCurve& curve = longer.curves[at];
  curve.keyBytes.insert(curve.keyBytes.end(), curve.keyBytes.end() - curve.stride, curve.keyBytes.end());
  ++curve.frameCount;
  EXPECT_EQ(charged(longer) - charged(*file), curve.stride);

  ClipFile past = *file;
  past.curves.back().frameCount = 0xFFFF;
  const size_t last = past.curves.size() - 1;
  ASSERT_GT(past.curves[last].stride, 0u) << "the last curve has keys";
  const auto bytes = serializeClip(past);
  Provenance w;
  auto parsed = parse(bytes, w);
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().path.find(fmt::format("curve[{}]/frameCount", last)), std::string::npos) << parsed.error().describe();
}

enum class Kind { Clip, Rig, Package };
struct SweepCase {
  const char* file;
  Kind kind;
};
const SweepCase kSweep[] = {{"synthetic_a_synthetic_test_x.clip", Kind::Clip},
                            {"synthetic_synthRig.rig", Kind::Rig},
                            {"synthetic_clip_and_rig.package", Kind::Package}};

// Reads a copy of exactly these bytes (so ASan sees over-reads); true when it read. An error must
// name an offset.
bool survive(Kind kind, const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> copy(bytes);
  std::optional<Error> error;
  switch (kind) {
    case Kind::Clip: {
      auto r = readClipBytes(copy);
      if (!r) error = r.error();
      else (void)writeClipAnimation(r->animations[0], nullptr);
      break;
    }
    case Kind::Rig: {
      auto r = readRigBytes(copy);
      if (!r) error = r.error();
      else (void)writeRig(*r);
      break;
    }
    case Kind::Package: {
      auto r = readPackageBytes(copy);
      if (!r) error = r.error();
      break;
    }
  }
  if (error) EXPECT_TRUE(error->offset.has_value()) << error->describe();
  return !error;
}

TEST(Sims3Hostile, TruncationAtEveryLengthFailsCleanly) {
  for (const SweepCase& c : kSweep) {
    const auto bytes = s3Bytes(c.file);
    size_t accepted = 0;
    for (size_t n = 0; n < bytes.size(); ++n) accepted += survive(c.kind, {bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)}) ? 1 : 0;
    // A CLIP's end block and a RIG's IK chain count are its last bytes; a package's index is last.
    EXPECT_EQ(accepted, 0u) << c.file;
    EXPECT_TRUE(survive(c.kind, bytes)) << c.file;
  }
}

TEST(Sims3Hostile, EveryByteFlipYieldsAValueOrAnError) {
  for (const SweepCase& c : kSweep) {
    const auto bytes = s3Bytes(c.file);
    size_t parsed = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (uint8_t mask : {uint8_t{0xFF}, uint8_t{0x80}, uint8_t{0x01}}) {
        auto patched = bytes;
        patched[i] ^= mask;
        parsed += survive(c.kind, patched) ? 1 : 0;
      }
    }
    EXPECT_GT(parsed, bytes.size()) << c.file;  // most flips hit values, names or padding
  }
}

}  // namespace
}  // namespace rigport
