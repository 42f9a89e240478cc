// Spore (PC, "w32") meshes (issue 26, docs/spore_meshes.md). No real Spore file is committed: every
// fixture is a rig written by rigport's own writer in Spore's layout (ArenaWriteOptions::sporeMeshes),
// and some are patched by hand. Facts reproduced, measured on four real files: the mesh lives in
// VertexDescription/VertexBuffer/IndexBuffer/Mesh objects (0x20004/5/7/9), not in RenderOptiMeshData;
// three of them use a 36-byte vertex (float3 position, packed normal, packed tangent, float2 UV, byte
// blend indices, byte weights); blend indices are 3 × the bone index (they address float4 palette
// rows); the triangles are u16 triangle lists (D3DFMT_INDEX16, D3DPT_TRIANGLELIST); the creature is
// Z up; clips are known by the ids of the Animations map (0xFF0001), e.g. 0x0AC4AEED.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "core/assemble.hpp"
#include "core/hash.hpp"
#include "formats/gltf/gltf.hpp"
#include "formats/rw4/arena.hpp"
#include "formats/rw4/rw4.hpp"
#include "formats/rw4/spore_mesh_layout.hpp"
#include "platform/files.hpp"
#include "support/gltf_edit.hpp"
#include "support/gltf_pose.hpp"
#include "support/gltf_validator.hpp"
#include "support/spore_arena.hpp"
#include "support/spore_axes.hpp"
#include "support/test_support.hpp"
#include "../fuzz/downstream.hpp"

using namespace rigport;
using namespace rigport::rw4;

