// `convert --to sluggers-model --base ORIGINAL` (issue 28). The original is a block rigport's writer
// makes (no public sample exists, sluggers.md §10) with what rigport does not model added by hand: a
// TEX section of one I8 texture (tests' GX builder), a facial-pose section of bytes rigport does not
// read, one bone's control turned into a 3×4 matrix and one into an Euler control (§4), a rigid
// mesh stored as u16. It goes to .glb and back onto itself byte for byte; an edit (a bone turned 20°,
// a vertex moved 0.1 m, a vertex's weights, a rigid vertex) changes only the bytes of those values,
// compared section by section, and reads back as the edit within the arrays' quantisation step.
// Edits the block cannot hold at its size are refused, naming the section and field, nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <glm/gtc/quaternion.hpp>

#include "formats/sluggers/model_places.hpp"
#include "formats/sluggers/sluggers.hpp"
#include "support/base_onto.hpp"
#include "support/gx_builder.hpp"

namespace rigport {
namespace {

uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
  return (uint32_t(b[at]) << 24) | (uint32_t(b[at + 1]) << 16) | (uint32_t(b[at + 2]) << 8) | b[at + 3];
}
void putBe32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}
void putF32(std::vector<uint8_t>& b, size_t at, float v) { putBe32(b, at, std::bit_cast<uint32_t>(v)); }

enum BoneIndex : uint32_t { kRoot, kSpine, kLeg, kArm, kHead };

// root → spine → {arm, head}, root → leg; every coordinate within ±2, so the skinned array is s16
// with 14 fractional bits (the writer takes the most that fit, §6).
Rig originalRig() {
  Rig rig;
  rig.name = "slugger";
  auto bone = [&](const char* name, int32_t parent, glm::vec3 t, glm::quat r) {
    Bone b;
    b.name = name;
    b.parent = parent;
    b.translation = t;
    b.rotation = r;
    rig.skeleton.bones.push_back(b);
  };
  const glm::quat none(1, 0, 0, 0);
  bone("root", -1, {0, 0, 0}, none);
  bone("spine", 0, {0, 0.5f, 0}, glm::angleAxis(0.2f, glm::vec3(0, 0, 1)));
  bone("leg", 0, {0.2f, -0.6f, 0}, none);
  bone("arm", 1, {0.3f, 0.4f, 0}, glm::angleAxis(-0.5f, glm::vec3(0, 0, 1)));
  bone("head", 1, {0, 0.5f, 0}, glm::angleAxis(0.3f, glm::vec3(0, 1, 0)));
  Mesh body;
  body.name = "body";
  body.influenceOffsets.push_back(0);
  auto vertex = [&](std::vector<Influence> influences) {
    const float v = static_cast<float>(body.positions.size());
    body.positions.emplace_back(0.1f * std::sin(v), 0.15f * v - 0.5f, 0.05f * std::cos(v));
    body.normals.push_back(glm::normalize(glm::vec3(std::sin(0.7f * v), std::cos(0.7f * v), 0.4f)));
    body.uvs.emplace_back(0.05f * v, 1.0f - 0.03f * v);
    body.influences.insert(body.influences.end(), influences.begin(), influences.end());
    body.influenceOffsets.push_back(static_cast<uint32_t>(body.influences.size()));
  };
  for (int i = 0; i < 5; ++i) vertex({{kSpine, 1.0f}});                          // an SK1 run
  for (int i = 0; i < 4; ++i) vertex({{kSpine, 0.75f}, {kArm, 0.25f}});          // an SK2 run
  for (int i = 0; i < 3; ++i) vertex({{kRoot, 0.5f}, {kSpine, 0.25f}, {kLeg, 0.25f}});  // SKAcc
  for (uint32_t v = 0; v + 2 < body.positions.size(); ++v) body.indices.insert(body.indices.end(), {v, v + 1, v + 2});
  rig.meshes.push_back(body);
  Mesh bat;
  bat.name = "bat";
  bat.attachBone = kArm;
  for (int i = 0; i < 4; ++i) {
    const float f = static_cast<float>(i);
    bat.positions.emplace_back(0.1f + 0.2f * f, 0.05f * f, 0.3f);
    bat.normals.push_back(glm::normalize(glm::vec3(1.0f + f, 2.0f, 0.5f * f)));
  }
  bat.indices = {0, 1, 2, 1, 3, 2};
  rig.meshes.push_back(bat);
  return rig;
}

