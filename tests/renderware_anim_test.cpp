// RenderWare .anm (Anim Animation 0x1B, types 1 and 2) and GTA IFP (ANPK, ANP3, ANP2) readers and the
// type-1 .anm writer, checked against the ground truths in shared/samples/renderware (SOURCES.md):
// the librw-written .anm and its dump, and the Psycrow / librwgta decoder outputs of the generated
// files. Tolerances: 1e-6 absolute for values the ground truth prints with 6+ digits; RW half float
// comparisons use half an RW-half step at |v| < 2 (2^-12), stated where used.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>


#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/bind.hpp"
#include "core/byte_writer.hpp"
#include "export/json_report.hpp"
#include "formats/registry.hpp"
#include "formats/renderware/axes.hpp"
#include "formats/renderware/ifp_reader.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/renderware/rw_half.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using namespace rigport::renderware;
using nlohmann::json;

namespace {

constexpr float kTol = 1e-6f;
constexpr float kHalfStep = 1.0f / 4096.0f;  // half an RW-half mantissa step for 1 <= |v| < 2

std::vector<uint8_t> sampleBytes(const std::string& name) { return test::readBytes(test::sample("renderware/" + name)); }

json sampleJson(const std::string& name) {
  std::ifstream in(test::sample("renderware/" + name));
  return json::parse(in);
}

std::vector<std::string> sampleLines(const std::string& name) {
  std::ifstream in(test::sample("renderware/" + name));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

glm::quat quatXyzw(const json& a) {
  return glm::quat(a[3].get<float>(), a[0].get<float>(), a[1].get<float>(), a[2].get<float>());
}
glm::vec3 vec3(const json& a) { return glm::vec3(a[0].get<float>(), a[1].get<float>(), a[2].get<float>()); }

void expectNear(const glm::quat& a, const glm::quat& b, float tol, const std::string& what) {
  EXPECT_NEAR(a.x, b.x, tol) << what;
  EXPECT_NEAR(a.y, b.y, tol) << what;
  EXPECT_NEAR(a.z, b.z, tol) << what;
  EXPECT_NEAR(a.w, b.w, tol) << what;
}
void expectNear(const glm::vec3& a, const glm::vec3& b, float tol, const std::string& what) {
  EXPECT_NEAR(a.x, b.x, tol) << what;
  EXPECT_NEAR(a.y, b.y, tol) << what;
  EXPECT_NEAR(a.z, b.z, tol) << what;
}

// One key of the .anm dump: "key i time T quat(x,y,z,w) x y z w trans x y z prevOffset 0x.. node n".
struct DumpKey {
  float time = 0;
  glm::quat q;
  glm::vec3 t;
  uint32_t node = 0;
};

std::vector<DumpKey> anmDumpKeys() {
  std::vector<DumpKey> keys;
  for (const std::string& line : sampleLines("synthetic_skin_rw36003.anm.dump.txt")) {
    std::istringstream s(line);
    std::string word, label, prev;
    int index = 0;
    DumpKey k;
    float x, y, z, w;
    if (!(s >> word) || word != "key") continue;
    s >> index >> label >> k.time >> label >> x >> y >> z >> w >> label >> k.t.x >> k.t.y >> k.t.z >> label >> prev >> label >> k.node;
    EXPECT_FALSE(s.fail()) << line;
    k.q = glm::quat(w, x, y, z);
    keys.push_back(k);
  }
  return keys;
}

// The 6 HAnim nodes of synthetic_skin_rw36003.dff, built from its librw dump: one bone per frame with
// an HAnim id (frame order, parents from the FrameList), joints in HAnim node order (by id).
Skeleton dumpSkeleton() {
  Skeleton sk;
  std::map<int, int> boneOfFrame;
  std::vector<int> nodeIds;
  for (const std::string& line : sampleLines("synthetic_skin_rw36003.librw-dump.txt")) {
    std::istringstream s(line);
    std::string word, label, name;
    s >> word;
    if (word == "frame") {
      int frame = 0, parent = 0, id = 0;
      glm::vec3 pos;
      s >> frame >> label >> parent >> label >> name >> label >> id >> label >> pos.x >> pos.y >> pos.z;
      if (s.fail() || id < 0) continue;
      Bone b;
      b.name = name.substr(1, name.size() - 2);  // strip the quotes
      b.id = static_cast<uint32_t>(id);
      b.translation = pos;
      b.parent = boneOfFrame.count(parent) ? boneOfFrame[parent] : -1;
      boneOfFrame[frame] = static_cast<int>(sk.bones.size());
      sk.bones.push_back(b);
    } else if (word == "node") {
      int node = 0, id = 0;
      s >> node >> label >> id;
      nodeIds.push_back(id);
    }
  }
  for (int id : nodeIds) {
    for (size_t b = 0; b < sk.bones.size(); ++b)
      if (sk.bones[b].id == static_cast<uint32_t>(id)) sk.joints.push_back(static_cast<uint32_t>(b));
  }
  EXPECT_EQ(sk.bones.size(), 6u);
  EXPECT_EQ(sk.joints.size(), 6u);
  return sk;
}

// The tracks of one animation as read, keyed by node position.
const BoneTrack& trackAt(const Animation& anim, uint32_t node) {
  for (const BoneTrack& t : anim.tracks)
    if (t.target.position == node) return t;
  ADD_FAILURE() << "no track for node " << node;
  return anim.tracks.front();
}

// A standard-key (interpolator type 1) ANIM chunk's header and fields before its keys, for
// `numKeys` keys of 36 bytes.
void writeStandardChunkHeader(ByteWriter& w, uint32_t numKeys, float duration) {
  w.u32(0x1B);
  w.u32(20 + 36 * numKeys);
  w.u32(0x1803FFFF);
  w.s32(0x100);
  w.s32(1);
  w.u32(numKeys);
  w.s32(0);
  w.f32(duration);
}

// Frame f's keys of a clip in which each of `nodes` nodes has a key every frame, chained to its
// key of the frame before: node n at x = n, moving 0.01 along z a frame.
void writeEveryNodesKeyOfFrame(ByteWriter& w, uint32_t nodes, uint32_t f) {
  for (uint32_t n = 0; n < nodes; ++n) {
    w.f32(static_cast<float>(f) / 30.0f);
    for (float v : {0.0f, 0.0f, 0.0f, 1.0f, static_cast<float>(n), 0.0f, 0.01f * static_cast<float>(f)}) w.f32(v);
    w.u32(f == 0 ? 0u : ((f - 1) * nodes + n) * 36);
  }
}

// ---------------------------------------------------------------------------------------------
// .anm
// ---------------------------------------------------------------------------------------------

TEST(RwAnm, ProbesAnimAnimationChunksOnly) {
  EXPECT_TRUE(probeAnm(sampleBytes("synthetic_skin_rw36003.anm")));
  EXPECT_TRUE(probeAnm(sampleBytes("synthetic_skin_rw36003_compressed.anm")));
  EXPECT_FALSE(probeAnm(sampleBytes("synthetic_skin_rw36003.dff")));
  EXPECT_FALSE(probeAnm(sampleBytes("synthetic_anims_anpk.ifp")));
}

TEST(RwAnm, StandardKeysMatchTheLibrwDumpPerNode) {
  auto rig = readAnm(sampleBytes("synthetic_skin_rw36003.anm"));
  ASSERT_TRUE(rig) << rig.error().describe();
  ASSERT_EQ(rig->animations.size(), 1u);
  const Animation& anim = rig->animations[0];
  EXPECT_TRUE(anim.name.empty()) << "the chunk stores no name";
  EXPECT_FLOAT_EQ(anim.duration, 1.0f);
  EXPECT_EQ(rig->provenance.axes.up, AxisSystem::Up::Z);
  EXPECT_TRUE(rig->provenance.axes.rightHanded);

  const std::vector<DumpKey> dump = anmDumpKeys();
  ASSERT_EQ(dump.size(), 18u);
  uint32_t numNodes = 0;
  for (const DumpKey& k : dump) numNodes = std::max(numNodes, k.node + 1);
  ASSERT_EQ(anim.tracks.size(), numNodes);
  std::map<uint32_t, size_t> seen;  // keys consumed per node
  for (const DumpKey& k : dump) {
    const BoneTrack& t = trackAt(anim, k.node);
    const size_t i = seen[k.node]++;
    ASSERT_LT(i, t.rotation.times.size());
    ASSERT_LT(i, t.translation.times.size());
    const std::string what = "node " + std::to_string(k.node) + " key " + std::to_string(i);
    EXPECT_NEAR(t.rotation.times[i], k.time, kTol) << what;
    EXPECT_NEAR(t.translation.times[i], k.time, kTol) << what;
    expectNear(t.rotation.values[i], k.q, kTol, what);
    expectNear(t.translation.values[i], k.t, kTol, what);
  }
  for (const BoneTrack& t : anim.tracks) EXPECT_EQ(t.rotation.times.size(), seen[*t.target.position]);
}

TEST(RwAnm, CompressedKeysMatchPsycrowDecoder) {
  auto rig = readAnm(sampleBytes("synthetic_skin_rw36003_compressed.anm"));
  ASSERT_TRUE(rig) << rig.error().describe();
  const json expected = sampleJson("synthetic_skin_rw36003_compressed.anm.expected.json");
  ASSERT_EQ(rig->animations.size(), expected["chunks"].size());
  for (size_t c = 0; c < expected["chunks"].size(); ++c) {
    const json& chunk = expected["chunks"][c];
    const Animation& anim = rig->animations[c];
    EXPECT_NEAR(anim.duration, chunk["duration"].get<float>(), kTol);
    std::map<uint32_t, size_t> seen;
    for (const json& key : chunk["keys"]) {
      const uint32_t node = key["node"].get<uint32_t>();
      const BoneTrack& t = trackAt(anim, node);
      const size_t i = seen[node]++;
      ASSERT_LT(i, t.rotation.times.size());
      const std::string what = "node " + std::to_string(node) + " key " + std::to_string(i);
      EXPECT_NEAR(t.rotation.times[i], key["time"].get<float>(), kTol) << what;
      expectNear(t.rotation.values[i], quatXyzw(key["rotation_xyzw"]), kTol, what);
      expectNear(t.translation.values[i], vec3(key["translation"]), kTol, what);
    }
    size_t total = 0;
    for (const BoneTrack& t : anim.tracks) total += t.rotation.times.size();
    EXPECT_EQ(total, chunk["keys"].size());
  }
}

TEST(RwAnm, CompressedFileEqualsStandardFileWithinHalfFloatPrecision) {
  auto standard = readAnm(sampleBytes("synthetic_skin_rw36003.anm"));
  auto compressed = readAnm(sampleBytes("synthetic_skin_rw36003_compressed.anm"));
  ASSERT_TRUE(standard && compressed);
  const Animation& a = standard->animations[0];
  const Animation& b = compressed->animations[0];
  ASSERT_EQ(a.tracks.size(), b.tracks.size());
  for (size_t n = 0; n < a.tracks.size(); ++n) {
    ASSERT_EQ(a.tracks[n].rotation.times.size(), b.tracks[n].rotation.times.size());
    for (size_t i = 0; i < a.tracks[n].rotation.times.size(); ++i) {
      const std::string what = "node " + std::to_string(n) + " key " + std::to_string(i);
      EXPECT_EQ(a.tracks[n].rotation.times[i], b.tracks[n].rotation.times[i]) << what;  // times are f32 in both
      // Quaternion components are RW halves themselves; translations are halves in [-1, 1] times a
      // scalar <= 1, so both stay within half a step at |v| < 2 (plus the 6-digit generator inputs).
      expectNear(a.tracks[n].rotation.values[i], b.tracks[n].rotation.values[i], kHalfStep + kTol, what);
      expectNear(a.tracks[n].translation.values[i], b.tracks[n].translation.values[i], kHalfStep + kTol, what);
    }
  }
}

TEST(RwAnm, RwHalfFloatIsNotIeee) {
  // Bits chosen from §1.10's formula: 0x7800 = e 15, m 0 -> 1.0; 0x7400 = e 14, m 1024 -> 0.75;
  // IEEE binary16 would read them as 32768 and 16384.
  EXPECT_EQ(rwHalfToFloat(0x7800), 1.0f);
  EXPECT_EQ(rwHalfToFloat(0x7400), 0.75f);
  EXPECT_EQ(rwHalfToFloat(0xF800), -1.0f);
  EXPECT_EQ(rwHalfToFloat(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(rwHalfToFloat(0x8000)));
  EXPECT_LT(rwHalfToFloat(0x7FFF), 2.0f);
  EXPECT_GT(rwHalfToFloat(0x0001), 0.0f);  // no denormals: e 0 still has the implicit 1
}

TEST(RwAnm, SeveralChunksGiveSeveralAnimations) {
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003.anm");
  const std::vector<uint8_t> second = sampleBytes("synthetic_skin_rw36003_compressed.anm");
  bytes.insert(bytes.end(), second.begin(), second.end());
  auto rig = readAnm(bytes);
  ASSERT_TRUE(rig) << rig.error().describe();
  ASSERT_EQ(rig->animations.size(), 2u);
  EXPECT_TRUE(rig->animations[1].name.empty());
  EXPECT_EQ(rig->animations[1].tracks.size(), 6u);
}

TEST(RwAnm, CompressedChunkWithStandardSizedHeaderStillReads) {
  // Psycrow's writer stores 20 + 36·n as the size of type-2 chunks (§1.10).
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003_compressed.anm");
  const uint32_t wrongSize = 20 + 36 * 18;
  std::memcpy(bytes.data() + 4, &wrongSize, 4);
  auto rig = readAnm(bytes);
  ASSERT_TRUE(rig) << rig.error().describe();
  EXPECT_EQ(rig->animations.size(), 1u);
  ASSERT_EQ(rig->provenance.warnings.size(), 1u);
  EXPECT_EQ(rig->provenance.warnings[0].code, "chunk-size");
}

// ReadOptions::animationRead: a type 1 chunk's keys are read from the file in one pass, its file
// pages given back behind it a MiB at a time (every release from the first key on: only whole
// pages are given back), and the animation, handed over as decoded, is the one a read without it
// gives (its nodes' arrays sized as it goes: here every node has the same count).
TEST(RwAnm, HandsTheAnimationOverAndGivesTheKeysBytesBackASliceAtATime) {
  constexpr uint32_t kNodes = 4, kFrames = 8000;  // 32,000 keys of 36 bytes: two slices
  ByteWriter w;
  writeStandardChunkHeader(w, kNodes * kFrames, static_cast<float>(kFrames - 1) / 30.0f);
  for (uint32_t f = 0; f < kFrames; ++f) writeEveryNodesKeyOfFrame(w, kNodes, f);
  const std::vector<uint8_t> bytes = w.bytes();
  std::vector<std::span<const uint8_t>> released;
  size_t handed = 0;
  ReadOptions options;
  options.animationRead = [&](Animation& decoded) {
    EXPECT_EQ(decoded.keyCount(), size_t{2} * kNodes * kFrames);
    ++handed;
  };
  ReadContext ctx(options);
  ctx.releaseBytes = [&](std::span<const uint8_t> range) { released.push_back(range); };
  auto clips = readAnm(bytes, ctx);
  ASSERT_TRUE(clips) << clips.error().describe();
  EXPECT_EQ(handed, 1u);
  ASSERT_EQ(released.size(), 2u);
  for (const auto& range : released) EXPECT_EQ(range.data(), bytes.data() + 32);
  EXPECT_EQ(released.back().size(), size_t{36} * kNodes * kFrames);
  auto whole = readAnm(bytes);
  ASSERT_TRUE(whole) << whole.error().describe();
  ASSERT_EQ(clips->animations.size(), 1u);
  ASSERT_EQ(clips->animations[0].tracks.size(), kNodes);
  for (uint32_t n = 0; n < kNodes; ++n) {
    const BoneTrack& a = clips->animations[0].tracks[n];
    const BoneTrack& b = whole->animations[0].tracks[n];
    EXPECT_EQ(a.rotation.times, b.rotation.times) << n;
    EXPECT_EQ(a.rotation.values, b.rotation.values) << n;
    EXPECT_EQ(a.translation.values, b.translation.values) << n;
    EXPECT_EQ(a.translation.values.back(), glm::vec3(static_cast<float>(n), 0.0f, 0.01f * static_cast<float>(kFrames - 1))) << n;
  }
}

// ReadOptions::animationRead: the nodes' arrays are sized as the keys come (an even share once the
// nodes are known, doubled when a node has more), so a clip whose nodes have unequal key counts (1,
// 10 and 200 keys: one node past its share twice, one short of it) is handed over as a whole read
// gives it, every array cut to its node's keys.
TEST(RwAnm, HandsOverAClipWhoseNodesHaveUnequalKeyCountsAsAWholeReadGivesIt) {
  const std::vector<uint32_t> keysOfNode = {1, 10, 200};
  std::vector<uint32_t> last(keysOfNode.size());  // each node's last key so far
  ByteWriter keys;
  uint32_t written = 0;
  const auto key = [&](uint32_t node, uint32_t frame) {
    keys.f32(static_cast<float>(frame) / 30.0f);
    for (float v : {0.0f, 0.0f, 0.0f, 1.0f, static_cast<float>(node), static_cast<float>(frame), 0.0f}) keys.f32(v);
    keys.u32(frame == 0 ? 0xFF30C9D8u : last[node] * 36);
    last[node] = written++;
  };
  for (uint32_t frame = 0; frame < 200; ++frame) {
    for (uint32_t node = 0; node < keysOfNode.size(); ++node) {
      if (frame < keysOfNode[node]) key(node, frame);
    }
  }
  ByteWriter w;
  writeStandardChunkHeader(w, written, 199.0f / 30.0f);
  std::vector<uint8_t> bytes = w.bytes();
  bytes.insert(bytes.end(), keys.bytes().begin(), keys.bytes().end());
  std::vector<BoneTrack> handed;
  ReadOptions options;
  options.animationRead = [&](Animation& decoded) { handed = decoded.tracks; };
  ReadContext ctx(options);
  ctx.releaseBytes = [](std::span<const uint8_t>) {};
  auto clips = readAnm(bytes, ctx);
  ASSERT_TRUE(clips) << clips.error().describe();
  auto whole = readAnm(bytes);
  ASSERT_TRUE(whole) << whole.error().describe();
  const std::vector<BoneTrack>& tracks = whole->animations[0].tracks;
  ASSERT_EQ(handed.size(), keysOfNode.size());
  ASSERT_EQ(tracks.size(), keysOfNode.size());
  for (size_t n = 0; n < keysOfNode.size(); ++n) {
    EXPECT_EQ(tracks[n].rotation.times.size(), keysOfNode[n]) << n;
    EXPECT_EQ(handed[n].target.position, tracks[n].target.position) << n;
    EXPECT_EQ(handed[n].rotation.times, tracks[n].rotation.times) << n;
    EXPECT_EQ(handed[n].rotation.values, tracks[n].rotation.values) << n;
    EXPECT_EQ(handed[n].translation.times, tracks[n].translation.times) << n;
    EXPECT_EQ(handed[n].translation.values, tracks[n].translation.values) << n;
    EXPECT_EQ(handed[n].translation.values.back(), glm::vec3(static_cast<float>(n), static_cast<float>(keysOfNode[n] - 1), 0.0f)) << n;
  }
}

// `info` of a .anm holds the decoded clip, not its keys copied from the file as well (issue 30:
// info's peak within 1.5 x the file past the process start; the 11.5 MB benchmark .anm 30.1 -> 17.6
// MiB, 25.7 -> 13.2 past the start), and prints the whole read's summary. Each program run counts this
// test's own size in its peak, and the start's run as much: a large one hides the difference, it
// never makes one.
TEST(RwAnm, InfoHoldsTheDecodedClipNotACopyOfItsKeys) {
  constexpr uint32_t kNodes = 64, kFrames = 5000;  // 320,000 keys of 36 bytes: 11.5 MB
  const std::string input = test::scratchDir("rw_anm_info") + "/long.anm";
  {
    // Written a frame at a time: a program run starts from this test's peak (a fork copies it).
    std::ofstream file(input, std::ios::binary);
    const auto write = [&](const ByteWriter& w) {
      file.write(reinterpret_cast<const char*>(w.bytes().data()), static_cast<std::streamsize>(w.bytes().size()));
    };
    ByteWriter header;
    writeStandardChunkHeader(header, kNodes * kFrames, static_cast<float>(kFrames - 1) / 30.0f);
    write(header);
    for (uint32_t f = 0; f < kFrames; ++f) {
      ByteWriter w;
      writeEveryNodesKeyOfFrame(w, kNodes, f);
      write(w);
    }
  }
  const test::CliRun start = test::runCli("--version", test::Capture::StdoutOnly);
#if defined(__linux__)
  const long startPeak = test::childrenPeakKib();
#endif
  const test::CliRun info = test::runCli("info --json " + test::quote(input), test::Capture::StdoutOnly);
#if defined(__linux__)
  const long infoPeak = test::childrenPeakKib();
  const auto fileKib = static_cast<long>(std::filesystem::file_size(input) / 1024);
  EXPECT_LE(infoPeak - startPeak, fileKib * 3 / 2) << startPeak << " KiB at the start, " << infoPeak << " KiB for info";
#endif
  ASSERT_EQ(start.code, 0) << start.text;
  ASSERT_EQ(info.code, 0) << info.text;
  auto read = loadAsset(input);
  ASSERT_TRUE(read) << read.error().describe();
  ASSERT_EQ(read->clips.size(), 1u);
  const ClipSet& c = read->clips[0];
  ASSERT_EQ(c.animations.size(), 1u);
  EXPECT_EQ(c.animations[0].keyCount(), size_t{2} * kNodes * kFrames);
  const auto shown = json::parse(info.text).at(0).at("clipSets");
  ASSERT_EQ(shown.size(), 1u);
  json set = shown[0];
  set.erase("playsOn");
  EXPECT_EQ(set, json(clipSetToJson(c, countAnimations(c.animations))));
}

TEST(RwAnm, StandardKeysOverrunningTheirChunkAreAnErrorNamingIt) {
  // Two type-1 chunks; the first claims one key more than its chunk holds. Its keys must not run
  // on into the second chunk's bytes.
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003.anm");
  const std::vector<uint8_t> second = bytes;
  bytes.insert(bytes.end(), second.begin(), second.end());
  uint32_t numKeys;
  std::memcpy(&numKeys, bytes.data() + 12 + 8, 4);
  ++numKeys;
  std::memcpy(bytes.data() + 12 + 8, &numKeys, 4);
  auto rig = readAnm(bytes);
  ASSERT_FALSE(rig);
  EXPECT_EQ(rig.error().code, ErrorCode::TooLarge) << rig.error().describe();
  EXPECT_NE(rig.error().path.find("AnimAnimation[0]"), std::string::npos) << rig.error().describe();
  EXPECT_NE(rig.error().path.find("numKeyFrames"), std::string::npos) << rig.error().describe();
}

TEST(RwAnm, UnknownInterpolatorTypeIsUnsupportedAndNamed) {
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003.anm");
  const int32_t type = 0x1103;  // Climax vendor keys (§1.10)
  std::memcpy(bytes.data() + 12 + 4, &type, 4);
  auto rig = readAnm(bytes);
  ASSERT_FALSE(rig);
  EXPECT_EQ(rig.error().code, ErrorCode::Unsupported);
  EXPECT_NE(rig.error().message.find("4355"), std::string::npos) << rig.error().message;
  EXPECT_EQ(rig.error().offset, 16u);
}

TEST(RwAnm, OtherVersionIsRejected) {
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003.anm");
  bytes[12] = 0x01;  // version 0x101
  auto rig = readAnm(bytes);
  ASSERT_FALSE(rig);
  EXPECT_NE(rig.error().path.find("version"), std::string::npos);
}

TEST(RwAnm, HugeKeyCountIsTooLargeBeforeAllocating) {
  for (const char* name : {"synthetic_skin_rw36003.anm", "synthetic_skin_rw36003_compressed.anm"}) {
    std::vector<uint8_t> bytes = sampleBytes(name);
    const uint32_t huge = 0x7FFFFFFF;
    std::memcpy(bytes.data() + 12 + 8, &huge, 4);
    auto rig = readAnm(bytes);
    ASSERT_FALSE(rig) << name;
    EXPECT_EQ(rig.error().code, ErrorCode::TooLarge) << name;
    EXPECT_NE(rig.error().path.find("numKeyFrames"), std::string::npos) << rig.error().describe();
  }
}

TEST(RwAnm, KeyNamingNoAwaitingPredecessorIsAnError) {
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003.anm");
  // Key 7 (a second key, node 1) made to point at key 0, which key 6 already follows.
  const uint32_t prev = 0;
  std::memcpy(bytes.data() + 12 + 20 + 7 * 36 + 32, &prev, 4);
  auto rig = readAnm(bytes);
  ASSERT_FALSE(rig);
  EXPECT_EQ(rig.error().code, ErrorCode::BadValue);
  EXPECT_NE(rig.error().path.find("key[7]"), std::string::npos) << rig.error().describe();
}

TEST(RwAnm, WriterReproducesTheLibrwFileByteForByte) {
  const std::vector<uint8_t> original = sampleBytes("synthetic_skin_rw36003.anm");
  auto read = readAnm(original);
  ASSERT_TRUE(read);
  Rig rig;
  rig.provenance.axes = renderware::kRenderWareAxes;
  rig.skeleton = dumpSkeleton();
  ASSERT_TRUE(bindAnimations(rig, std::move(read->animations)));
  EXPECT_TRUE(rig.provenance.warnings.empty());
  auto written = writeAnm(rig);
  ASSERT_TRUE(written) << written.error().describe();
  EXPECT_EQ(*written, original);
}

TEST(RwAnm, UnboundTracksAreWrittenByTheirPosition) {
  const std::vector<uint8_t> original = sampleBytes("synthetic_skin_rw36003.anm");
  auto read = readAnm(original);
  ASSERT_TRUE(read);
  auto written = writeAnm(*read);
  ASSERT_TRUE(written) << written.error().describe();
  EXPECT_EQ(*written, original);
}

// A 3-joint skeleton whose joint order differs from bone order, and an animation with tracks on
// different key times and one track without translation keys.
Rig writerRig() {
  Rig rig;
  rig.provenance.axes = renderware::kRenderWareAxes;  // written as is, without axis conversion
  for (int i = 0; i < 3; ++i) {
    Bone b;
    b.name = "b" + std::to_string(i);
    b.parent = i - 1;
    b.translation = glm::vec3(0.1f * i, 0.2f, 0.3f * i);
    b.rotation = glm::normalize(glm::quat(1.0f, 0.1f * i, 0.0f, 0.2f));
    rig.skeleton.bones.push_back(b);
  }
  rig.skeleton.joints = {2, 0, 1};
  Animation anim;
  anim.name = "walk";
  anim.duration = 1.0f;
  BoneTrack t0;
  t0.bone = 0;
  t0.rotation.times = {0.0f, 0.5f, 1.0f};
  t0.rotation.values = {glm::quat(1, 0, 0, 0), glm::normalize(glm::quat(0.9f, 0.1f, 0.3f, 0.0f)), glm::normalize(glm::quat(0.5f, 0.5f, 0.5f, 0.5f))};
  t0.translation.times = {0.0f, 1.0f};
  t0.translation.values = {glm::vec3(0, 0, 0), glm::vec3(1, 2, 3)};
  BoneTrack t2;
  t2.bone = 2;
  t2.rotation.times = {0.0f, 0.25f, 1.0f};
  t2.rotation.values = {glm::normalize(glm::quat(0.2f, 0.9f, 0.1f, 0.0f)), glm::quat(0, 0, 1, 0), glm::normalize(glm::quat(0.7f, 0.0f, 0.0f, -0.7f))};
  anim.tracks = {t0, t2};
  rig.animations.push_back(anim);
  return rig;
}

TEST(RwAnm, WriteThenReadReproducesEveryKeyAndFillsTheRestFromBindPose) {
  const Rig rig = writerRig();
  auto bytes = writeAnm(rig);
  ASSERT_TRUE(bytes) << bytes.error().describe();
  auto read = readAnm(*bytes);
  ASSERT_TRUE(read) << read.error().describe();
  Rig bound;
  bound.skeleton = rig.skeleton;
  // Bound as to the DFF written from this rig: its HAnim nodes are the joints depth-first (0, 1, 2),
  // not the joint list {2, 0, 1}, and the .anm's nodes follow them (hanimNodeOrder).
  bound.skeleton.joints.clear();
  ASSERT_TRUE(bindAnimations(bound, std::move(read->animations)));
  ASSERT_EQ(bound.animations.size(), 1u);
  const Animation& back = bound.animations[0];
  EXPECT_FLOAT_EQ(back.duration, 1.0f);
  ASSERT_EQ(back.tracks.size(), 3u);  // every joint gets a node
  const std::vector<float> unionTimes = {0.0f, 0.25f, 0.5f, 1.0f};
  for (const BoneTrack& t : back.tracks) {
    EXPECT_EQ(t.rotation.times, unionTimes);
    EXPECT_EQ(t.translation.times, unionTimes);
  }
  auto find = [&](int32_t bone) -> const BoneTrack& {
    for (const BoneTrack& t : back.tracks)
      if (t.bone == bone) return t;
    ADD_FAILURE() << "no track for bone " << bone;
    return back.tracks.front();
  };
  for (const BoneTrack& original : rig.animations[0].tracks) {
    const BoneTrack& t = find(original.bone);
    for (size_t i = 0; i < original.rotation.times.size(); ++i) {
      const size_t at = static_cast<size_t>(std::find(unionTimes.begin(), unionTimes.end(), original.rotation.times[i]) - unionTimes.begin());
      expectNear(t.rotation.values[at], original.rotation.values[i], kTol, "rotation");
    }
    for (size_t i = 0; i < original.translation.times.size(); ++i) {
      const size_t at = static_cast<size_t>(std::find(unionTimes.begin(), unionTimes.end(), original.translation.times[i]) - unionTimes.begin());
      expectNear(t.translation.values[at], original.translation.values[i], kTol, "translation");
    }
  }
  // Between keys: slerp / lerp of the neighbours (t0 at 0.25 lies halfway between 0 and 0.5).
  const BoneTrack& t0 = rig.animations[0].tracks[0];
  expectNear(find(0).rotation.values[1], glm::slerp(t0.rotation.values[0], t0.rotation.values[1], 0.5f), kTol, "slerp");
  expectNear(find(0).translation.values[2], glm::vec3(0.5f, 1.0f, 1.5f), kTol, "lerp");
  // Bone 2 has no translation keys and bone 1 no track: bind pose.
  for (size_t k = 0; k < unionTimes.size(); ++k) {
    expectNear(find(2).translation.values[k], rig.skeleton.bones[2].translation, kTol, "bind translation");
    expectNear(find(1).translation.values[k], rig.skeleton.bones[1].translation, kTol, "bind translation");
    expectNear(find(1).rotation.values[k], rig.skeleton.bones[1].rotation, kTol, "bind rotation");
  }
}

TEST(RwAnm, WriterOrdersNodesAsTheDffHAnimNodesAndChainsPrevOffsets) {
  auto bytes = writeAnm(writerRig());
  ASSERT_TRUE(bytes);
  // Node 0 is the DFF writer's first HAnim node: the joints depth-first, so bone 0 (the joint list
  // {2, 0, 1} is a palette order; an .anm binds by node position, issue 27). Key 3 (t = 0.25, node 0) follows key 0 at byte offset 0,
  // key 4 follows key 1 at 36; first keys carry the junk 0xFF30C9D8.
  auto prevOf = [&](size_t key) {
    uint32_t v;
    std::memcpy(&v, bytes->data() + 12 + 20 + key * 36 + 32, 4);
    return v;
  };
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(prevOf(k), 0xFF30C9D8u);
  for (size_t k = 3; k < 12; ++k) EXPECT_EQ(prevOf(k), (k - 3) * 36);
  auto read = readAnm(*bytes);
  ASSERT_TRUE(read);
  const Rig rig = writerRig();
  expectNear(read->animations[0].tracks[0].rotation.values[0], rig.animations[0].tracks[0].rotation.values[0], kTol, "node 0 = bone 0");
}

TEST(RwAnm, WriterRefusesTracksWithoutBoneOrPosition) {
  Rig rig = writerRig();
  rig.animations[0].tracks[0].bone = -1;
  auto bytes = writeAnm(rig);
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().code, ErrorCode::Usage);
}

TEST(RwAnm, WriterRefusesResamplingBeyondItsKeyLimit) {
  // 5,000 unbound nodes each keyed at its own time: 5,000 x 5,000 resampled keys > 16 M.
  Rig rig;
  rig.provenance.axes = renderware::kRenderWareAxes;
  Animation anim;
  anim.name = "wide";
  for (uint32_t i = 0; i < 5000; ++i) {
    BoneTrack t;
    t.target.position = i;
    t.rotation.times = {static_cast<float>(i)};
    t.rotation.values = {glm::quat(1, 0, 0, 0)};
    anim.tracks.push_back(t);
  }
  rig.animations.push_back(anim);
  auto bytes = writeAnm(rig);
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().code, ErrorCode::TooLarge);
}

// ---------------------------------------------------------------------------------------------
// IFP
// ---------------------------------------------------------------------------------------------

struct IfpCase {
  const char* file;
  const char* expected;
  bool ticks;             // expected times in 1/60 s ticks (ANP3)
  bool renormalise;       // the decoder does not renormalise compressed quaternions; we do
};

const IfpCase kIfpCases[] = {
    {"synthetic_anims_anpk.ifp", "synthetic_anims_anpk.expected.json", false, false},
    {"synthetic_anims_anpk_gta3.ifp", "synthetic_anims_anpk_gta3.expected.json", false, false},
    {"synthetic_anims_anp3.ifp", "synthetic_anims_anp3.expected.json", true, true},
};

TEST(GtaIfp, ProbesEveryPackageMagic) {
  for (const IfpCase& c : kIfpCases) EXPECT_TRUE(probeIfp(sampleBytes(c.file))) << c.file;
  EXPECT_FALSE(probeIfp(sampleBytes("synthetic_skin_rw36003.anm")));
}

TEST(GtaIfp, PackagesMatchPsycrowDecoder) {
  for (const IfpCase& c : kIfpCases) {
    SCOPED_TRACE(c.file);
    auto rig = readIfp(sampleBytes(c.file));
    ASSERT_TRUE(rig) << rig.error().describe();
    const json expected = sampleJson(c.expected);
    EXPECT_EQ(rig->name, expected["package"].get<std::string>());
    EXPECT_TRUE(rig->provenance.warnings.empty());
    ASSERT_EQ(rig->animations.size(), expected["animations"].size());
    for (size_t a = 0; a < rig->animations.size(); ++a) {
      const json& ea = expected["animations"][a];
      const Animation& anim = rig->animations[a];
      EXPECT_EQ(anim.name, ea["name"].get<std::string>());
      ASSERT_EQ(anim.tracks.size(), ea["bones"].size());
      float last = 0;
      for (size_t b = 0; b < anim.tracks.size(); ++b) {
        const json& eb = ea["bones"][b];
        const BoneTrack& t = anim.tracks[b];
        const std::string what = anim.name + "/" + t.target.name;
        EXPECT_EQ(t.target.name, eb["name"].get<std::string>());
        if (eb["bone_id"].is_null()) {
          EXPECT_FALSE(t.target.id.has_value()) << what;
        } else {
          EXPECT_EQ(t.target.id, eb["bone_id"].get<uint32_t>()) << what;
        }
        const json& keys = eb["keys"];
        ASSERT_EQ(t.rotation.times.size(), keys.size()) << what;
        const bool hasT = !keys.empty() && keys[0].contains("translation");
        const bool hasS = !keys.empty() && keys[0].contains("scale");
        EXPECT_EQ(t.translation.times.size(), hasT ? keys.size() : 0u) << what;
        EXPECT_EQ(t.scale.times.size(), hasS ? keys.size() : 0u) << what;
        for (size_t k = 0; k < keys.size(); ++k) {
          const std::string key = what + " key " + std::to_string(k);
          const float time = c.ticks ? keys[k]["time"].get<float>() / 60.0f : keys[k]["time"].get<float>();
          EXPECT_NEAR(t.rotation.times[k], time, kTol) << key;
          last = std::max(last, time);
          glm::quat q = quatXyzw(keys[k]["rotation_xyzw"]);
          if (c.renormalise) q = glm::normalize(q);
          expectNear(t.rotation.values[k], q, kTol, key);
          if (hasT) {
            EXPECT_NEAR(t.translation.times[k], time, kTol) << key;
            expectNear(t.translation.values[k], vec3(keys[k]["translation"]), kTol, key);
          }
          if (hasS) expectNear(t.scale.values[k], vec3(keys[k]["scale"]), kTol, key);
        }
      }
      EXPECT_NEAR(anim.duration, last, kTol);
    }
  }
}

// Parses a librwgta convifp dump: `"pkg" n {`, `"anim" n {`, `"track" nodeId typeBits numKeys {`,
// key lines `time qx qy qz qw [tx ty tz] [sx sy sz]`, `}`.
struct ConvTrack {
  std::string name;
  int nodeId = 0;
  int typeBits = 0;
  std::vector<std::vector<float>> keys;
};
struct ConvAnim {
  std::string name;
  std::vector<ConvTrack> tracks;
};

std::vector<ConvAnim> convifpDump(const std::string& file) {
  std::vector<ConvAnim> anims;
  bool sawPackage = false;
  for (const std::string& line : sampleLines(file)) {
    const size_t q1 = line.find('"');
    if (q1 != std::string::npos) {
      const size_t q2 = line.find('"', q1 + 1);
      const std::string name = line.substr(q1 + 1, q2 - q1 - 1);
      std::istringstream s(line.substr(q2 + 1));
      std::vector<int> nums;
      for (int v; s >> v;) nums.push_back(v);
      if (!sawPackage) {
        sawPackage = true;
      } else if (nums.size() == 1) {
        anims.push_back({name, {}});
      } else if (nums.size() == 3 && !anims.empty()) {
        anims.back().tracks.push_back({name, nums[0], nums[1], {}});
      }
      continue;
    }
    std::istringstream s(line);
    std::vector<float> values;
    for (float v; s >> v;) values.push_back(v);
    if (!values.empty() && !anims.empty() && !anims.back().tracks.empty()) anims.back().tracks.back().keys.push_back(values);
  }
  return anims;
}

TEST(GtaIfp, AnpkAgreesWithConvifpDump) {
  for (const auto& [file, dump, hasId] : {std::tuple{"synthetic_anims_anpk.ifp", "synthetic_anims_anpk.convifp-dump.txt", true},
                                          std::tuple{"synthetic_anims_anpk_gta3.ifp", "synthetic_anims_anpk_gta3.convifp-dump.txt", false}}) {
    SCOPED_TRACE(file);
    auto rig = readIfp(sampleBytes(file));
    ASSERT_TRUE(rig) << rig.error().describe();
    const std::vector<ConvAnim> expected = convifpDump(dump);
    ASSERT_EQ(rig->animations.size(), expected.size());
    for (size_t a = 0; a < expected.size(); ++a) {
      ASSERT_EQ(rig->animations[a].tracks.size(), expected[a].tracks.size());
      for (size_t b = 0; b < expected[a].tracks.size(); ++b) {
        const ConvTrack& e = expected[a].tracks[b];
        const BoneTrack& t = rig->animations[a].tracks[b];
        EXPECT_EQ(t.target.name, e.name);
        // convifp prints the int at +40 as the node id for both record sizes; only 44-byte records carry one.
        if (hasId) {
          EXPECT_EQ(t.target.id, static_cast<uint32_t>(e.nodeId));
        } else {
          EXPECT_FALSE(t.target.id.has_value());
        }
        EXPECT_EQ(!t.translation.empty(), (e.typeBits & 2) != 0) << e.name;
        EXPECT_EQ(!t.scale.empty(), (e.typeBits & 4) != 0) << e.name;
        ASSERT_EQ(t.rotation.times.size(), e.keys.size());
        for (size_t k = 0; k < e.keys.size(); ++k) {
          const std::vector<float>& v = e.keys[k];
          ASSERT_EQ(v.size(), 5u + ((e.typeBits & 2) ? 3 : 0) + ((e.typeBits & 4) ? 3 : 0));
          // %g keeps 6 significant digits: values below 1 are within 5e-7.
          EXPECT_NEAR(t.rotation.times[k], v[0], kTol);
          expectNear(t.rotation.values[k], glm::quat(v[4], v[1], v[2], v[3]), kTol, e.name);
          if (e.typeBits & 2) expectNear(t.translation.values[k], glm::vec3(v[5], v[6], v[7]), kTol, e.name);
          if (e.typeBits & 4) expectNear(t.scale.values[k], glm::vec3(v[8], v[9], v[10]), kTol, e.name);
        }
      }
    }
  }
}

TEST(GtaIfp, EveryTrackBindsToTheDffSkeleton) {
  for (const IfpCase& c : kIfpCases) {
    SCOPED_TRACE(c.file);
    auto read = readIfp(sampleBytes(c.file));
    ASSERT_TRUE(read);
    size_t tracks = 0;
    for (const Animation& a : read->animations) tracks += a.tracks.size();
    Rig rig;
    rig.skeleton = dumpSkeleton();
    ASSERT_TRUE(bindAnimations(rig, read->animations));
    EXPECT_TRUE(rig.provenance.warnings.empty()) << rig.provenance.warnings[0].message;
    size_t bound = 0;
    for (const Animation& a : rig.animations) {
      for (const BoneTrack& t : a.tracks) {
        ASSERT_GE(t.bone, 0);
        EXPECT_EQ(rig.skeleton.bones[static_cast<size_t>(t.bone)].name, t.target.name);
        ++bound;
      }
    }
    EXPECT_EQ(bound, tracks);
  }
  // .anm tracks bind by node position through the joint list.
  auto anm = readAnm(sampleBytes("synthetic_skin_rw36003.anm"));
  ASSERT_TRUE(anm);
  Rig rig;
  rig.skeleton = dumpSkeleton();
  ASSERT_TRUE(bindAnimations(rig, anm->animations));
  ASSERT_EQ(rig.animations[0].tracks.size(), 6u);
  for (const BoneTrack& t : rig.animations[0].tracks) EXPECT_EQ(static_cast<uint32_t>(t.bone), rig.skeleton.joints[*t.target.position]);
}

TEST(GtaIfp, Gta3RecordsBindByNameNotByTheIntsAt40) {
  auto read = readIfp(sampleBytes("synthetic_anims_anpk_gta3.ifp"));
  ASSERT_TRUE(read);
  for (const Animation& a : read->animations)
    for (const BoneTrack& t : a.tracks) EXPECT_FALSE(t.target.id.has_value()) << t.target.name;
}

TEST(GtaIfp, AnlfWrapsSeveralAnpkPackages) {
  const std::vector<uint8_t> anpk = sampleBytes("synthetic_anims_anpk.ifp");
  ByteWriter w;
  w.fixedString("ANLF", 4);
  w.u32(static_cast<uint32_t>(4 + 2 * anpk.size()));
  w.s32(2);
  w.raw(anpk);
  w.raw(anpk);
  auto rig = readIfp(w.bytes());
  ASSERT_TRUE(rig) << rig.error().describe();
  EXPECT_EQ(rig->animations.size(), 4u);
  EXPECT_EQ(rig->animations[3].name, "rot_trans");
}

// Tagged ANPK block (§4.1) around whatever `body` writes.
template <class Body>
void block(ByteWriter& w, const char* tag, Body body) {
  w.fixedString(tag, 4);
  const size_t at = w.size();
  w.u32(0);
  body();
  w.patchU32(at, static_cast<uint32_t>(w.size() - at - 4));
}

TEST(GtaIfp, TrackWithoutKeysHasNoKeyBlock) {
  ByteWriter w;
  block(w, "ANPK", [&] {
    block(w, "INFO", [&] { w.s32(1); w.cString("pkg"); });
    block(w, "NAME", [&] { w.cString("one"); });
    block(w, "DGAN", [&] {
      block(w, "INFO", [&] { w.s32(2); w.s32(0); });
      block(w, "CPAN", [&] { block(w, "ANIM", [&] { w.fixedString("Root", 28); w.s32(0); w.s32(0); w.s32(-1); w.s32(0); }); });
      block(w, "CPAN", [&] {
        block(w, "ANIM", [&] { w.fixedString("Pelvis", 28); w.s32(1); w.s32(0); w.s32(0); w.s32(1); });
        block(w, "KR00", [&] { for (float v : {0.6f, 0.0f, 0.0f, 0.8f, 0.25f}) w.f32(v); });
      });
    });
  });
  auto rig = readIfp(w.bytes());
  ASSERT_TRUE(rig) << rig.error().describe();
  const Animation& a = rig->animations.at(0);
  ASSERT_EQ(a.tracks.size(), 2u);
  EXPECT_TRUE(a.tracks[0].rotation.empty());
  EXPECT_EQ(a.tracks[0].target.id, 0u);
  ASSERT_EQ(a.tracks[1].rotation.times.size(), 1u);
  expectNear(a.tracks[1].rotation.values[0], glm::quat(0.8f, -0.6f, 0.0f, 0.0f), kTol, "conjugated on read");
  EXPECT_FLOAT_EQ(a.duration, 0.25f);
}

// A track is read in place (ifp_anpk.cpp readTrackInPlace) unless its reading with sub-readers
// would fail; a budget refusing its key array's second charge (arrayInto's, after count()'s) or its
// first must still be that charge's error, named as the sub-readers name it: the in-place reading
// charges both at once and leaves the budget as it was when it declines.
TEST(GtaIfp, ABudgetRefusingATracksKeysNamesTheChargeItRefused) {
  ByteWriter w;
  block(w, "ANPK", [&] {
    block(w, "INFO", [&] { w.s32(1); w.cString("pkg"); });
    block(w, "NAME", [&] { w.cString("one"); });
    block(w, "DGAN", [&] {
      block(w, "INFO", [&] { w.s32(2); w.s32(0); });
      for (const char* bone : {"Root", "Pelvis"}) {
        block(w, "CPAN", [&] {
          block(w, "ANIM", [&] { w.fixedString(bone, 28); w.s32(2); w.s32(0); w.s32(1); w.s32(-1); });
          block(w, "KR00", [&] { for (float v : {0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.5f}) w.f32(v); });
        });
      }
    });
  });
  ReadContext whole;
  ASSERT_TRUE(readIfp(w.bytes(), whole));
  const uint64_t used = whole.budget().used();  // the last two charges: the Pelvis keys' 40 bytes, twice
  auto refusedAt = [&](uint64_t limit) {
    ReadOptions options;
    options.memoryLimit = limit;
    ReadContext ctx(options);
    auto clips = readIfp(w.bytes(), ctx);
    EXPECT_FALSE(clips);
    return clips ? std::string() : clips.error().path;
  };
  EXPECT_EQ(refusedAt(used - 1), "ANPK/animation[0]/DGAN/CPAN[1]/keys/keys");
  EXPECT_EQ(refusedAt(used - 41), "ANPK/animation[0]/DGAN/CPAN[1]/keys/numKeys");
}

// The in-place reading of a track (ifp_anpk.cpp readTrackInPlace) held to the rule it stands in
// for, readTrack() with its sub-readers: a package written big-endian is read by the rule alone
// (the in-place reading takes only the host's floats), and must give what the same package written
// little-endian gives, every layout, record size, key-less track and padding among them.
TEST(GtaIfp, TracksReadInPlaceMatchTheirReadingWithSubReaders) {
  auto package = [](Endian endian) {
    ByteWriter w(endian);
    auto record = [&](const char* bone, int32_t keys, std::optional<int32_t> boneId) {
      block(w, "ANIM", [&] {
        w.fixedString(bone, 28);
        w.s32(keys);
        w.s32(0);
        w.s32(keys - 1);
        if (boneId) w.s32(*boneId);
        else w.s32(0), w.s32(0);  // GTA III's 48-byte record
      });
    };
    auto keys = [&](const char* tag, int floatsPerKey, int count) {
      block(w, tag, [&] {
        for (int k = 0; k < count; ++k) {
          for (int i = 0; i < floatsPerKey; ++i) w.f32(i + 1 == floatsPerKey ? 0.25f * static_cast<float>(k) : 0.1f * static_cast<float>(i + 3 * k) - 0.4f);
        }
      });
    };
    // A block whose size is no multiple of 4, and the padding readers skip after it.
    auto padded = [&](const char* tag, auto body) {
      const size_t at = w.size();
      block(w, tag, body);
      while ((w.size() - at) % 4 != 0) w.u8(0);
    };
    block(w, "ANPK", [&] {
      padded("INFO", [&] { w.s32(2); w.cString("pk"); });  // 7 bytes
      for (const char* clip : {"walk", "run_cycle"}) {
        padded("NAME", [&] { w.cString(clip); });
        block(w, "DGAN", [&] {
          block(w, "INFO", [&] { w.s32(4); w.s32(0); });
          block(w, "CPAN", [&] { record("Root", 3, 0); keys("KRT0", 8, 3); });
          block(w, "CPAN", [&] { record("Pelvis", 2, std::nullopt); keys("KRTS", 11, 2); });
          block(w, "CPAN", [&] { record("Spine", 0, -1); });
          block(w, "CPAN", [&] { record("Head", 4, 5); keys("KR00", 5, 4); });
        });
      }
    });
    return w.bytes();
  };
  auto read = [](const std::vector<uint8_t>& bytes, Endian endian) {
    ClipSet clips;
    ByteReader r(bytes, endian);
    const Status status = renderware::ifp::readAnpk(r, clips, ReadContext());
    EXPECT_TRUE(status) << status.error().describe();
    return clips;
  };
  const ClipSet inPlace = read(package(Endian::Little), Endian::Little);
  const ClipSet rule = read(package(Endian::Big), Endian::Big);
  ASSERT_EQ(inPlace.animations.size(), 2u);
  ASSERT_EQ(rule.animations.size(), 2u);
  for (size_t a = 0; a < 2; ++a) {
    const Animation& x = inPlace.animations[a];
    const Animation& y = rule.animations[a];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.duration, y.duration);
    ASSERT_EQ(x.tracks.size(), 4u);
    ASSERT_EQ(y.tracks.size(), 4u);
    for (size_t t = 0; t < 4; ++t) {
      const BoneTrack& p = x.tracks[t];
      const BoneTrack& q = y.tracks[t];
      EXPECT_EQ(p.target.name, q.target.name);
      EXPECT_EQ(p.target.id, q.target.id);
      EXPECT_EQ(p.rotation.times, q.rotation.times);
      EXPECT_EQ(p.rotation.values, q.rotation.values);
      EXPECT_EQ(p.translation.times, q.translation.times);
      EXPECT_EQ(p.translation.values, q.translation.values);
      EXPECT_EQ(p.scale.times, q.scale.times);
      EXPECT_EQ(p.scale.values, q.scale.values);
    }
  }
  EXPECT_EQ(inPlace.animations[1].tracks[3].rotation.values.size(), 4u);
  EXPECT_EQ(inPlace.animations[0].tracks[0].target.id, 0u);
  EXPECT_FALSE(inPlace.animations[0].tracks[1].target.id.has_value());
}