namespace {

using test::bone;
using test::hasWarning;
using test::kSporeAxes;
using test::parse;
using test::sporeBytes;
using test::sporeToGltf;
using test::warnings;

// A Z-up creature (root at the origin, head at z 1.6) whose mesh is a column of quads up its body,
// every vertex on two bones (0.75 / 0.25: 191 and 64 of 255), with normals and UVs, so the writer
// lays out Spore's 36-byte vertex; one clip named by its game id.
Rig creature() {
  Rig rig;
  rig.name = "creature";
  rig.provenance.axes = kSporeAxes;
  rig.skeleton.inheritScale = false;
  auto& bones = rig.skeleton.bones;
  bones.push_back(bone("root", -1, {0, 0, 0}));
  bones.push_back(bone("hips", 0, {0, 0, 0.5f}, glm::angleAxis(0.3f, glm::vec3(0, 0, 1))));
  bones.push_back(bone("spine", 1, {0, 0, 0.5f}));
  bones.push_back(bone("head", 2, {0, 0.05f, 0.6f}, glm::angleAxis(-0.2f, glm::vec3(1, 0, 0))));
  bones.push_back(bone("tail", 1, {0, 0.4f, 0}));
  Mesh mesh;
  const int rows = 5;
  mesh.influenceOffsets.push_back(0);
  for (int r = 0; r < rows; ++r) {
    const float z = 0.4f * static_cast<float>(r);
    for (int c = 0; c < 2; ++c) {
      const float x = c == 0 ? -0.2f : 0.2f;
      mesh.positions.emplace_back(x, -0.1f, z);
      mesh.normals.push_back(glm::normalize(glm::vec3(x, -1.0f, 0.1f)));
      mesh.uvs.emplace_back(static_cast<float>(c), 0.25f * static_cast<float>(r));
      const uint32_t main = static_cast<uint32_t>(std::min(r, 3)), other = r == 2 ? 4u : (main + 1) % 4;
      mesh.influences.push_back(Influence{main, 0.75f});
      mesh.influences.push_back(Influence{other, 0.25f});
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
  }
  for (uint32_t r = 0; r + 1 < rows; ++r) {
    const uint32_t a = 2 * r, b = a + 1, c = a + 2, d = a + 3;
    mesh.indices.insert(mesh.indices.end(), {a, c, b, b, c, d});
  }
  mesh.name = "body";
  rig.meshes.push_back(mesh);
  Animation clip;
  clip.name = "0x0AC4AEED";
  clip.duration = 1.0f;
  BoneTrack head;
  head.bone = 3;
  head.target.name = "head";
  head.rotation.times = {0.0f, 1.0f};
  head.rotation.values = {bones[3].rotation, glm::angleAxis(0.5f, glm::vec3(0, 1, 0))};
  clip.tracks.push_back(head);
  rig.animations.push_back(clip);
  return rig;
}

Asset readAsset(const std::vector<uint8_t>& bytes) { return test::readArenaBytes(bytes, "creature.rw4"); }
// The arena's one rig with its clips bound, as `convert` exports it.
Rig readRig(const std::vector<uint8_t>& bytes) { return test::readArenaRig(bytes, "creature.rw4"); }

// Bone world matrices of `rig` with the head (bone 3) turned to its last key, composed here from the
// source's TRS (no scale keys, so Spore's scale rule and glTF's agree).
std::vector<glm::mat4> worlds(const Rig& rig, bool posed) {
  const auto& bones = rig.skeleton.bones;
  std::vector<glm::mat4> world(bones.size());
  for (size_t b = 0; b < bones.size(); ++b) {
    const glm::quat r = posed && b == 3 ? rig.animations[0].tracks[0].rotation.values.back() : bones[b].rotation;
    const glm::mat4 local = glm::translate(glm::mat4(1.0f), bones[b].translation) * glm::mat4_cast(r);
    world[b] = bones[b].parent >= 0 ? world[static_cast<size_t>(bones[b].parent)] * local : local;
  }
  return world;
}

// Where the game skins vertex v of the source's mesh with the head turned: Σ w · W(t) · W(bind)⁻¹ · p.
glm::vec3 skinnedAtLastKey(const Rig& rig, size_t v) {
  const std::vector<glm::mat4> bind = worlds(rig, false), posed = worlds(rig, true);
  const Mesh& m = rig.meshes[0];
  glm::vec3 out(0.0f);
  for (uint32_t k = m.influenceOffsets[v]; k < m.influenceOffsets[v + 1]; ++k) {
    const Influence& i = m.influences[k];
    out += i.weight * glm::vec3(posed[i.bone] * glm::inverse(bind[i.bone]) * glm::vec4(m.positions[v], 1.0f));
  }
  return out;
}

}  // namespace

// The facts of the layout, checked on the bytes the writer lays out.
TEST(Rw4SporeMesh, WriterLaysOutSporesObjects36ByteVertexAndThreeTimesBlendIndices) {
  const Rig rig = creature();
  const std::vector<uint8_t> bytes = sporeBytes(rig);
  const test::ParsedArena p = parse(bytes);
  EXPECT_TRUE(p.rowsOf(kRenderModelData).empty());
  EXPECT_TRUE(p.rowsOf(kRenderOptiMeshData).empty());
  ASSERT_EQ(p.rowsOf(spore::kMesh).size(), 1u);
  const uint32_t meshRow = p.rowsOf(spore::kMesh)[0];
  const uint32_t vbRow = p.u32At(bytes, meshRow, spore::mesh::kHeaderSize);
  const uint32_t ibRow = p.u32At(bytes, meshRow, 8);
  ASSERT_EQ(p.arena.dictionary[vbRow].typeId, spore::kVertexBuffer);
  ASSERT_EQ(p.arena.dictionary[ibRow].typeId, spore::kIndexBuffer);
  EXPECT_EQ(p.u32At(bytes, meshRow, 4), spore::kTriangleList);
  // VertexBuffer: vertex count and the 36-byte stride; VertexDescription says 36 too.
  EXPECT_EQ(p.u32At(bytes, vbRow, 0x0C), rig.meshes[0].vertexCount());
  EXPECT_EQ(p.u32At(bytes, vbRow, 0x14), 36u);
  const uint32_t vdRow = p.u32At(bytes, vbRow, 0);
  EXPECT_EQ(bytes[p.arena.dictionary[vdRow].fileOffset + spore::vdes::kVertexSize], 36);
  // IndexBuffer: u16 triangle list, one index per corner.
  EXPECT_EQ(p.u32At(bytes, ibRow, 0x08), rig.meshes[0].indices.size());
  EXPECT_EQ(p.u32At(bytes, ibRow, 0x10), spore::ibuf::kIndex16);
  EXPECT_EQ(p.u32At(bytes, ibRow, 0x14), spore::kTriangleList);
  const uint32_t indexRow = p.u32At(bytes, ibRow, 0x18);
  EXPECT_EQ(p.arena.dictionary[indexRow].size, 2 * rig.meshes[0].indices.size());
  // Blend indices at byte 28 of each vertex: 3 × the bone of each influence, largest weight first.
  const uint32_t vertexRow = p.u32At(bytes, vbRow, 0x18);
  const uint8_t* vertices = bytes.data() + p.arena.dictionary[vertexRow].fileOffset;
  const Mesh& mesh = rig.meshes[0];
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    const uint8_t* index = vertices + 36 * v + 28;
    const uint8_t* weight = vertices + 36 * v + 32;
    EXPECT_EQ(index[0], 3 * mesh.influences[mesh.influenceOffsets[v]].bone) << v;
    EXPECT_EQ(index[1], 3 * mesh.influences[mesh.influenceOffsets[v] + 1].bone) << v;
    EXPECT_EQ(weight[0] + weight[1] + weight[2] + weight[3], 255) << v;
  }
}

