// The glTF JSON as the exporter streams it (export/gltf_json.hpp): every float the model holds is
// written as the shortest text that reads back to that float32 ("0.1", not the double it widens
// to, "0.10000000149011612"), so a reader that takes the number as a double and narrows it to
// float, as tinygltf and the validator do, gets the model's value back exactly; text that is not
// UTF-8 is mended as nlohmann's dump mended it; and exports that share a skeleton, a clip's
// channels and samplers or the scene's extras through an ExportCache give the bytes each gives alone.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <glm/gtc/quaternion.hpp>
#include <nlohmann/json.hpp>

#include "core/rig_copy.hpp"
#include "export/gltf.hpp"
#include "export/gltf_document.hpp"
#include "export/gltf_json.hpp"
#include "support/gltf_validator.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

// Floats whose double text is long, a float that needs all 9 digits, tiny, huge and negative ones.
constexpr float kAwkward[] = {0.1f, 1.0f / 3.0f, 16777216.0f, 1e-7f, 3.0e20f, -2.5e-5f, 0.7f, 123.456f, 1.17549435e-38f};

Rig awkwardRig() {
  Rig rig;
  rig.name = "Awkward";
  rig.provenance.format = "test";
  for (size_t i = 0; i < 3; ++i) {
    Bone b;
    b.name = "bone" + std::to_string(i);
    b.parent = static_cast<int32_t>(i) - 1;
    b.translation = {kAwkward[i * 3 % 9], kAwkward[(i * 3 + 1) % 9], kAwkward[(i * 3 + 2) % 9]};
    b.rotation = glm::normalize(glm::quat(0.3f, 0.1f * static_cast<float>(i + 1), 0.7f, 0.2f));
    b.scale = {1.1f, 0.9f, 1.0f / 3.0f};
    b.nameHash = 0x1234567u + i;
    b.nameHashKind = HashKind::Fnv1_32Lower;
    b.extras = {{"gameValue", static_cast<double>(0.3f)}, {"exactDouble", 0.1}};
    rig.skeleton.bones.push_back(b);
  }
  Animation a;
  a.name = "Clip";
  a.duration = 1.1f;
  BoneTrack t;
  t.bone = 1;
  t.translation.times = {0.1f, 1.0f / 3.0f, 1.1f};
  t.translation.values = {{0.1f, 0.2f, 0.3f}, {1.0f / 3.0f, 0.7f, -2.5e-5f}, {123.456f, 1e-7f, 0.0f}};
  a.tracks.push_back(t);
  a.events.push_back({1.0f / 3.0f, "step", ""});
  a.scalars.push_back({"blink", "morph:Blink", Keys<float>{{0.1f, 0.7f}, {1.0f / 3.0f, 0.9f}}});
  rig.animations.push_back(a);
  return rig;
}

// Records the text of every number with a fraction or exponent (nlohmann's number_float).
struct FloatTexts : nlohmann::json_sax<nlohmann::json> {
  std::vector<std::string> texts;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t& s) override {
    texts.push_back(s);
    return true;
  }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

// Significant digits of a JSON number's text: leading zeros, sign, point and exponent left out.
size_t significantDigits(const std::string& text) {
  std::string digits;
  for (const char c : text.substr(0, text.find_first_of("eE"))) {
    if (c >= '0' && c <= '9') digits += c;
  }
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 1;
  const size_t last = digits.find_last_not_of('0');
  return last - first + 1;
}

// The JSON chunk of a .glb.
std::string jsonChunk(const std::vector<uint8_t>& glb) {
  uint32_t length = 0;
  std::memcpy(&length, glb.data() + 12, 4);
  return std::string(reinterpret_cast<const char*>(glb.data()) + 20, length);
}

float asFloat(const nlohmann::json& number) { return static_cast<float>(number.get<double>()); }