// An ANPK package of `clips` animations of 32 KRT0 tracks of 30 keys (about 33 KB a clip), the
// first and last unnamed (a whole read names them after the package: "pkg_0", "pkg_1"), given
// to `out` a clip at a time.
template <class Out>
void writePackageOfClips(int clips, Out out) {
  constexpr uint32_t kClipBytes = 16 + 8 + 16 + 32 * (8 + 52 + 8 + 30 * 32);  // NAME of 8, DGAN
  ByteWriter head;
  head.fixedString("ANPK", 4);
  head.u32(16 + static_cast<uint32_t>(clips) * kClipBytes);
  block(head, "INFO", [&] { head.s32(clips); head.cString("pkg"); });
  out(head.bytes());
  for (int c = 0; c < clips; ++c) {
    ByteWriter w;
    const std::string name = c == 0 || c + 1 == clips ? "" : "clip" + std::to_string(c);
    block(w, "NAME", [&] { w.fixedString(name, 8); });  // NUL-ended, padded to 4
    block(w, "DGAN", [&] {
      block(w, "INFO", [&] { w.s32(32); w.s32(0); });
      for (int t = 0; t < 32; ++t) {
        block(w, "CPAN", [&] {
          block(w, "ANIM", [&] { w.fixedString("bone_" + std::to_string(t), 28); w.s32(30); w.s32(0); w.s32(29); w.s32(t); });
          block(w, "KRT0", [&] {
            for (int k = 0; k < 30; ++k) {
              for (float v : {0.0f, 0.0f, 0.0f, 1.0f, 0.1f * static_cast<float>(t), 0.0f, 0.0f}) w.f32(v);
              w.f32(static_cast<float>(k + c % 7) / 30.0f);
            }
          });
        });
      }
    });
    EXPECT_EQ(w.bytes().size(), kClipBytes);
    out(w.bytes());
  }
}