TEST(Rw4SporeMesh, ReadsTheMeshSkinnedOnTheArenasSkeleton) {
  const Rig source = creature();
  const Asset asset = readAsset(sporeBytes(source));
  ASSERT_EQ(asset.rigs.size(), 1u);
  const Rig& rig = asset.rigs[0];
  EXPECT_FALSE(hasWarning(rig.provenance, "rw4-spore-mesh")) << warnings(rig.provenance);
  EXPECT_EQ(rig.provenance.axes, kSporeAxes);
  ASSERT_EQ(rig.meshes.size(), 1u);
  const Mesh& in = source.meshes[0];
  const Mesh& out = rig.meshes[0];
  ASSERT_EQ(out.vertexCount(), in.vertexCount());
  EXPECT_EQ(out.indices, in.indices);
  ASSERT_TRUE(out.skinned());
  for (size_t v = 0; v < in.vertexCount(); ++v) {
    EXPECT_EQ(out.positions[v], in.positions[v]) << v;  // float3: exact
    EXPECT_EQ(out.uvs[v], in.uvs[v]) << v;
    EXPECT_LE(glm::length(out.normals[v] - in.normals[v]), 1.5f / 127.5f) << v;  // one byte step a component
    ASSERT_EQ(out.influenceOffsets[v + 1] - out.influenceOffsets[v], 2u) << v;
    for (uint32_t k = 0; k < 2; ++k) {
      const Influence& a = in.influences[in.influenceOffsets[v] + k];
      const Influence& b = out.influences[out.influenceOffsets[v] + k];
      // Bones are read back through the skeleton's hashes as the rig's bones in its own order.
      EXPECT_EQ(rig.skeleton.bones[b.bone].nameHash.value_or(0), fnv1_32Lower(source.skeleton.bones[a.bone].name)) << v;
      EXPECT_NEAR(b.weight, a.weight, 0.5f / 255.0f) << v;
    }
  }
}

// A blend index that is no multiple of 3 addresses no bone's palette rows: it is dropped, counted,
// and the vertex follows its other influence; an index past the skeleton likewise.
TEST(Rw4SporeMesh, BlendIndexNotThreeTimesABoneIsDroppedWithAWarning) {
  const Rig source = creature();
  std::vector<uint8_t> bytes = sporeBytes(source);
  const test::ParsedArena p = parse(bytes);
  const uint32_t vbRow = p.u32At(bytes, p.rowsOf(spore::kMesh)[0], spore::mesh::kHeaderSize);
  const uint64_t vertices = p.arena.dictionary[p.u32At(bytes, vbRow, 0x18)].fileOffset;
  bytes[vertices + 36 * 0 + 28] = 4;    // vertex 0's first influence: 4 = 3 × 1 + 1
  bytes[vertices + 36 * 1 + 28] = 3 * 50;  // vertex 1's: bone 50 of 5
  const Asset asset = readAsset(bytes);
  ASSERT_EQ(asset.rigs.size(), 1u);
  const Rig& rig = asset.rigs[0];
  EXPECT_TRUE(hasWarning(rig.provenance, "rw4-spore-blend-index", "no multiple of 3")) << warnings(rig.provenance);
  EXPECT_TRUE(hasWarning(rig.provenance, "rw4-spore-blend-index", "past the skeleton's 5")) << warnings(rig.provenance);
  ASSERT_EQ(rig.meshes.size(), 1u);
  const Mesh& m = rig.meshes[0];
  for (size_t v : {0, 1}) {
    ASSERT_EQ(m.influenceOffsets[v + 1] - m.influenceOffsets[v], 1u) << v;
    EXPECT_FLOAT_EQ(m.influences[m.influenceOffsets[v]].weight, 1.0f) << v;
  }
  EXPECT_EQ(m.influenceOffsets[3] - m.influenceOffsets[2], 2u);  // the others as written
}