TEST(GltfJson, EveryFloatIsTheShortestTextThatReadsBackToThatFloat) {
  auto glb = exportGlb(awkwardRig());
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  FloatTexts sax;
  ASSERT_TRUE(nlohmann::json::sax_parse(jsonChunk(*glb), &sax));
  ASSERT_GT(sax.texts.size(), 40u);
  for (const std::string& text : sax.texts) {
    const float value = std::strtof(text.c_str(), nullptr);
    ASSERT_TRUE(std::isfinite(value)) << text;
    char shortest[32];
    const auto end = std::to_chars(shortest, shortest + sizeof shortest, value).ptr;
    EXPECT_EQ(significantDigits(text), significantDigits(std::string(shortest, end))) << text << " reads back as " << std::string(shortest, end);
  }
}

TEST(GltfJson, AReaderNarrowingEachNumberToFloatGetsTheModelsValues) {
  const Rig rig = awkwardRig();
  auto glb = exportGlb(rig);
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  const nlohmann::json doc = nlohmann::json::parse(jsonChunk(*glb));
  const nlohmann::json& nodes = doc["nodes"];
  for (size_t i = 0; i < rig.skeleton.bones.size(); ++i) {
    const Bone& b = rig.skeleton.bones[i];
    const nlohmann::json& n = nodes[i];
    ASSERT_EQ(n["name"], b.name);
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(asFloat(n["translation"][c]), b.translation[c]) << i << " " << c;
      EXPECT_EQ(asFloat(n["scale"][c]), b.scale[c]) << i << " " << c;
    }
    // The exporter renormalises rotations in double (gltf_nodes.cpp); the same here.
    const glm::dvec4 q(b.rotation.x, b.rotation.y, b.rotation.z, b.rotation.w);
    const glm::vec4 r(q / glm::length(q));
    for (int c = 0; c < 4; ++c) EXPECT_EQ(asFloat(n["rotation"][c]), r[c]) << i << " " << c;
    // A float the model's extras widened to double reads back as that float; a double that is no
    // float reads back as that double.
    EXPECT_EQ(asFloat(n["extras"]["gameValue"]), 0.3f);
    EXPECT_EQ(n["extras"]["exactDouble"].get<double>(), 0.1);
    EXPECT_EQ(n["extras"]["nameHash"].get<uint64_t>(), *b.nameHash);
  }
  const Animation& a = rig.animations[0];
  const nlohmann::json& extras = doc["animations"][0]["extras"];
  EXPECT_EQ(asFloat(extras["duration"]), a.duration);
  EXPECT_EQ(asFloat(extras["events"][0]["time"]), a.events[0].time);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(asFloat(extras["scalarChannels"][0]["times"][k]), a.scalars[0].keys.times[k]) << k;
    EXPECT_EQ(asFloat(extras["scalarChannels"][0]["values"][k]), a.scalars[0].keys.values[k]) << k;
  }
  // The time accessor's bounds are its first and last key.
  const nlohmann::json& sampler = doc["animations"][0]["samplers"][0];
  const nlohmann::json& times = doc["accessors"][sampler["input"].get<size_t>()];
  EXPECT_EQ(asFloat(times["min"][0]), a.tracks[0].translation.times.front());
  EXPECT_EQ(asFloat(times["max"][0]), a.tracks[0].translation.times.back());
}

TEST(GltfJson, WholeFloatsStayJsonFloats) {
  Rig rig = awkwardRig();
  rig.skeleton.bones[0].translation = {2.0f, 0.0f, -3.0f};
  auto glb = exportGlb(rig);
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  const std::string json = jsonChunk(*glb);
  EXPECT_NE(json.find("\"translation\":[2.0,0.0,-3.0]"), std::string::npos) << json.substr(0, 600);
  EXPECT_TRUE(nlohmann::json::parse(json)["nodes"][0]["translation"][0].is_number_float());
}

TEST(GltfJson, ShortFloatsPassTheValidator) {
  auto glb = exportGlb(awkwardRig());
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  const std::string path = test::scratchDir("gltf_json") + "/awkward.glb";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(glb->data(), 1, glb->size(), f), glb->size());
  std::fclose(f);
  const test::ValidatorRun run = test::validateGltfFile(path);
  EXPECT_TRUE(run.ok) << run.output;
}

