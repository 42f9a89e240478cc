// `convert --to rw4-arena --base ORIGINAL` (issue 28). No public character arena exists
// (shared/samples/rw4/SOURCES.md), so the originals are arenas rigport's writer makes: a Skate-style
// PS3 arena (big-endian; Skate's packed element types F position, CMP normal, SF uv, UB weights,
// UB256 blend indices; two islands a mesh, a Skeleton object for the parents) and a PC arena of the
// same objects (little-endian). Each goes to .glb and back onto itself byte for byte; an edit (a
// bone turned, a vertex moved, a vertex's weights) changes only the bytes of those values, which
// read back as the edit; edits the arena cannot hold at its size are refused naming object and
// field, nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <glm/gtc/quaternion.hpp>

#include "core/axes.hpp"
#include "formats/rw4/arena_places.hpp"
#include "formats/rw4/axes.hpp"
#include "formats/rw4/rw4.hpp"
#include "support/base_onto.hpp"

namespace rigport {
namespace {

enum BoneIndex : uint32_t { kHips, kSpine, kHead, kArm, kHand, kLeg };

// hips → spine → {head, arm → hand}, hips → leg. The body is weighted to every bone; the cap only to
// hips, spine and head, so its palette lacks the others.
Rig originalRig(rw4::Platform platform) {
  Rig rig;
  rig.name = "skater";
  rig.provenance.axes = rw4::axesOf(platform);
  auto bone = [&](const char* name, int32_t parent, glm::vec3 t, glm::quat r) {
    Bone b;
    b.name = name;
    b.parent = parent;
    b.translation = t;
    b.rotation = r;
    rig.skeleton.bones.push_back(b);
  };
  const glm::quat none(1, 0, 0, 0);
  bone("HIPS", -1, {0, 1, 0}, none);
  bone("SPINE", 0, {0, 0.3f, 0.05f}, glm::angleAxis(0.2f, glm::vec3(1, 0, 0)));
  bone("HEAD", 1, {0, 0.5f, 0}, none);
  bone("ARM_L", 1, {0.3f, 0.4f, 0}, glm::angleAxis(-1.2f, glm::vec3(0, 0, 1)));
  bone("HAND_L", 3, {0.4f, 0, 0}, glm::angleAxis(0.4f, glm::normalize(glm::vec3(1, 1, 0))));
  bone("LEG_R", 0, {-0.15f, -0.5f, 0}, none);
  auto mesh = [&](const char* name, int grid, uint32_t bones) {
    Mesh m;
    m.name = name;
    m.influenceOffsets.push_back(0);
    for (int y = 0; y < grid; ++y) {
      for (int x = 0; x < grid; ++x) {
        m.positions.push_back({(x - grid / 2) * 0.2f, 0.5f + y * 0.3f, 0.05f * static_cast<float>(x % 2)});
        m.normals.push_back(glm::normalize(glm::vec3(0.1f * static_cast<float>(x), 1.0f, -0.2f * static_cast<float>(y))));
        m.uvs.push_back({static_cast<float>(x) / static_cast<float>(grid), 1.0f - static_cast<float>(y) / static_cast<float>(grid)});
        const uint32_t count = 1 + static_cast<uint32_t>((x + y) % 3);
        for (uint32_t k = 0; k < count; ++k) {
          m.influences.push_back({static_cast<uint32_t>(x + 2 * y + k) % bones, (k == 0 ? 0.5f : 0.5f / static_cast<float>(count - 1))});
        }
        if (count == 1) m.influences.back().weight = 1.0f;
        m.influenceOffsets.push_back(static_cast<uint32_t>(m.influences.size()));
      }
    }
    for (uint32_t y = 0; y + 1 < static_cast<uint32_t>(grid); ++y) {
      for (uint32_t x = 0; x + 1 < static_cast<uint32_t>(grid); ++x) {
        const uint32_t a = y * grid + x, b = a + 1, c = a + grid, d = c + 1;
        m.indices.insert(m.indices.end(), {a, b, d, a, d, c});
      }
    }
    rig.meshes.push_back(std::move(m));
  };
  mesh("body", 6, 6);
  mesh("cap", 3, 3);
  return rig;
}

std::vector<uint8_t> originalArena(rw4::Platform platform) {
  rw4::ArenaWriteOptions options;
  options.platform = platform;
  options.islandsPerMesh = 2;
  auto bytes = rw4::writeArena(originalRig(platform), options);
  EXPECT_TRUE(bytes.ok()) << (bytes ? "" : bytes.error().describe());
  return bytes ? *bytes : std::vector<uint8_t>{};
}

// The original on disk and converted to a validator-clean .glb by the CLI.
test::OntoFixture fixture(const std::string& name, rw4::Platform platform = rw4::Platform::Ps3) {
  return test::ontoFixture("rw4-arena", test::scratchDir(name), platform == rw4::Platform::Pc ? "original.rw4" : "original.psg",
                           originalArena(platform));
}

Rig arenaRig(const std::vector<uint8_t>& bytes, rw4::ArenaPlaces* places = nullptr) {
  ReadContext ctx;
  auto asset = rw4::readArena(*Source::fromBytes(bytes, "arena.psg"), ctx, places);
  EXPECT_TRUE(asset.ok()) << (asset ? "" : asset.error().describe());
  return asset && !asset->rigs.empty() ? asset->rigs[0] : Rig{};
}

uint32_t fileBone(const rw4::RigPlace& place, uint32_t rigBone) {
  return static_cast<uint32_t>(std::find(place.fileToRig.begin(), place.fileToRig.end(), rigBone) - place.fileToRig.begin());
}

// The armature's rest pose edited as Blender exports it: the inverse bind matrices follow.
void rebind(Rig& rig) {
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  for (size_t b = 0; b < rig.skeleton.bones.size(); ++b) rig.skeleton.bones[b].inverseBind = glm::inverse(world[b]);
}

class Rw4Base : public testing::TestWithParam<rw4::Platform> {};

TEST_P(Rw4Base, AnUneditedRoundTripIsTheOriginalByteForByte) {
  const test::OntoFixture f = fixture(GetParam() == rw4::Platform::Pc ? "rw4_base_same_pc" : "rw4_base_same_ps3", GetParam());
  ASSERT_EQ(arenaRig(f.bytes).meshes.size(), 2u);
  const std::string out = f.dir + "/same" + (GetParam() == rw4::Platform::Pc ? ".rw4" : ".psg");
  test::expectUneditedRoundTrip(f, out);
}

// A leaf bone turned 20° changes its inverse bind matrix alone (64 bytes at most: the reader takes
// the bind pose from m_pIBPMatrices, §4.1); a vertex moved 0.1 m along x changes its F x (4 bytes).
TEST_P(Rw4Base, ATurnedBoneAndAMovedVertexChangeOnlyTheirBytes) {
  const bool pc = GetParam() == rw4::Platform::Pc;
  const test::OntoFixture f = fixture(pc ? "rw4_base_edit_pc" : "rw4_base_edit_ps3", GetParam());
  Rig rig = test::rigOf(f.glb);
  Bone& hand = rig.skeleton.bones[test::boneNamed(rig, "HAND_L")];
  hand.rotation = hand.rotation * glm::angleAxis(glm::radians(20.0f), glm::vec3(1, 0, 0));
  rebind(rig);
  constexpr uint32_t kMoved = 7;
  rig.meshes.at(0).positions.at(kMoved).x += 0.1f;
  const std::string out = f.dir + (pc ? "/edited.rw4" : "/edited.psg");
  const test::CliRun run = test::writeOnto(f, rig, out);
  ASSERT_EQ(run.code, 0) << run.text;
  const std::vector<uint8_t> after = test::readBytes(out);

  rw4::ArenaPlaces places;
  const Rig before = arenaRig(f.bytes, &places);
  ASSERT_EQ(places.rigs.size(), 1u);
  const rw4::RigPlace& place = places.rigs[0];
  std::set<size_t> allowed;
  test::addRange(allowed, place.inverseBindAt + 64 * size_t{fileBone(place, test::boneNamed(before, "HAND_L"))}, 64);
  std::set<size_t> vertex;
  const rw4::OptiMeshPlace& body = place.meshes.at(0);
  ASSERT_EQ(body.position->vertexType, rw4::kF);
  // The vertex's x in the arena's axes: glTF's x is the arena's x on both platforms (PC's Z-up
  // turn maps glTF y and z only).
  test::addRange(vertex, body.vertexAt + kMoved * body.stride + body.position->offset, 4);
  allowed.insert(vertex.begin(), vertex.end());
  const std::set<size_t> changed = test::changedBytes(f.bytes, after);
  EXPECT_TRUE(test::within(changed, allowed)) << changed.size() << " bytes changed";
  EXPECT_GE(changed.size(), 2u);
  EXPECT_TRUE(std::any_of(changed.begin(), changed.end(), [&](size_t i) { return vertex.count(i) != 0; }));

  const Rig back = arenaRig(after);
  for (size_t b = 0; b < before.skeleton.bones.size(); ++b) {
    const Bone& was = before.skeleton.bones[b];
    const Bone& now = back.skeleton.bones[b];
    EXPECT_NEAR(test::turnDegrees(was.rotation, now.rotation), was.name == "HAND_L" ? 20.0f : 0.0f, 1e-3f) << was.name;
    EXPECT_LT(glm::distance(now.translation, was.translation), 1e-5f) << was.name;
  }
  for (size_t v = 0; v < before.meshes[0].positions.size(); ++v) {
    const glm::vec3 moved = v == kMoved ? glm::vec3(0.1f, 0, 0) : glm::vec3(0);
    EXPECT_LT(glm::distance(back.meshes[0].positions[v], before.meshes[0].positions[v] + moved), 1e-6f) << "vertex " << v;
  }
  const test::CliRun same = test::runCli("compare " + test::quote(f.dir + "/edited.glb") + " " + test::quote(out));
  EXPECT_EQ(same.code, 0) << same.text;
}

INSTANTIATE_TEST_SUITE_P(Platforms, Rw4Base, testing::Values(rw4::Platform::Ps3, rw4::Platform::Pc),
                         [](const testing::TestParamInfo<rw4::Platform>& p) { return p.param == rw4::Platform::Pc ? "Pc" : "Ps3"; });

// Vertex 8 of the body (HAND_L alone) becomes 0.5 HEAD / 0.5 LEG_R: its UB256 blend indices
// take the slots of those bones in the mesh's remap table, its UB weights 128 and 127 (255 in all),
// and nothing else changes; a uv moved stays in its SF element (2 bytes).
TEST(Rw4BaseWrites, WeightsGoThroughTheRemapTable) {
  const test::OntoFixture f = fixture("rw4_base_weights");
  Rig rig = test::rigOf(f.glb);
  Mesh& body = rig.meshes.at(0);
  constexpr uint32_t kVertex = 8;
  std::vector<Influence> now = {{test::boneNamed(rig, "HEAD"), 0.5f}, {test::boneNamed(rig, "LEG_R"), 0.5f}};
  const uint32_t from = body.influenceOffsets[kVertex], to = body.influenceOffsets[kVertex + 1];
  body.influences.erase(body.influences.begin() + from, body.influences.begin() + to);
  body.influences.insert(body.influences.begin() + from, now.begin(), now.end());
  for (size_t v = kVertex + 1; v < body.influenceOffsets.size(); ++v) body.influenceOffsets[v] = body.influenceOffsets[v] - (to - from) + 2;
  body.uvs.at(3).x += 0.25f;
  const std::string out = f.dir + "/weights.psg";
  const test::CliRun run = test::writeOnto(f, rig, out);
  ASSERT_EQ(run.code, 0) << run.text;
  const std::vector<uint8_t> after = test::readBytes(out);
  rw4::ArenaPlaces places;
  const Rig before = arenaRig(f.bytes, &places);
  const rw4::OptiMeshPlace& p = places.rigs.at(0).meshes.at(0);
  ASSERT_EQ(p.indices->vertexType, rw4::kUB256);
  ASSERT_EQ(p.weights->vertexType, rw4::kUB);
  ASSERT_EQ(p.uv->vertexType, rw4::kSF);
  std::set<size_t> allowed;
  test::addRange(allowed, p.vertexAt + kVertex * p.stride + p.indices->offset, 4);
  test::addRange(allowed, p.vertexAt + kVertex * p.stride + p.weights->offset, 4);
  test::addRange(allowed, p.vertexAt + 3 * p.stride + p.uv->offset, 2);
  const std::set<size_t> changed = test::changedBytes(f.bytes, after);
  EXPECT_TRUE(test::within(changed, allowed)) << changed.size() << " bytes changed";
  const uint8_t* w = after.data() + p.vertexAt + kVertex * p.stride + p.weights->offset;
  EXPECT_EQ(w[0] + w[1] + w[2] + w[3], 255);
  const Rig back = arenaRig(after);
  const Mesh& m = back.meshes.at(0);
  ASSERT_EQ(m.influenceOffsets[kVertex + 1] - m.influenceOffsets[kVertex], 2u);
  for (uint32_t i = m.influenceOffsets[kVertex]; i < m.influenceOffsets[kVertex + 1]; ++i) {
    const std::string& name = back.skeleton.bones[m.influences[i].bone].name;
    EXPECT_TRUE(name == "HEAD" || name == "LEG_R") << name;
    EXPECT_NEAR(m.influences[i].weight, 0.5f, 0.5f / 255 + 1e-6f);
  }
  EXPECT_NEAR(back.meshes[0].uvs[3].x, before.meshes[0].uvs[3].x + 0.25f, 1e-3f);  // half's step at 0.25..0.5 is 2^-12
}

// RenderModelData keeps its bone names as C strings in a pool (§4.1): a new name that fits the old
// one's bytes is written there, NUL-filled, and no other byte of the arena changes.
TEST(Rw4BaseWrites, ARenameThatFitsItsSlotInTheNamePoolChangesOnlyThatSlot) {
  const test::OntoFixture f = fixture("rw4_base_rename");
  rw4::ArenaPlaces places;
  arenaRig(f.bytes, &places);
  const rw4::NameSlot slot = places.rigs.at(0).nameSlots.at(fileBone(places.rigs.at(0), kHead));
  ASSERT_EQ(std::string(f.bytes.begin() + slot.at, f.bytes.begin() + slot.at + 5), std::string("HEAD\0", 5));
  for (const std::string name : {"SKUL", "HD"}) {
    SCOPED_TRACE(name);
    Rig rig = test::rigOf(f.glb);
    rig.skeleton.bones[test::boneNamed(rig, "HEAD")].name = name;
    const std::string out = f.dir + "/" + name + ".psg";
    const test::CliRun run = test::writeOnto(f, rig, out);
    ASSERT_EQ(run.code, 0) << run.text;
    const std::vector<uint8_t> written = test::readBytes(out);
    std::set<size_t> slotBytes;
    test::addRange(slotBytes, slot.at, 4);
    const std::set<size_t> changed = test::changedBytes(f.bytes, written);
    EXPECT_TRUE(test::within(changed, slotBytes));
    EXPECT_EQ(changed.size(), name == "SKUL" ? 4u : 3u);  // "HD\0\0": the D lands on the old D
    std::string pooled(written.begin() + slot.at, written.begin() + slot.at + 5);
    EXPECT_EQ(pooled, name + std::string(5 - name.size(), '\0'));
    const Rig before = arenaRig(f.bytes), after = arenaRig(written);
    ASSERT_EQ(after.skeleton.bones.size(), before.skeleton.bones.size());
    for (size_t b = 0; b < before.skeleton.bones.size(); ++b) {
      EXPECT_EQ(after.skeleton.bones[b].name, before.skeleton.bones[b].name == "HEAD" ? name : before.skeleton.bones[b].name);
    }
  }
}

TEST(Rw4BaseWrites, WhatTheArenaCannotHoldAtItsSizeIsRefused) {
  const test::OntoFixture f = fixture("rw4_base_refused");
  rw4::ArenaPlaces places;
  arenaRig(f.bytes, &places);
  const rw4::RigPlace& place = places.rigs.at(0);
  const std::string model = fmt::format("RenderModelData[{}]", place.row);
  const std::string body = fmt::format("RenderOptiMeshData[{}]", place.meshes.at(0).row);
  const std::string cap = fmt::format("RenderOptiMeshData[{}]", place.meshes.at(1).row);
  const std::string out = f.dir + "/refused.psg";
  auto refused = [&](auto edit, const std::vector<std::string>& words) {
    Rig rig = test::rigOf(f.glb);
    edit(rig);
    test::expectRefused(test::writeOnto(f, rig, out), out, words);
  };
  refused([](Rig& r) {
    Bone extra;
    extra.name = "EXTRA";
    extra.parent = 0;
    r.skeleton.bones.push_back(extra);
  }, {model + "/m_iNumBones", "7 bones, the original 6"});
  // The name pool packs "HEAD\0" between SPINE and ARM_L: a fifth character would move ARM_L's.
  refused([](Rig& r) { r.skeleton.bones[test::boneNamed(r, "HEAD")].name = "SKULL"; },
          {model + "/bone[", "]/name", "'HEAD' is renamed 'SKULL'", "room for 4 characters"});
  refused([](Rig& r) { r.skeleton.bones[test::boneNamed(r, "HEAD")].name = "SPINE"; }, {model + "/bone[", "]/name", "another bone too"});
  refused([](Rig& r) { r.skeleton.bones[test::boneNamed(r, "LEG_R")].parent = static_cast<int32_t>(test::boneNamed(r, "SPINE")); },
          {"/parent", "'LEG_R' hangs under 'SPINE'"});
  refused([](Rig& r) { r.meshes.pop_back(); }, {model + "/m_iNumMeshes", "1 meshes, the original 2"});
  refused([](Rig& r) {
    Mesh& m = r.meshes.at(1);
    m.positions.push_back(m.positions[0]);
    m.normals.push_back(m.normals[0]);
    m.uvs.push_back(m.uvs[0]);
    m.influences.push_back(m.influences[0]);
    m.influenceOffsets.push_back(m.influenceOffsets.back() + 1);
  }, {cap + "/m_uiNumVerts", "10 vertices, the original 9"});
  refused([](Rig& r) { std::swap(r.meshes.at(0).indices[3], r.meshes.at(0).indices[4]); }, {"IndexBuffer[", "triangle 1"});
  refused([](Rig& r) { r.meshes.at(0).uvs.at(2).y = 1e6f; }, {body + "/tex0[2].y", "SF", "-65504 to 65504"});
  refused([](Rig& r) {  // the cap's palette holds HIPS, SPINE and HEAD only
    Mesh& m = r.meshes.at(1);
    m.influences[m.influenceOffsets[0]].bone = test::boneNamed(r, "HAND_L");
  }, {cap + "/m_pRemapTable", "vertex 0", "'HAND_L'"});
}

}  // namespace
}  // namespace rigport