// The ACT offset of bone t's control (§4: the first word of its record).
size_t controlOf(const std::vector<uint8_t>& block, uint32_t t) {
  const size_t act = be32(block, 0x08);
  return act + be32(block, act + 0x20 + t * 0x1C);
}

// The original: the writer's block, the bat stored as u16; the head's control rewritten as the
// same pose in a 3×4 matrix (type 0x10), the leg's marked Euler | translation (0x0A, its rotation the
// identity the reader takes it for); a TEX section and a facial-pose section after the SKN.
std::vector<uint8_t> originalBlock() {
  const Rig rig = originalRig();
  sluggers::ModelWriteOptions options;
  options.positions = sluggers::GxType::U16;
  auto written = sluggers::writeModel(rig, options);
  EXPECT_TRUE(written.ok()) << written.error().describe();
  std::vector<uint8_t> block = *written;
  const size_t head = controlOf(block, kHead);
  const glm::mat4 m = rig.skeleton.bones[kHead].localMatrix();
  block[head] = 0x10;
  for (int row = 0; row < 3; ++row)
    for (int col = 0; col < 4; ++col) putF32(block, head + 4 + 4 * static_cast<size_t>(row * 4 + col), m[col][row]);
  block[controlOf(block, kLeg)] = 0x0A;
  test::TexEntry tex{1, 8, 4, test::gxTiles(1, 8, 4, std::vector<uint32_t>(32, 0x80)), {}, 0, -1};
  block = test::withTex(block, test::writeTex({tex}));
  const size_t facial = block.size();
  for (size_t i = 0; i < 64; ++i) block.push_back(static_cast<uint8_t>(i * 29 + 7));
  putBe32(block, 0x18, static_cast<uint32_t>(facial));
  return block;
}