std::vector<uint8_t> packageOfClips(int clips) {
  std::vector<uint8_t> bytes;
  writePackageOfClips(clips, [&](const std::vector<uint8_t>& part) { bytes.insert(bytes.end(), part.begin(), part.end()); });
  return bytes;
}

// ReadOptions::animationRead: every animation is handed over as soon as it is decoded, in order,
// with its keys, and the file's bytes they came from are given back after, a MiB or more at a time
// (a call per clip made `info` 3.6 times as slow), each once; the set keeps what the callback
// leaves of each (here its name), so the read's Asset holds every animation.
TEST(GtaIfp, HandsEachAnimationOverAsDecodedAndGivesItsBytesBack) {
  const std::vector<uint8_t> bytes = packageOfClips(100);  // 2.7 MB
  std::vector<std::string> handed;
  std::vector<std::span<const uint8_t>> released;
  ReadOptions options;
  options.animationRead = [&](Animation& decoded) {
    EXPECT_EQ(decoded.tracks.size(), 32u);
    EXPECT_EQ(decoded.tracks.back().rotation.times.size(), 30u);
    handed.push_back(decoded.name);
    Animation named;
    named.name = std::move(decoded.name);
    decoded = std::move(named);
  };
  ReadContext ctx(options);
  ctx.releaseBytes = [&](std::span<const uint8_t> range) { released.push_back(range); };
  auto clips = readIfp(bytes, ctx);
  ASSERT_TRUE(clips) << clips.error().describe();
  ASSERT_EQ(handed.size(), 100u);
  EXPECT_EQ(handed[0], "");
  EXPECT_EQ(handed[42], "clip42");
  ASSERT_EQ(clips->animations.size(), 100u);
  EXPECT_EQ(clips->animations[42].name, "clip42");
  EXPECT_TRUE(clips->animations[42].tracks.empty());
  ASSERT_EQ(released.size(), 3u);
  EXPECT_EQ(released[0].data(), bytes.data() + 24);  // the first clip's NAME block, after ANPK's and INFO's
  for (size_t i = 1; i < released.size(); ++i) EXPECT_EQ(released[i].data(), released[i - 1].data() + released[i - 1].size()) << i;
  for (const auto& range : released) EXPECT_GE(range.size(), size_t{1} << 20);
  EXPECT_LE(released.back().data() + released.back().size(), bytes.data() + bytes.size());
}