// A literal key is put whole while RapidJSON is told of it by a RawValue of no text
// (JsonWriter::verbatim); RapidJSON must still write the comma before each key, the colon after it
// and count it, first in an object, after a number, a string, an array, a raw value and a nested
// object. The same members written with checked keys (Key(), which RapidJSON writes itself) must
// give the same text, and that text must be the expected JSON.
template <class PutKey>
std::string membersWith(PutKey&& key) {
  std::string out;
  {
    gltf::JsonWriter w(out);
    w.startObject();
    key(w, "first");
    w.uint(1);
    key(w, "second");
    w.string("two");
    key(w, "list");
    w.uints(std::vector<uint32_t>{3, 4});
    key(w, "record");
    w.raw("{\"five\":5}");
    key(w, "nested");
    w.startObject();
    key(w, "inner");
    w.boolean(true);
    key(w, "after");
    w.number(0.5f);
    w.endObject();
    key(w, "last");
    w.integer(-6);
    w.endObject();
  }
  return out;
}

TEST(GltfJson, LiteralAndCheckedKeysGiveTheSameText) {
  // The literal overload: key(const char (&)[N]) goes through verbatim; a string_view through Key().
  const std::string literal = membersWith([](gltf::JsonWriter& w, const auto& k) { w.key(k); });
  const std::string checked = membersWith([](gltf::JsonWriter& w, const auto& k) { w.key(std::string_view(k)); });
  EXPECT_EQ(literal, R"({"first":1,"second":"two","list":[3,4],"record":{"five":5},"nested":{"inner":true,"after":0.5},"last":-6})");
  EXPECT_EQ(literal, checked);
}

// Bytes that are not UTF-8 become U+FFFD, one per maximal bad subpart, exactly as nlohmann's dump
// with error_handler_t::replace made them before the exporter streamed its JSON.
TEST(GltfJson, BadUtf8IsMendedAsNlohmannMendedIt) {
  const std::string cases[] = {"plain", "caf\xC3\xA9", "\xFF", "a\xE0\x80z", "\xED\xA0\x80", "\xF0\x9F\x98", "\xC3", "x\xF4\x90\x80\x80y",
                               "\xE2\x82\xAC\x80\xE2\x82", "tab\tquote\"slash\\", "\xC0\xAF"};
  for (const std::string& s : cases) {
    std::string ours;
    gltf::JsonWriter w(ours);
    w.string(s);
    const std::string theirs = nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    EXPECT_EQ(nlohmann::json::parse(ours), nlohmann::json::parse(theirs)) << ours << " vs " << theirs;
  }
}

std::vector<uint8_t> joined(const GlbParts& parts) {
  std::vector<uint8_t> bytes;
  for (std::span<const uint8_t> piece : parts.pieces()) bytes.insert(bytes.end(), piece.begin(), piece.end());
  return bytes;
}

// A package's clips, each exported on its own copy of the rig through one cache: the bytes each
// gives alone. A rig that differs in one bone, in its ground lift or in a mesh riding on a bone is
// not given the cached nodes.
TEST(GltfJson, ExportsSharingACacheGiveTheBytesOfEachAlone) {
  const Rig base = awkwardRig();
  std::vector<std::pair<Rig, GltfOptions>> exports;
  for (int i = 0; i < 3; ++i) {
    Rig clip = base;
    clip.animations[0].name = "Clip" + std::to_string(i);
    clip.animations[0].tracks[0].translation.values[1].x += static_cast<float>(i);
    exports.emplace_back(clip, GltfOptions{});
  }
  Rig moved = base;
  moved.skeleton.bones[2].translation.y = 0.5f;
  exports.emplace_back(moved, GltfOptions{});
  GltfOptions lifted;
  lifted.groundLift = 0.25f;
  exports.emplace_back(base, lifted);
  Rig withMesh = base;
  Mesh mesh;
  mesh.name = "prop";
  mesh.positions = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}};
  mesh.indices = {0, 1, 2};
  mesh.attachBone = 1;
  withMesh.meshes.push_back(mesh);
  exports.emplace_back(withMesh, GltfOptions{});
  exports.emplace_back(base, GltfOptions{});

  ExportCache cache;
  for (size_t i = 0; i < exports.size(); ++i) {
    auto alone = exportGlb(exports[i].first, exports[i].second);
    ASSERT_TRUE(alone.ok()) << alone.error().describe();
    auto shared = exportGlbParts(Rig(exports[i].first), exports[i].second, &cache);
    ASSERT_TRUE(shared.ok()) << shared.error().describe();
    EXPECT_EQ(joined(*shared), *alone) << "export " << i;
    ASSERT_NE(cache.part, nullptr);
  }
  // The mesh riding on bone 1 is that bone's child, whether the nodes came from the cache or not.
  auto glb = exportGlbParts(Rig(withMesh), GltfOptions{}, &cache);
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  const nlohmann::json doc = nlohmann::json::parse(glb->jsonText());
  EXPECT_EQ(doc["nodes"][1]["children"], nlohmann::json({2, 3}));
  EXPECT_EQ(doc["nodes"][3]["name"], "prop");
  // The mesh's node keeps the members in the order the exporter gave them, as every tree does.
  const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(glb->jsonText());
  EXPECT_EQ(ordered["nodes"][3].begin().key(), "name");
  EXPECT_EQ(ordered["meshes"][0]["primitives"][0].items().begin().key(), "attributes");
  EXPECT_EQ(ordered["meshes"][0]["primitives"][0].back(), ordered["meshes"][0]["primitives"][0]["material"]);
}