namespace rigport {
namespace {

// Spore's own layout (docs/spore_meshes.md): the same rig as Spore's models carry it, a Skeleton,
// an AnimationSkin (the bind pose, §5) and one VertexBuffer of the add-on's 36-byte vertex a mesh
// (FLOAT3 position, UBYTE4 packed normal and tangent, FLOAT2 uv, UBYTE4 blend indices 3 × bone,
// UBYTE4N weights); the rig read from it is the Skeleton's, its bones named by their hashes.
test::OntoFixture sporeFixture(const std::string& name) {
  rw4::ArenaWriteOptions options;
  options.platform = rw4::Platform::Pc;
  options.sporeMeshes = true;
  auto bytes = rw4::writeArena(originalRig(rw4::Platform::Pc), options);
  EXPECT_TRUE(bytes.ok()) << (bytes ? "" : bytes.error().describe());
  return test::ontoFixture("rw4-arena", test::scratchDir(name), "creature.rw4", bytes ? *bytes : std::vector<uint8_t>{});
}

TEST(Rw4BaseSpore, AnUneditedRoundTripIsTheOriginalByteForByte) {
  const test::OntoFixture f = sporeFixture("rw4_base_spore_same");
  rw4::ArenaPlaces places;
  const Rig read = arenaRig(f.bytes, &places);
  ASSERT_EQ(read.meshes.size(), 2u);
  ASSERT_EQ(places.rigs.size(), 1u);
  EXPECT_FALSE(places.rigs[0].modelData);
  EXPECT_EQ(places.rigs[0].sporeMeshes.size(), 2u);
  const std::string out = f.dir + "/same.rw4";
  test::expectUneditedRoundTrip(f, out);
}

// A leaf bone turned 20° changes its AnimationSkin record's 12 matrix floats (48 of its 64 bytes:
// the padding words are not read, so kept); a vertex moved along x its FLOAT3 x (4 bytes); a normal
// turned its three UBYTE4 bytes; a vertex reweighted its UBYTE4 indices and UBYTE4N weights.
TEST(Rw4BaseSpore, EditsChangeOnlyTheirBytes) {
  const test::OntoFixture f = sporeFixture("rw4_base_spore_edit");
  rw4::ArenaPlaces places;
  const Rig before = arenaRig(f.bytes, &places);
  const rw4::RigPlace& place = places.rigs.at(0);
  const rw4::SporeMeshPlace& body = place.sporeMeshes.at(0);
  Rig rig = test::rigOf(f.glb);
  const std::string handName = before.skeleton.bones[kHand].name;  // a hash: "0x%08X"
  Bone& hand = rig.skeleton.bones[test::boneNamed(rig, handName)];
  hand.rotation = hand.rotation * glm::angleAxis(glm::radians(20.0f), glm::vec3(1, 0, 0));
  rebind(rig);
  Mesh& m = rig.meshes.at(0);
  m.positions.at(7).x += 0.1f;
  m.normals.at(9) = glm::normalize(m.normals.at(9) + glm::vec3(0.5f, 0, 0));
  constexpr uint32_t kVertex = 8;
  for (uint32_t i = m.influenceOffsets[kVertex]; i < m.influenceOffsets[kVertex + 1]; ++i) m.influences[i].bone = test::boneNamed(rig, before.skeleton.bones[kHead].name);
  const std::string out = f.dir + "/edited.rw4";
  const test::CliRun run = test::writeOnto(f, rig, out);
  ASSERT_EQ(run.code, 0) << run.text;
  const std::vector<uint8_t> after = test::readBytes(out);

  std::set<size_t> allowed;
  const size_t record = place.inverseBindAt + 64 * size_t{fileBone(place, kHand)};
  for (size_t k = 0; k < 16; ++k) {
    if (k % 4 != 3) test::addRange(allowed, record + 4 * k, 4);
  }
  const size_t vertexAt = body.vertexAt;
  test::addRange(allowed, vertexAt + 7 * body.stride + body.position->offset, 4);
  test::addRange(allowed, vertexAt + 9 * body.stride + body.normal->offset, 3);
  test::addRange(allowed, vertexAt + kVertex * body.stride + body.indices->offset, 4);
  test::addRange(allowed, vertexAt + kVertex * body.stride + body.weights->offset, 4);
  const std::set<size_t> changed = test::changedBytes(f.bytes, after);
  EXPECT_TRUE(test::within(changed, allowed)) << changed.size() << " bytes changed";
  EXPECT_GE(changed.size(), 4u);

  Rig back = arenaRig(after);
  for (size_t b = 0; b < before.skeleton.bones.size(); ++b) {
    EXPECT_NEAR(test::turnDegrees(before.skeleton.bones[b].rotation, back.skeleton.bones[b].rotation), b == kHand ? 20.0f : 0.0f, 1e-3f) << b;
  }
  EXPECT_NEAR(back.meshes[0].positions[7].x, before.meshes[0].positions[7].x + 0.1f, 1e-6f);
  convertAxes(back, AxisSystem{});  // the edit's normal is glTF's
  EXPECT_LT(glm::distance(back.meshes[0].normals[9], m.normals[9]), 1.0f / 127.5f);
  const Mesh& w = back.meshes[0];
  ASSERT_EQ(w.influenceOffsets[kVertex + 1] - w.influenceOffsets[kVertex], 1u);
  EXPECT_EQ(w.influences[w.influenceOffsets[kVertex]].bone, static_cast<uint32_t>(kHead));
  const test::CliRun same = test::runCli("compare " + test::quote(f.dir + "/edited.glb") + " " + test::quote(out));
  EXPECT_EQ(same.code, 0) << same.text;
}

TEST(Rw4BaseSpore, WhatTheArenaCannotHoldAtItsSizeIsRefused) {
  const test::OntoFixture f = sporeFixture("rw4_base_spore_refused");
  rw4::ArenaPlaces places;
  arenaRig(f.bytes, &places);
  const std::string skeleton = fmt::format("Skeleton[{}]", places.rigs.at(0).row);
  const std::string cap = fmt::format("VertexBuffer[{}]", places.rigs.at(0).sporeMeshes.at(1).row);
  const std::string out = f.dir + "/refused.rw4";
  auto refused = [&](auto edit, const std::vector<std::string>& words) {
    Rig rig = test::rigOf(f.glb);
    edit(rig);
    test::expectRefused(test::writeOnto(f, rig, out), out, words);
  };
  refused([](Rig& r) {
    Bone extra;
    extra.name = "EXTRA";
    extra.parent = 0;
    r.skeleton.bones.push_back(extra);
  }, {skeleton + "/count", "7 bones, the original 6"});
  refused([](Rig& r) { r.skeleton.bones[kLeg].parent = kSpine; }, {skeleton + "/bone[", "/parent"});
  refused([](Rig& r) { r.skeleton.bones[kHead].name = "Skull"; }, {skeleton + "/bone[", "]/name", "is renamed 'Skull'", "name hashes only"});
  refused([](Rig& r) { std::swap(r.meshes.at(1).indices[0], r.meshes.at(1).indices[1]); }, {cap + "/Mesh", "triangle 0"});
  refused([](Rig& r) {
    Mesh& m = r.meshes.at(1);
    m.positions.push_back(m.positions[0]);
    m.normals.push_back(m.normals[0]);
    m.uvs.push_back(m.uvs[0]);
    m.influences.push_back(m.influences[0]);
    m.influenceOffsets.push_back(m.influenceOffsets.back() + 1);
  }, {cap + "/vertexCount", "10 vertices, the original 9"});
}

}  // namespace
}  // namespace rigport