// `info` counts each animation as the IFP reader hands it over (ReadOptions::animationRead), lets
// its keys go and gives its file pages back: it holds one clip, not the file's (issue 30: info's
// peak within 1.5 x the file; the 27.2 MB benchmark package 73 -> 6.5 MiB). Its summary is the whole
// read's (the unnamed clips named after the package). --skeleton reads the package whole, the decoded
// clips (about 1.4 x the file) and the file's pages held at once. Each program run counts this
// test's own size in its peak, so only the whole read is seen to pass it, by more than the file.
TEST(GtaIfp, InfoHoldsOneClipAtATimeAndPrintsTheWholeReadsSummary) {
  const std::string dir = test::scratchDir("gta_ifp_info");
  const std::string input = dir + "/many.ifp";
  {
    // Written a clip at a time: a program run starts from this test's peak (a fork copies it).
    std::ofstream file(input, std::ios::binary);
    writePackageOfClips(1000, [&](const std::vector<uint8_t>& part) {
      file.write(reinterpret_cast<const char*>(part.data()), static_cast<std::streamsize>(part.size()));
    });
  }
  Rig chain;  // the 32 bones the tracks name, for the whole read's --skeleton
  chain.provenance.axes = kRenderWareAxes;
  for (int t = 0; t < 32; ++t) {
    Bone& b = chain.skeleton.bones.emplace_back();
    b.name = "bone_" + std::to_string(t);
    b.parent = t - 1;
    b.translation = {0.0f, 0.0f, 0.1f};
    b.id = static_cast<uint32_t>(t);
  }
  const auto dff = writeDff(chain);
  ASSERT_TRUE(dff) << dff.error().describe();
  const std::string skeleton = dir + "/chain.dff";
  std::ofstream(skeleton, std::ios::binary).write(reinterpret_cast<const char*>(dff->data()), static_cast<std::streamsize>(dff->size()));
  const test::CliRun byClip = test::runCli("info --json " + test::quote(input), test::Capture::StdoutOnly);
#if defined(__linux__)
  const long byClipPeak = test::childrenPeakKib();  // the children's peak so far: info's
#endif
  const test::CliRun whole = test::runCli("info --json --skeleton " + test::quote(skeleton) + " " + test::quote(input), test::Capture::StdoutOnly);
#if defined(__linux__)
  const long wholePeak = test::childrenPeakKib();
  const auto fileKib = static_cast<long>(std::filesystem::file_size(input) / 1024);
  EXPECT_GT(wholePeak - byClipPeak, fileKib) << byClipPeak << " KiB clip by clip, " << wholePeak << " KiB whole";
#endif
  ASSERT_EQ(byClip.code, 0) << byClip.text;
  ASSERT_EQ(whole.code, 0) << whole.text;
  auto read = loadAsset(input);
  ASSERT_TRUE(read) << read.error().describe();
  ASSERT_EQ(read->clips.size(), 1u);
  const ClipSet& c = read->clips[0];
  EXPECT_EQ(c.animations.back().name, "pkg_1");
  const auto shown = json::parse(byClip.text).at(0).at("clipSets");
  ASSERT_EQ(shown.size(), 1u);
  json set = shown[0];
  set.erase("playsOn");
  EXPECT_EQ(set, json(clipSetToJson(c, countAnimations(c.animations))));
}