// A damaged object costs its mesh, not the rig: the warning names the row and the field.
TEST(Rw4SporeMesh, DamagedIndexBufferSkipsTheMeshNamingRowAndField) {
  std::vector<uint8_t> bytes = sporeBytes(creature());
  const test::ParsedArena p = parse(bytes);
  const uint32_t ibRow = p.u32At(bytes, p.rowsOf(spore::kMesh)[0], 8);
  const uint32_t bad = 999;
  std::memcpy(bytes.data() + p.arena.dictionary[ibRow].fileOffset + 0x10, &bad, 4);
  const Asset asset = readAsset(bytes);
  ASSERT_EQ(asset.rigs.size(), 1u);
  const Rig& rig = asset.rigs[0];
  EXPECT_TRUE(rig.meshes.empty());
  EXPECT_EQ(rig.skeleton.bones.size(), 5u);
  EXPECT_TRUE(hasWarning(rig.provenance, "rw4-spore-mesh", fmt::format("IndexBuffer[{}]/format", ibRow))) << warnings(rig.provenance);
  EXPECT_TRUE(hasWarning(rig.provenance, "rw4-spore-mesh", "index format 999")) << warnings(rig.provenance);
}

// Every prefix of the file and a byte flip in every object read cleanly or fail with an error.
TEST(Rw4SporeMesh, EveryTruncationAndByteFlipFailsCleanly) {
  EXPECT_GT(test::cutAndFlip(sporeBytes(creature()), 7, [](const Asset&) {}), 0u);
}

TEST(Rw4SporeMesh, ClipsKeepTheGameIdsOfTheAnimationsMap) {
  const Asset asset = readAsset(sporeBytes(creature()));
  ASSERT_EQ(asset.clips.size(), 1u);
  ASSERT_EQ(asset.clips[0].animations.size(), 1u);
  const Animation& clip = asset.clips[0].animations[0];
  EXPECT_EQ(clip.name, "0x0AC4AEED");
  EXPECT_EQ(clip.extras["rw4"]["animationId"].get<uint32_t>(), 0x0AC4AEEDu);
  // Without the map (rigport's RenderModelData layout), clips keep their row names.
  ArenaWriteOptions o;
  o.platform = Platform::Pc;
  o.animationObjects = true;
  auto bytes = writeArena(creature(), o);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  const Asset plain = readAsset(*bytes);
  ASSERT_EQ(plain.clips.size(), 1u);
  EXPECT_EQ(plain.clips[0].animations[0].name.rfind("KeyframeAnim_", 0), 0u);
}

// What a glTF client sees: validator-clean, joint world × inverse bind = identity at bind, every
// skinned vertex where the arena puts it (Spore's Z up turned to glTF's Y up), the creature standing.
TEST(Rw4SporeMesh, ExportedGlbSkinsEveryVertexWhereTheArenaPutsIt) {
  const Rig source = creature();
  const Rig rig = readRig(sporeBytes(source));
  const std::string dir = test::scratchDir("rw4_spore_mesh_glb");
  const std::string path = test::writeGlb(rig, dir + "/creature.glb");
  const test::ValidatorRun v = test::validateGltfFile(path);
  EXPECT_TRUE(v.ok) << v.output;
  const tinygltf::Model model = test::loadGlbModel(path);
  EXPECT_LT(test::worstRestPoseError(model), 1e-5f);
  test::GltfPose pose(model);
  pose.pose(-1);
  const std::vector<glm::vec3> client = pose.vertices();
  ASSERT_EQ(client.size(), source.meshes[0].vertexCount());
  float worst = 0.0f;
  for (size_t i = 0; i < client.size(); ++i) worst = std::max(worst, glm::length(client[i] - sporeToGltf(source.meshes[0].positions[i])));
  EXPECT_LT(worst, 1e-5f);
  // Standing: the top row (z 1.6 in the arena) is 1.6 above the root along glTF's +Y.
  const glm::vec3 root = pose.position(pose.node("0x" + fmt::format("{:08X}", fnv1_32Lower("root"))));
  float top = -1e9f;
  for (const glm::vec3& c : client) top = std::max(top, c.y - root.y);
  EXPECT_NEAR(top, 1.6f, 1e-5f);
  ASSERT_EQ(model.animations.size(), 1u);
  EXPECT_EQ(model.animations[0].name, "0x0AC4AEED");
  // With the clip's last key, each vertex follows its own bones (3 × bone read back as the bone);
  // the weights went through bytes (1/255), the head's vertices move by up to ~0.5.
  pose.pose(0, 1.0f);
  const std::vector<glm::vec3> moved = pose.vertices();
  float worstPosed = 0.0f, moves = 0.0f;
  for (size_t i = 0; i < moved.size(); ++i) {
    worstPosed = std::max(worstPosed, glm::length(moved[i] - sporeToGltf(skinnedAtLastKey(source, i))));
    moves = std::max(moves, glm::length(moved[i] - client[i]));
  }
  EXPECT_LT(worstPosed, 5e-3f);
  EXPECT_GT(moves, 0.1f);  // the control: the key does move vertices
}