// The channels and samplers a clip's export writes are kept in the cache as text for the next clip
// with the same records: a clip animating another bone, another key set, at another interpolation,
// or with its time accessors elsewhere in the buffer (a second clip in the file) gets its own text,
// the bytes it gives alone; and the cache keeps the text for the clip after it.
TEST(GltfJson, ExportsSharingACacheWriteEachClipsOwnChannelsAndSamplers) {
  const Rig base = awkwardRig();
  std::vector<Rig> clips(7, base);
  clips[1].animations[0].tracks[0].bone = 2;  // another node
  clips[2].animations[0].tracks[0].rotation.times = {0.0f, 1.0f};  // a second sampler and channel
  clips[2].animations[0].tracks[0].rotation.values = {glm::quat(1, 0, 0, 0), glm::normalize(glm::quat(0.5f, 0.5f, 0, 0))};
  clips[3].animations[0].tracks[0].translation.interpolation = Interpolation::Step;  // another sampler text
  clips[4].animations.push_back(clips[2].animations[0]);  // the second clip's samplers read later accessors
  clips[4].animations[1].name = "Second";
  clips[5].animations[0].tracks[0].translation.times = {0.0f, 0.5f, 1.1f};  // other bounds, the same records
  ExportCache cache;
  for (size_t i = 0; i < clips.size(); ++i) {
    auto alone = exportGlb(clips[i]);
    ASSERT_TRUE(alone.ok()) << alone.error().describe();
    auto shared = exportGlbParts(Rig(clips[i]), GltfOptions{}, &cache);
    ASSERT_TRUE(shared.ok()) << shared.error().describe();
    EXPECT_EQ(joined(*shared), *alone) << "clip " << i;
    ASSERT_NE(cache.records, nullptr) << "clip " << i;
    const nlohmann::json doc = nlohmann::json::parse(shared->jsonText());
    EXPECT_EQ(nlohmann::json::parse(cache.records->channelsJson), doc["animations"].back()["channels"]) << "clip " << i;
    EXPECT_EQ(nlohmann::json::parse(cache.records->samplersJson), doc["animations"].back()["samplers"]) << "clip " << i;
  }
  EXPECT_EQ(nlohmann::json::parse(cache.records->channelsJson)[0]["target"]["node"], 1);
}