// ANP2 and the uncompressed ANP3 sequence types have no public ground truth (SOURCES.md): this builds
// a package from the §4.2 layout and checks the reader returns what was written.
TEST(GtaIfp, Anp2AndUncompressedSequenceTypesFollowTheLayout) {
  ByteWriter w;
  w.fixedString("ANP2", 4);
  w.u32(0);
  w.fixedString("pkg", 24);
  w.s32(1);
  w.fixedString("anim", 24);
  w.s32(2);  // sequences; ANP2 has no keyDataSize / flag
  w.fixedString("Root", 24);
  w.s32(2);  // float quat + time + translation
  w.s32(1);
  w.s32(-1);
  for (float v : {0.0f, 0.0f, 0.6f, 0.8f, 0.5f, 1.0f, 2.0f, 3.0f}) w.f32(v);
  w.fixedString("Head", 24);
  w.s32(3);  // int16 quat /4096 + ticks
  w.s32(1);
  w.s32(5);
  for (int16_t v : {0, 4096, 0, 0, 30}) w.s16(v);
  auto rig = readIfp(w.bytes());
  ASSERT_TRUE(rig) << rig.error().describe();
  ASSERT_EQ(rig->animations.size(), 1u);
  const Animation& a = rig->animations[0];
  ASSERT_EQ(a.tracks.size(), 2u);
  EXPECT_FALSE(a.tracks[0].target.id.has_value());
  EXPECT_FLOAT_EQ(a.tracks[0].rotation.times[0], 0.5f);
  expectNear(a.tracks[0].rotation.values[0], glm::quat(0.8f, 0.0f, 0.0f, 0.6f), kTol, "type 2 rotation");
  expectNear(a.tracks[0].translation.values[0], glm::vec3(1, 2, 3), kTol, "type 2 translation");
  EXPECT_EQ(a.tracks[1].target.id, 5u);
  EXPECT_NEAR(a.tracks[1].rotation.times[0], 0.5f, kTol);  // 30 ticks
  expectNear(a.tracks[1].rotation.values[0], glm::quat(0, 0, 1, 0), kTol, "type 3 rotation");
  EXPECT_TRUE(a.tracks[1].translation.empty());
}