// arena → glTF → arena → glTF gives the same glTF: the same vertices, triangles, joints, weights,
// bone names and clip, through rigport's glTF reader and the Spore writer.
TEST(Rw4SporeMesh, ArenaGltfArenaGltfIsUnchanged) {
  const std::string dir = test::scratchDir("rw4_spore_mesh_trip");
  const Rig first = readRig(sporeBytes(creature()));
  const std::string glb1 = test::writeGlb(first, dir + "/first.glb");
  const auto source = Source::fromBytes(test::readBytes(glb1), "first.glb");
  ReadContext ctx;
  auto fromGlb = gltf_in::readGltf(*source, ctx);
  ASSERT_TRUE(fromGlb.ok()) << fromGlb.error().describe();
  ASSERT_EQ(fromGlb->rigs.size(), 1u);
  const Rig second = readRig(sporeBytes(fromGlb->rigs[0]));
  const std::string glb2 = test::writeGlb(second, dir + "/second.glb");
  EXPECT_TRUE(test::validateGltfFile(glb2).ok);

  const tinygltf::Model a = test::loadGlbModel(glb1), b = test::loadGlbModel(glb2);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t n = 0; n < a.nodes.size(); ++n) EXPECT_EQ(a.nodes[n].name, b.nodes[n].name) << n;
  ASSERT_EQ(a.meshes.size(), 1u);
  ASSERT_EQ(b.meshes.size(), 1u);
  const auto& pa = a.meshes[0].primitives[0];
  const auto& pb = b.meshes[0].primitives[0];
  EXPECT_EQ(test::accessorFloats(a, pa.indices), test::accessorFloats(b, pb.indices));
  for (const char* attribute : {"POSITION", "TEXCOORD_0", "JOINTS_0", "WEIGHTS_0", "NORMAL"}) {
    const auto va = test::accessorFloats(a, pa.attributes.at(attribute));
    const auto vb = test::accessorFloats(b, pb.attributes.at(attribute));
    ASSERT_EQ(va.size(), vb.size()) << attribute;
    // Normals go through a byte a component twice (the exporter makes them unit in between).
    const float tolerance = std::string(attribute) == "NORMAL" ? 1.5f / 127.5f : 1e-6f;
    for (size_t i = 0; i < va.size(); ++i)
      for (size_t c = 0; c < va[i].size(); ++c) EXPECT_NEAR(va[i][c], vb[i][c], tolerance) << attribute << " " << i;
  }
  ASSERT_EQ(b.animations.size(), 1u);
  EXPECT_EQ(b.animations[0].name, a.animations[0].name);
  EXPECT_EQ(test::accessorFloats(a, a.skins[0].inverseBindMatrices).size(), test::accessorFloats(b, b.skins[0].inverseBindMatrices).size());
}

namespace {
// The container of an arena file (its header's platform and its dictionary).
Result<Arena> parsed(const std::vector<uint8_t>& bytes) {
  ByteReader root(bytes);
  Provenance prov;
  return parseArena(root, prov);
}
}  // namespace