// The skin's text is kept with the cached skeleton part and reused by the exports that share it:
// a skeleton with other extras, joints in another order or scale not inherited gets its own, the
// bytes it gives alone; so do extras that JSON's equality takes for the last ones (1 and 1.0, 0.0
// and -0.0), on the skeleton (in the skin's text) or on a bone (in the nodes' text): the part is
// reused only for a skeleton whose extras are written alike (writtenAlike(), core/rig_copy.hpp).
TEST(GltfJson, ExportsSharingACacheWriteEachSkeletonsOwnSkin) {
  const Rig base = awkwardRig();
  std::vector<Rig> rigs(10, base);
  rigs[1].skeleton.extras = {{"game", 1}};
  rigs[2].skeleton.extras = {{"game", 1.0}};
  rigs[3].skeleton.joints = {2, 1, 0};
  rigs[4].skeleton.inheritScale = false;
  rigs[6].skeleton.bones[1].extras = {{"flag", 1}};
  rigs[7].skeleton.bones[1].extras = {{"flag", 1.0}};
  rigs[8].skeleton.bones[1].extras = {{"flag", 0.0}};
  rigs[9].skeleton.bones[1].extras = {{"flag", -0.0}};
  ExportCache cache;
  for (size_t i = 0; i < rigs.size(); ++i) {
    auto alone = exportGlb(rigs[i]);
    ASSERT_TRUE(alone.ok()) << alone.error().describe();
    auto shared = exportGlbParts(Rig(rigs[i]), GltfOptions{}, &cache);
    ASSERT_TRUE(shared.ok()) << shared.error().describe();
    EXPECT_EQ(joined(*shared), *alone) << "rig " << i;
    ASSERT_NE(cache.part, nullptr) << "rig " << i;
    ASSERT_FALSE(cache.part->skinJson.empty()) << "rig " << i;
    EXPECT_EQ(nlohmann::json::parse(cache.part->skinJson), nlohmann::json::parse(shared->jsonText())["skins"][0]) << "rig " << i;
  }
}

// JSON written alike is text written alike: the same types, floats of the same bits, members in
// the same order, where JSON's equality takes 1 for 1.0 and -0.0 for 0.0.
TEST(GltfJson, WrittenAlikeIsTheSameText) {
  using nlohmann::json;
  EXPECT_TRUE(writtenAlike(json{{"a", 1}, {"b", {0.5, "x", nullptr}}}, json{{"a", 1}, {"b", {0.5, "x", nullptr}}}));
  EXPECT_FALSE(writtenAlike(json(1), json(1.0)));
  EXPECT_FALSE(writtenAlike(json(0.0), json(-0.0)));
  EXPECT_FALSE(writtenAlike(json{{"a", {1, 2}}}, json{{"a", {1, 2.0}}}));
  EXPECT_FALSE(writtenAlike(json{1, 2}, json{1, 2, 3}));
  EXPECT_FALSE(writtenAlike(json{{"a", 1}}, json{{"b", 1}}));
}

// The scene's extras (the rig's) are kept in the cache as text and reused for the next rig whose
// extras are written alike: extras that JSON's equality calls equal but that are written
// differently (1 and 1.0, 0.0 and -0.0) or that differ get their own, the bytes each gives alone.
TEST(GltfJson, ExportsSharingACacheWriteEachRigsOwnSceneExtras) {
  const Rig base = awkwardRig();
  const nlohmann::json extras[] = {{{"game", {{"major", 4}, {"list", {1, 2}}}}},
                                   {{"game", {{"major", 4}, {"list", {1, 2}}}}},
                                   {{"game", {{"major", 4.0}, {"list", {1, 2}}}}},
                                   {{"game", {{"major", 4.0}, {"list", {1, 2.5}}}}},
                                   {{"game", {{"major", -0.0}, {"list", {1, 2.5}}}}},
                                   {{"game", {{"major", 0.0}, {"list", {1, 2.5}}}}},
                                   nullptr,
                                   {{"game", "other"}}};
  ExportCache cache;
  for (size_t i = 0; i < std::size(extras); ++i) {
    Rig rig = base;
    rig.extras = extras[i];
    auto alone = exportGlb(rig);
    ASSERT_TRUE(alone.ok()) << alone.error().describe();
    auto shared = exportGlbParts(Rig(rig), GltfOptions{}, &cache);
    ASSERT_TRUE(shared.ok()) << shared.error().describe();
    EXPECT_EQ(joined(*shared), *alone) << "rig " << i;
    if (!rig.extras.is_null()) EXPECT_EQ(nlohmann::json::parse(cache.sceneExtrasJson), rig.extras) << "rig " << i;
  }
}

}  // namespace
}  // namespace rigport