TEST(GtaIfp, UnknownSequenceTypeIsUnsupported) {
  std::vector<uint8_t> bytes = sampleBytes("synthetic_anims_anp3.ifp");
  // First sequence type: after magic, size, name[24], numAnims, name[24], 3 ints, name[24].
  const size_t at = 8 + 24 + 4 + 24 + 12 + 24;
  const int32_t type = 7;
  std::memcpy(bytes.data() + at, &type, 4);
  auto rig = readIfp(bytes);
  ASSERT_FALSE(rig);
  EXPECT_EQ(rig.error().code, ErrorCode::Unsupported);
  EXPECT_EQ(rig.error().offset, at);
}

TEST(GtaIfp, HugeCountsAreTooLarge) {
  {
    std::vector<uint8_t> bytes = sampleBytes("synthetic_anims_anp3.ifp");
    const int32_t huge = 0x7FFFFFFF;
    std::memcpy(bytes.data() + 8 + 24, &huge, 4);  // numAnims
    auto rig = readIfp(bytes);
    ASSERT_FALSE(rig);
    EXPECT_EQ(rig.error().code, ErrorCode::TooLarge);
  }
  {
    std::vector<uint8_t> bytes = sampleBytes("synthetic_anims_anpk.ifp");
    // numKeys of the first ANIM record: find the tag, skip tag + size + name[28].
    const char* tag = "ANIM";
    auto it = std::search(bytes.begin(), bytes.end(), tag, tag + 4);
    ASSERT_NE(it, bytes.end());
    const int32_t huge = 0x7FFFFFFF;
    std::memcpy(&*(it + 8 + 28), &huge, 4);
    auto rig = readIfp(bytes);
    ASSERT_FALSE(rig);
    EXPECT_EQ(rig.error().code, ErrorCode::TooLarge);
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile input: every truncation of every sample is an error with an offset; every byte flip
// yields a value or an error, never a crash.
// ---------------------------------------------------------------------------------------------

using ClipReader = Result<ClipSet> (*)(std::span<const uint8_t>);
struct Reader {
  const char* file;
  ClipReader read;
};
constexpr ClipReader kReadAnm = readAnm;
constexpr ClipReader kReadIfp = readIfp;
const Reader kSweep[] = {
    {"synthetic_skin_rw36003.anm", kReadAnm},
    {"synthetic_skin_rw36003_compressed.anm", kReadAnm},
    {"synthetic_anims_anpk.ifp", kReadIfp},
    {"synthetic_anims_anpk_gta3.ifp", kReadIfp},
    {"synthetic_anims_anp3.ifp", kReadIfp},
};

// Runs the reader on a copy of exactly these bytes (so ASan sees over-reads) and, for .anm results,
// the writer too. Returns whether it parsed; an error must name an offset.
bool survive(const Reader& r, const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> copy(bytes);
  auto clips = r.read(copy);
  if (clips && r.read == kReadAnm) (void)writeAnm(*clips);
  if (!clips) EXPECT_TRUE(clips.error().offset.has_value()) << r.file << ": " << clips.error().describe();
  return clips.ok();
}

TEST(RwAnimHostile, TruncationAtEveryLengthFailsCleanly) {
  for (const Reader& r : kSweep) {
    const std::vector<uint8_t> bytes = sampleBytes(r.file);
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
      auto rig = r.read(cut);
      // Every sample's last bytes are key data its counts require, so no proper prefix is a file.
      ASSERT_FALSE(rig) << r.file << " cut at " << n << " was accepted";
      EXPECT_TRUE(rig.error().offset.has_value()) << r.file << " cut at " << n << ": " << rig.error().describe();
    }
    EXPECT_TRUE(survive(r, bytes)) << r.file;
  }
}

TEST(RwAnimHostile, EveryByteFlipYieldsAValueOrAnError) {
  for (const Reader& r : kSweep) {
    const std::vector<uint8_t> bytes = sampleBytes(r.file);
    size_t parsed = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (uint8_t mask : {uint8_t{0xFF}, uint8_t{0x80}, uint8_t{0x01}}) {
        std::vector<uint8_t> patched(bytes);
        patched[i] ^= mask;
        parsed += survive(r, patched) ? 1 : 0;
      }
    }
    // Most flips hit key values, which any float is valid for.
    EXPECT_GT(parsed, bytes.size()) << r.file;
  }
}

}  // namespace