// The modder's way back (issue 26): a Spore model converted to .glb and written with
// `convert --to rw4-arena` is a PC arena in Spore's own mesh objects again (the .glb's scene extras keep
// extras.rw4.platform "w32"), which reads back with the same skinned mesh; a glTF that never came from
// an arena still gives a PS3 .psg. Before, every --to rw4-arena wrote a PS3 arena, which Spore cannot load.
TEST(Rw4SporeMesh, ConvertToRw4ArenaWritesASporeModelBackAsPcArena) {
  const std::string dir = test::scratchDir("rw4_spore_mesh_back");
  const std::string model = dir + "/creature.rw4";
  ASSERT_TRUE(platform::writeFileAtomic(model, sporeBytes(creature()), platform::Overwrite::Replace).ok());
  const std::string glb = dir + "/creature.glb", back = dir + "/back.rw4";
  test::CliRun run = test::runCli(fmt::format("convert {} -o {}", test::quote(model), test::quote(glb)));
  ASSERT_EQ(run.code, 0) << run.text;
  run = test::runCli(fmt::format("convert {} --to rw4-arena -o {}", test::quote(glb), test::quote(back)));
  ASSERT_EQ(run.code, 0) << run.text;
  // Spore's rule (children do not inherit scale) is the PC arena's own: nothing to warn about, though
  // the clip's LocRotScale keys scale every bone (before, the PS3 rule's warning named 3 bones).
  EXPECT_EQ(run.text.find("their parent's scale"), std::string::npos) << run.text;
  const std::vector<uint8_t> bytes = test::readBytes(back);
  auto arena = parsed(bytes);
  ASSERT_TRUE(arena.ok()) << arena.error().describe();
  EXPECT_EQ(arena->platform->platform, Platform::Pc);
  EXPECT_TRUE(std::any_of(arena->dictionary.begin(), arena->dictionary.end(), [](const DictEntry& e) { return e.typeId == spore::kMesh; }))
      << "no Spore Mesh object (0x20009) in the written arena";
  const Rig again = readRig(bytes);
  ASSERT_EQ(again.meshes.size(), 1u);
  EXPECT_EQ(again.meshes[0].vertexCount(), creature().meshes[0].vertexCount());
  EXPECT_TRUE(again.meshes[0].skinned());

  // A glTF that was never an arena (the creature exported directly, no rw4 extras): PS3, as before.
  Rig plain = creature();
  plain.extras = nullptr;
  const std::string plainGlb = test::writeGlb(plain, dir + "/plain.glb");
  const std::string psg = dir + "/plain.psg";
  run = test::runCli(fmt::format("convert {} --to rw4-arena -o {}", test::quote(plainGlb), test::quote(psg)));
  ASSERT_EQ(run.code, 0) << run.text;
  const std::vector<uint8_t> psgBytes = test::readBytes(psg);
  auto psgArena = parsed(psgBytes);
  ASSERT_TRUE(psgArena.ok()) << psgArena.error().describe();
  EXPECT_EQ(psgArena->platform->platform, Platform::Ps3);
}

// The fuzz target's kept seeds (tests/data/fuzz/rw4_arena/: an arena in Spore's mesh layout, written
// by the writer above from creature()) take the target's path: read, export, JSON report, write in
// both layouts, read back with the same bones and meshes. The seed reaches the Spore mesh reader.
TEST(Rw4SporeMesh, FuzzSeedsReadExportAndRoundTrip) {
  const std::filesystem::path dir = std::filesystem::path(RIGPORT_SOURCE_DIR) / "tests/data/fuzz/rw4_arena";
  size_t sporeMeshes = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    SCOPED_TRACE(e.path().string());
    const Asset asset = readAsset(test::readBytes(e.path().string()));
    for (const Rig& rig : asset.rigs) {
      fuzz::exerciseDownstream(rig);
      sporeMeshes += rig.meshes.size();
      if (rig.skeleton.bones.empty()) continue;  // a finding's Skeleton of no bones: no arena holds it (the writer refuses)
      for (bool spore : {false, true}) {
        ArenaWriteOptions o;
        o.platform = spore ? Platform::Pc : Platform::Ps3;
        o.sporeMeshes = spore;
        auto bytes = writeArena(rig, o);
        ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
        const Asset back = readAsset(*bytes);
        ASSERT_EQ(back.rigs.size(), 1u);
        EXPECT_EQ(back.rigs[0].skeleton.bones.size(), rig.skeleton.bones.size());
        EXPECT_EQ(back.rigs[0].meshes.size(), rig.meshes.size());
      }
    }
  }
  EXPECT_GT(sporeMeshes, 0u);
}