// The block's sections by their header pointers (§2), each running to the next section's start.
std::map<std::string, std::vector<uint8_t>> sections(const std::vector<uint8_t>& block) {
  const std::map<size_t, std::string> names = {{0x04, "GPL"}, {0x08, "ACT"}, {0x0C, "TEX"}, {0x10, "SKN"}, {0x18, "facial"}};
  std::map<size_t, std::string> starts = {{0, "header"}};
  for (const auto& [field, name] : names) {
    if (be32(block, field) != 0) starts[be32(block, field)] = name;
  }
  std::map<std::string, std::vector<uint8_t>> out;
  for (auto it = starts.begin(); it != starts.end(); ++it) {
    const size_t end = std::next(it) == starts.end() ? block.size() : std::next(it)->first;
    out[it->second] = std::vector<uint8_t>(block.begin() + static_cast<std::ptrdiff_t>(it->first), block.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return out;
}

std::vector<std::string> changedSections(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  std::vector<std::string> out;
  const auto sa = sections(a), sb = sections(b);
  EXPECT_EQ(sa.size(), sb.size());
  for (const auto& [name, bytes] : sa) {
    if (sb.count(name) == 0 || sb.at(name) != bytes) out.push_back(name);
  }
  return out;
}

// The original on disk and converted to a validator-clean .glb by the CLI.
test::OntoFixture fixture(const std::string& name) {
  return test::ontoFixture("sluggers-model", test::scratchDir(name), "original.sluggers", originalBlock());
}

Rig blockRig(const std::vector<uint8_t>& bytes, sluggers::ModelPlaces* places = nullptr) {
  ReadContext ctx;
  auto rig = sluggers::readModel(bytes, ctx, places);
  EXPECT_TRUE(rig.ok()) << (rig ? "" : rig.error().describe());
  return rig ? *rig : Rig{};
}

TEST(SluggersBase, AnUneditedRoundTripIsTheOriginalByteForByte) {
  const test::OntoFixture f = fixture("sluggers_base_same");
  const Rig read = blockRig(f.bytes);
  ASSERT_EQ(read.meshes.size(), 2u);
  EXPECT_LT(test::turnDegrees(read.skeleton.bones[kHead].rotation, glm::angleAxis(0.3f, glm::vec3(0, 1, 0))), 1e-3f)
      << "the matrix control reads as the same pose";
  const std::string out = f.dir + "/same.sluggers";
  test::expectUneditedRoundTrip(f, out);
}

TEST(SluggersBase, ATurnedBoneAndAMovedVertexChangeOnlyTheirBytes) {
  const test::OntoFixture f = fixture("sluggers_base_edit");
  Rig rig = test::rigOf(f.glb);
  Bone& spine = rig.skeleton.bones[test::boneNamed(rig, "spine")];
  spine.rotation = spine.rotation * glm::angleAxis(glm::radians(20.0f), glm::vec3(1, 0, 0));
  // The armature's rest pose edited as Blender exports it: the inverse bind matrices follow (a
  // block stores none: the reader derives them from the SRTs, §4).
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  for (size_t b = 0; b < rig.skeleton.bones.size(); ++b) rig.skeleton.bones[b].inverseBind = glm::inverse(world[b]);
  constexpr uint32_t kMoved = 6;  // an SK2 vertex: its slot has two records sharing one source
  rig.meshes.at(0).positions.at(kMoved) += glm::vec3(0.0f, 0.1f, 0.0f);
  const std::string out = f.dir + "/edited.sluggers";
  const test::CliRun run = test::writeOnto(f, rig, out);
  ASSERT_EQ(run.code, 0) << run.text;
  const std::vector<uint8_t> after = test::readBytes(out);

  EXPECT_EQ(changedSections(f.bytes, after), (std::vector<std::string>{"ACT", "GPL", "SKN"}));
  // ACT: the spine control's quaternion (§4, +0x10..+0x20) and nothing else.
  std::set<size_t> allowed;
  test::addRange(allowed, controlOf(f.bytes, kSpine) + 0x10, 16);
  // GPL: the vertex's position (s16 x, y, z: 6 bytes, §3); SKN: its source's position (§6).
  sluggers::ModelPlaces places;
  const Rig before = blockRig(f.bytes, &places);
  const sluggers::GplArray& positions = places.meshes.at(0).position;
  EXPECT_EQ(positions.quantizeInfo, 0x3E) << "s16, 14 fractional bits";
  test::addRange(allowed, positions.offset + kMoved * positions.stride, 6);
  size_t sources = 0;
  for (const sluggers::SkinRecord& r : places.skin.records) {
    if (r.vertex != kMoved) continue;
    test::addRange(allowed, places.skin.section + r.source, 6);
    ++sources;
  }
  EXPECT_EQ(sources, 2u);
  const std::set<size_t> changed = test::changedBytes(f.bytes, after);
  EXPECT_TRUE(test::within(changed, allowed)) << changed.size() << " bytes changed";
  EXPECT_GE(changed.size(), 3u);

  // Read back: the spine turned by 20°, every other bone as it was; the vertex moved by 0.1 m
  // within half a step of s16 with 14 fractional bits, every other vertex as it was.
  const Rig back = blockRig(after);
  for (size_t b = 0; b < before.skeleton.bones.size(); ++b) {
    const Bone& was = before.skeleton.bones[b];
    const Bone& now = back.skeleton.bones[b];
    EXPECT_NEAR(test::turnDegrees(was.rotation, now.rotation), b == kSpine ? 20.0f : 0.0f, 1e-3f) << was.name;
    EXPECT_EQ(now.translation, was.translation) << was.name;
  }
  const float halfStep = std::ldexp(1.0f, -14) / 2;
  for (size_t v = 0; v < before.meshes[0].positions.size(); ++v) {
    const glm::vec3 want = before.meshes[0].positions[v] + (v == kMoved ? glm::vec3(0, 0.1f, 0) : glm::vec3(0));
    const glm::vec3 got = back.meshes[0].positions[v];
    EXPECT_LE(glm::length(got - want), v == kMoved ? std::sqrt(3.0f) * halfStep : 0.0f) << "vertex " << v;
  }
  const test::CliRun same = test::runCli("compare " + test::quote(f.dir + "/edited.glb") + " " + test::quote(out));
  EXPECT_EQ(same.code, 0) << same.text;
}

TEST(SluggersBase, ControlsKeepTheirOwnForm) {
  const test::OntoFixture f = fixture("sluggers_base_controls");
  Rig rig = test::rigOf(f.glb);
  // The head's matrix control takes the turned pose as a matrix; the leg's Euler control takes a
  // new translation at +0x20 and keeps its type and (ignored) rotation bytes.
  Bone& head = rig.skeleton.bones[test::boneNamed(rig, "head")];
  head.rotation = head.rotation * glm::angleAxis(glm::radians(20.0f), glm::vec3(0, 0, 1));
  rig.skeleton.bones[test::boneNamed(rig, "leg")].translation += glm::vec3(0.0f, 0.0f, 0.05f);
  const std::string out = f.dir + "/controls.sluggers";
  const test::CliRun run = test::writeOnto(f, rig, out);
  ASSERT_EQ(run.code, 0) << run.text;
  const std::vector<uint8_t> after = test::readBytes(out);
  EXPECT_EQ(changedSections(f.bytes, after), (std::vector<std::string>{"ACT"}));
  const size_t headAt = controlOf(f.bytes, kHead), legAt = controlOf(f.bytes, kLeg);
  std::set<size_t> allowed;
  test::addRange(allowed, headAt + 4, 48);
  test::addRange(allowed, legAt + 0x20, 12);
  EXPECT_TRUE(test::within(test::changedBytes(f.bytes, after), allowed));
  EXPECT_EQ(after[headAt], 0x10);
  EXPECT_EQ(after[legAt], 0x0A);
  const Rig back = blockRig(after);
  EXPECT_NEAR(test::turnDegrees(blockRig(f.bytes).skeleton.bones[kHead].rotation, back.skeleton.bones[kHead].rotation), 20.0f, 1e-3f);
  EXPECT_LT(glm::distance(back.skeleton.bones[kLeg].translation, glm::vec3(0.2f, -0.6f, 0.05f)), 1e-6f);
}

TEST(SluggersBase, WeightsAndRigidVerticesAreWrittenInTheirOwnBytes) {
  const test::OntoFixture f = fixture("sluggers_base_weights");
  Rig rig = test::rigOf(f.glb);
  Mesh& body = rig.meshes.at(0);
  // Vertex 5 (SK2 spine 0.75 / arm 0.25) becomes 0.5 / 0.5.
  for (uint32_t i = body.influenceOffsets[5]; i < body.influenceOffsets[6]; ++i) body.influences[i].weight = 0.5f;
  // The bat's vertex 1 moves 0.1 m along x: u16 with 15 fractional bits (0 to 1.99997).
  rig.meshes.at(1).positions.at(1).x += 0.1f;
  const std::string out = f.dir + "/weights.sluggers";
  const test::CliRun run = test::writeOnto(f, rig, out);
  ASSERT_EQ(run.code, 0) << run.text;
  const std::vector<uint8_t> after = test::readBytes(out);
  EXPECT_EQ(changedSections(f.bytes, after), (std::vector<std::string>{"GPL", "SKN"}));
  sluggers::ModelPlaces places;
  const Rig before = blockRig(f.bytes, &places);
  std::set<size_t> allowed;
  for (size_t j = 0; j < places.skin.records.size(); ++j) {
    if (places.skin.records[j].vertex == 5) allowed.insert(places.skin.section + places.skin.where[j].weightAt);
  }
  ASSERT_EQ(allowed.size(), 2u);
  const sluggers::GplArray& bat = places.meshes.at(1).position;
  EXPECT_EQ(bat.quantizeInfo, 0x2F) << "u16, 15 fractional bits";
  test::addRange(allowed, bat.offset + 1 * bat.stride, 2);  // x only
  EXPECT_TRUE(test::within(test::changedBytes(f.bytes, after), allowed));
  const Rig back = blockRig(after);
  const Mesh& m = back.meshes.at(0);
  ASSERT_EQ(m.influenceOffsets[6] - m.influenceOffsets[5], 2u);
  for (uint32_t i = m.influenceOffsets[5]; i < m.influenceOffsets[6]; ++i) EXPECT_EQ(m.influences[i].weight, 0.5f);
  EXPECT_LE(std::fabs(back.meshes[1].positions[1].x - before.meshes[1].positions[1].x - 0.1f), std::ldexp(1.0f, -15) / 2 + 1e-7f);
}

TEST(SluggersBase, WhatTheBlockCannotHoldAtItsSizeIsRefused) {
  const test::OntoFixture f = fixture("sluggers_base_refused");
  const std::string out = f.dir + "/refused.sluggers";
  auto refused = [&](auto edit, const std::vector<std::string>& words) {
    Rig rig = test::rigOf(f.glb);
    edit(rig);
    test::expectRefused(test::writeOnto(f, rig, out), out, words);
  };
  refused([](Rig& r) {
    Bone extra;
    extra.name = "extra";
    extra.parent = 0;
    r.skeleton.bones.push_back(extra);
  }, {"ACT/boneCount", "6 bones, the original 5"});
  refused([](Rig& r) { r.skeleton.bones[test::boneNamed(r, "arm")].name = "hand"; }, {"ACT/bone[3]", "'arm' is renamed 'hand'", "a block stores no bone names"});
  refused([](Rig& r) { r.skeleton.bones[test::boneNamed(r, "leg")].parent = static_cast<int32_t>(test::boneNamed(r, "spine")); },
          {"ACT/bone[2]/parent", "'leg' hangs under 'spine'"});
  refused([](Rig& r) {
    Bone& leg = r.skeleton.bones[test::boneNamed(r, "leg")];
    leg.rotation = glm::angleAxis(0.5f, glm::vec3(1, 0, 0));
  }, {"ACT/bone[2]/orientation", "Euler"});
  refused([](Rig& r) { r.meshes.at(0).positions.at(2).y += 5.0f; }, {"GPL/mesh[0]/position[2].y", "s16 with 14 fractional bits", "-2 to 1.99"});
  refused([](Rig& r) { r.meshes.at(1).positions.at(0).x = -0.5f; }, {"GPL/mesh[1]/position[0].x", "u16 with 15 fractional bits", "0 to 1.99"});
  refused([](Rig& r) { std::swap(r.meshes.at(0).indices[0], r.meshes.at(0).indices[1]); }, {"GPL/mesh[0]/display", "triangle 0"});
  refused([](Rig& r) { r.meshes.at(1).name = "club"; }, {"GPL/mesh[1]/name", "'club'"});
  refused([](Rig& r) {
    Mesh& m = r.meshes.at(1);
    m.positions.push_back(m.positions[0]);
    m.normals.push_back(m.normals[0]);
  }, {"GPL/mesh[1]/position", "5 vertices, the original 4"});
  refused([](Rig& r) {  // vertex 0 is in an SK1 run: its one bone and full weight are the entry's
    Mesh& m = r.meshes.at(0);
    m.influences[m.influenceOffsets[0]].bone = test::boneNamed(r, "arm");
  }, {"SKN/SK1[0]", "vertex 0"});
  refused([](Rig& r) {  // vertex 5's records name spine and arm only
    Mesh& m = r.meshes.at(0);
    m.influences[m.influenceOffsets[5]].bone = test::boneNamed(r, "head");
  }, {"SKN", "vertex 5", "'head'"});
}

// Fact (sluggers.md §3): a texcoord array may store one component an element (compCount 1), which
// the reader reads as u with v 0. An edit of v there cannot be written: refused, naming the
// element's v (before, the patcher wrote u alone and dropped v without a word). The fixture is the
// original with its body's uv header patched to compCount 1 (u then reads every other stored value).
TEST(SluggersBase, AnEditOfAComponentTheArrayDoesNotStoreIsRefused) {
  test::OntoFixture f = fixture("sluggers_base_uv1");
  sluggers::ModelPlaces places;
  blockRig(f.bytes, &places);
  ASSERT_FALSE(places.meshes.empty());
  const sluggers::GplArray& uv = places.meshes[0].uv;
  ASSERT_EQ(uv.components, 2u);
  // The attribute header {array ptr, u16 count, quantizeInfo, compCount}: its last three fields.
  const std::array<uint8_t, 4> header{static_cast<uint8_t>(uv.count >> 8), static_cast<uint8_t>(uv.count), uv.quantizeInfo, 2};
  std::vector<size_t> at;
  for (size_t i = 0; i + header.size() <= f.bytes.size(); ++i) {
    if (std::equal(header.begin(), header.end(), f.bytes.begin() + static_cast<std::ptrdiff_t>(i))) at.push_back(i);
  }
  ASSERT_EQ(at.size(), 1u) << "the body's uv header is not found once";
  f.bytes[at[0] + 3] = 1;
  sluggers::ModelPlaces patched;
  ASSERT_EQ(blockRig(f.bytes, &patched).meshes.size(), 2u);
  ASSERT_EQ(patched.meshes[0].uv.components, 1u);
  test::writeFile(f.original, f.bytes);
  const test::CliRun toGlb = test::runCli("convert " + test::quote(f.original) + " -o " + test::quote(f.glb) + " --overwrite");
  ASSERT_EQ(toGlb.code, 0) << toGlb.text;
  const std::string out = f.dir + "/uv1.sluggers";
  Rig unedited = test::rigOf(f.glb);
  const test::CliRun same = test::writeOnto(f, unedited, out);
  ASSERT_EQ(same.code, 0) << same.text;
  EXPECT_EQ(test::readBytes(out), f.bytes) << "v 0 everywhere: nothing to refuse, the block unchanged";
  std::remove(out.c_str());
  Rig edited = unedited;
  edited.meshes.at(0).uvs.at(0).y += 0.25f;
  test::expectRefused(test::writeOnto(f, edited, out), out, {"GPL/mesh[0]/texcoord[0][0].y", "1 component(s)"});
}

// The fuzz target's --base check (fuzz/sluggers_model_fuzz.cpp) on every saved seed: a block's rig
// written onto the block itself changes no byte. The original above is one of the seeds.
TEST(SluggersBase, EverySeedWrittenOntoItselfIsUnchanged) {
  test::expectKeptSeed("sluggers_model/seed-base-controls-tex-facial.sluggers", originalBlock());
  size_t read = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(RIGPORT_SOURCE_DIR) + "/tests/data/fuzz/sluggers_model")) {
    SCOPED_TRACE(e.path().string());
    const std::vector<uint8_t> bytes = test::readBytes(e.path().string());
    auto rig = sluggers::readModel(bytes);
    if (!rig) continue;
    ++read;
    ReadContext ctx;
    auto onto = sluggers::writeModelOnto(*rig, *Source::fromBytes(bytes, "seed"), ctx);
    ASSERT_TRUE(onto.ok()) << onto.error().describe();
    EXPECT_EQ(*onto, bytes);
  }
  EXPECT_GE(read, 3u);
}

}  // namespace
}  // namespace rigport
