// `convert --to renderware-dff --base ORIGINAL` (issue 28). Every DFF sample (librw-written: generic
// 3.3 and 3.6, WDGL and Xbox native) goes to .glb and back onto itself byte for byte. An edit made
// to the .glb's rig (one bone turned with the inverse bind matrices following it, one vertex moved;
// a vertex weighted to a node the skin did not use; a triangle's corners turned) reads back as that
// edit alone, and every chunk it did not touch is byte-identical to the original's. Edits the
// original's other chunks cannot follow are refused, nothing written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>

#include <glm/gtc/quaternion.hpp>

#include "formats/renderware/dff_onto.hpp"
#include "formats/renderware/renderware.hpp"
#include "support/base_onto.hpp"

namespace rigport {
namespace {

const char* const kSamples[] = {"synthetic_skin_rw33002", "synthetic_skin_rw36003", "synthetic_skin_rw36003_wdgl_native",
                                "synthetic_skin_rw36003_xbox_native"};

std::string dffSample(const std::string& name) { return test::sample("renderware/" + name + ".dff"); }

// Chunks that hold chunks (renderware.md §1.2); every other chunk is a leaf compared whole.
bool holdsChunks(uint32_t type) {
  switch (type) {
    case 0x10: case 0x0E: case 0x1A: case 0x0F: case 0x14: case 0x03: case 0x08: case 0x07: case 0x06:
      return true;
    default:
      return false;
  }
}

// Every leaf chunk, header included, by its path ("Clump/GeometryList/Geometry[0]/Struct" with type
// ids), and, when asked, every chunk holding chunks: its header.
void leaves(const std::vector<uint8_t>& file, size_t begin, size_t end, const std::string& path, std::map<std::string, std::vector<uint8_t>>& out,
            std::map<std::string, std::vector<uint8_t>>* holders = nullptr) {
  std::map<uint32_t, int> seen;
  for (size_t at = begin; at + 12 <= end;) {
    uint32_t type = 0, size = 0;
    std::memcpy(&type, &file[at], 4);
    std::memcpy(&size, &file[at + 4], 4);
    ASSERT_LE(at + 12 + size, end) << path;
    const std::string here = path + "/" + std::to_string(type) + "[" + std::to_string(seen[type]++) + "]";
    if (holdsChunks(type)) {
      if (holders != nullptr) (*holders)[here] = std::vector<uint8_t>(file.begin() + static_cast<std::ptrdiff_t>(at), file.begin() + static_cast<std::ptrdiff_t>(at + 12));
      leaves(file, at + 12, at + 12 + size, here, out, holders);
    } else {
      out[here] = std::vector<uint8_t>(file.begin() + static_cast<std::ptrdiff_t>(at), file.begin() + static_cast<std::ptrdiff_t>(at + 12 + size));
    }
    at += 12 + size;
  }
}

// The leaves whose bytes differ between two DFFs of the same chunk tree.
std::vector<std::string> changedLeaves(const std::string& a, const std::string& b) {
  const std::vector<uint8_t> x = test::readBytes(a), y = test::readBytes(b);
  std::map<std::string, std::vector<uint8_t>> lx, ly;
  leaves(x, 0, x.size(), "", lx);
  leaves(y, 0, y.size(), "", ly);
  std::vector<std::string> out;
  EXPECT_EQ(lx.size(), ly.size());
  for (const auto& [path, bytes] : lx) {
    const auto it = ly.find(path);
    if (it == ly.end()) {
      ADD_FAILURE() << path << " is missing from " << b;
    } else if (it->second != bytes) {
      out.push_back(path);
    }
  }
  return out;
}

constexpr const char* kFrameListStruct = "/16[0]/14[0]/1[0]";
constexpr const char* kGeometryStruct = "/16[0]/26[0]/15[0]/1[0]";
constexpr const char* kSkinPlg = "/16[0]/26[0]/15[0]/3[0]/278[0]";
constexpr const char* kBinMesh = "/16[0]/26[0]/15[0]/3[0]/1294[0]";

// The sample and its .glb (rigport's export, checked by the validator) in `dir`.
test::OntoFixture dffFixture(const std::string& dir, const std::string& name) { return test::ontoFixture("renderware-dff", dir, dffSample(name)); }

Rig dffRig(const std::string& path) {
  auto rig = renderware::readDff(test::readBytes(path));
  EXPECT_TRUE(rig.ok()) << (rig ? "" : rig.error().describe());
  return rig ? *rig : Rig{};
}

TEST(RenderWareBase, AnUneditedRoundTripIsTheOriginalByteForByte) {
  const std::string dir = test::scratchDir("renderware_base_same");
  for (const char* name : kSamples) {
    SCOPED_TRACE(name);
    test::expectUneditedRoundTrip(dffFixture(dir, name), dir + "/" + name + ".dff");
  }
}

TEST(RenderWareBase, ATurnedBoneAndAMovedVertexAreTheOnlyChange) {
  const std::string dir = test::scratchDir("renderware_base_edit");
  for (const char* name : {"synthetic_skin_rw33002", "synthetic_skin_rw36003"}) {
    SCOPED_TRACE(name);
    const test::OntoFixture f = dffFixture(dir, name);
    Rig rig = test::rigOf(f.glb);
    const uint32_t spine = test::boneNamed(rig, "Spine");
    Bone& turned = rig.skeleton.bones[spine];
    turned.rotation = turned.rotation * glm::angleAxis(glm::radians(20.0f), glm::vec3(1, 0, 0));
    // The armature's rest pose edited as Blender exports it: the skin follows (IBM = inverse world).
    const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
    for (size_t b = 0; b < rig.skeleton.bones.size(); ++b) {
      bool under = false;
      for (int32_t p = static_cast<int32_t>(b); p >= 0 && !under; p = rig.skeleton.bones[static_cast<size_t>(p)].parent) under = p == static_cast<int32_t>(spine);
      if (under && rig.skeleton.bones[b].inverseBind) rig.skeleton.bones[b].inverseBind = glm::inverse(world[b]);
    }
    rig.meshes.at(0).positions.at(3) += glm::vec3(0.0f, 0.1f, 0.0f);  // glTF +Y: RenderWare +Z
    const std::string out = dir + "/" + name + ".dff";
    const test::CliRun run = test::writeOnto(f, rig, out);
    ASSERT_EQ(run.code, 0) << run.text;

    const test::CliRun same = test::runCli("compare " + test::quote(dir + "/edited.glb") + " " + test::quote(out));
    EXPECT_EQ(same.code, 0) << same.text;
    const Rig before = dffRig(dffSample(name));
    const Rig after = dffRig(out);
    ASSERT_EQ(after.skeleton.bones.size(), before.skeleton.bones.size());
    for (size_t b = 0; b < before.skeleton.bones.size(); ++b) {
      const float turn = glm::degrees(glm::angle(glm::inverse(before.skeleton.bones[b].rotation) * after.skeleton.bones[b].rotation));
      EXPECT_NEAR(turn, before.skeleton.bones[b].name == "Spine" ? 20.0f : 0.0f, 0.01f) << before.skeleton.bones[b].name;
      EXPECT_LT(glm::length(after.skeleton.bones[b].translation - before.skeleton.bones[b].translation), 1e-5f) << before.skeleton.bones[b].name;
    }
    const std::vector<glm::vec3>& was = before.meshes.at(0).positions;
    const std::vector<glm::vec3>& now = after.meshes.at(0).positions;
    ASSERT_EQ(now.size(), was.size());
    for (size_t v = 0; v < was.size(); ++v) {
      const glm::vec3 moved = v == 3 ? glm::vec3(0.0f, 0.0f, 0.1f) : glm::vec3(0.0f);
      EXPECT_LT(glm::length(now[v] - was[v] - moved), 1e-6f) << "vertex " << v;
    }
    // Frames, the geometry's struct (a vertex, its bounding sphere) and the skin's matrices; every
    // other chunk (materials, Bin Mesh, HAnim, names, atomics, extensions) as it was.
    EXPECT_EQ(changedLeaves(dffSample(name), out), (std::vector<std::string>{kFrameListStruct, kGeometryStruct, kSkinPlg}));
    EXPECT_EQ(test::readBytes(out).size(), test::readBytes(dffSample(name)).size());
  }
}

// Vertex v weighted to `bone` alone.
void weightTo(Mesh& mesh, size_t v, uint32_t bone) {
  std::vector<Influence> influences;
  std::vector<uint32_t> offsets{0};
  for (size_t u = 0; u < mesh.positions.size(); ++u) {
    if (u == v) {
      influences.push_back(Influence{bone, 1.0f});
    } else {
      for (uint32_t i = mesh.influenceOffsets[u]; i < mesh.influenceOffsets[u + 1]; ++i) influences.push_back(mesh.influences[i]);
    }
    offsets.push_back(static_cast<uint32_t>(influences.size()));
  }
  mesh.influences.assign(influences.begin(), influences.end());
  mesh.influenceOffsets = offsets;
}

TEST(RenderWareBase, AWeightOnANodeTheSkinDidNotUseGrowsTheSkinPlgAndItsParents) {
  const std::string dir = test::scratchDir("renderware_base_weights");
  const std::string name = "synthetic_skin_rw36003";
  const test::OntoFixture f = dffFixture(dir, name);
  Rig rig = test::rigOf(f.glb);
  // Node 0 ('Root') is in no vertex's weights: the Skin PLG's used-node list gains it (one byte).
  weightTo(rig.meshes.at(0), 0, test::boneNamed(rig, "Root"));
  const std::string out = dir + "/weights.dff";
  const test::CliRun run = test::writeOnto(f, rig, out);
  ASSERT_EQ(run.code, 0) << run.text;
  EXPECT_EQ(test::readBytes(out).size(), test::readBytes(dffSample(name)).size() + 1);
  EXPECT_EQ(changedLeaves(dffSample(name), out), (std::vector<std::string>{kSkinPlg}));
  const Rig after = dffRig(out);
  EXPECT_TRUE(after.provenance.warnings.empty()) << after.provenance.warnings.front().message;
  const Mesh& mesh = after.meshes.at(0);
  ASSERT_EQ(mesh.influenceOffsets[1] - mesh.influenceOffsets[0], 1u);
  EXPECT_EQ(after.skeleton.bones[mesh.influences[0].bone].name, "Root");
  EXPECT_EQ(mesh.influences[0].weight, 1.0f);
  const test::CliRun same = test::runCli("compare " + test::quote(dir + "/edited.glb") + " " + test::quote(out));
  EXPECT_EQ(same.code, 0) << same.text;
}

TEST(RenderWareBase, ATriangleTurnedRewritesTheTriangleAndTheBinMesh) {
  const std::string dir = test::scratchDir("renderware_base_triangle");
  const std::string name = "synthetic_skin_rw36003";
  const test::OntoFixture f = dffFixture(dir, name);
  Rig rig = test::rigOf(f.glb);
  std::vector<uint32_t>& indices = rig.meshes.at(0).indices;
  std::rotate(indices.begin(), indices.begin() + 1, indices.begin() + 3);
  const std::string out = dir + "/triangle.dff";
  const test::CliRun run = test::writeOnto(f, rig, out);
  ASSERT_EQ(run.code, 0) << run.text;
  EXPECT_EQ(changedLeaves(dffSample(name), out), (std::vector<std::string>{kGeometryStruct, kBinMesh}));
  EXPECT_EQ(dffRig(out).meshes.at(0).indices, indices);
}

TEST(RenderWareBase, WhatTheOriginalsOtherChunksCannotFollowIsRefused) {
  const std::string dir = test::scratchDir("renderware_base_refused");
  const std::string name = "synthetic_skin_rw36003";
  const std::string out = dir + "/refused.dff";
  const test::OntoFixture f = dffFixture(dir, name);
  {
    Rig rig = test::rigOf(f.glb);
    Bone extra;
    extra.name = "Extra";
    extra.parent = 0;
    rig.skeleton.bones.push_back(extra);
    test::expectRefused(test::writeOnto(f, rig, out), out, {"FrameList", "8 bones, the original 7"});
  }
  {
    Rig rig = test::rigOf(f.glb);
    Mesh& m = rig.meshes.at(0);
    m.positions.push_back(m.positions[0]);
    if (!m.normals.empty()) m.normals.push_back(m.normals[0]);
    if (!m.uvs.empty()) m.uvs.push_back(m.uvs[0]);
    m.influences.push_back(m.influences[0]);
    m.influenceOffsets.push_back(m.influenceOffsets.back() + 1);
    test::expectRefused(test::writeOnto(f, rig, out), out, {"Geometry[0]", "15 vertices, the original 14", "prelit"});
  }
  {
    Rig rig = test::rigOf(f.glb);
    rig.skeleton.bones[test::boneNamed(rig, "Thigh")].parent = static_cast<int32_t>(test::boneNamed(rig, "Spine"));
    test::expectRefused(test::writeOnto(f, rig, out), out, {"Clump/FrameList/frame[", "]/parent", "'Thigh' hangs under 'Spine'"});
  }
  {  // a bone replaced, not renamed: the bone no name matches stands in another place
    Rig rig = test::rigOf(f.glb);
    Bone& thigh = rig.skeleton.bones[test::boneNamed(rig, "Thigh")];
    thigh.name = "Knee";
    thigh.parent = static_cast<int32_t>(test::boneNamed(rig, "Spine"));
    test::expectRefused(test::writeOnto(f, rig, out), out,
                        {"]/parent", "'Thigh' is not in the rig by name, and the rig's bone in its place, 'Knee', hangs under 'Spine'"});
  }
  {  // two bones of one name: the game and the .anm/IFP binding tell frames apart by name
    Rig rig = test::rigOf(f.glb);
    rig.skeleton.bones[test::boneNamed(rig, "Spine")].name = "Thigh";
    test::expectRefused(test::writeOnto(f, rig, out), out, {"Clump/FrameList/frame[", "]/name", "'Spine' is renamed 'Thigh'", "another bone too"});
  }
  {  // §1.3: the game keeps a Node Name in 24 bytes with its NUL
    Rig rig = test::rigOf(f.glb);
    rig.skeleton.bones[test::boneNamed(rig, "Spine")].name = "Spine_Upper_Left_Twist_1";
    test::expectRefused(test::writeOnto(f, rig, out), out, {"Clump/FrameList/frame[", "]/name", "(24 bytes)", "1 to 23 printable ASCII"});
  }
  {
    const test::OntoFixture xbox = dffFixture(dir, "synthetic_skin_rw36003_xbox_native");
    Rig rig = test::rigOf(xbox.glb);
    rig.meshes.at(0).positions.at(0) += glm::vec3(0.1f);
    test::expectRefused(test::writeOnto(xbox, rig, out), out, {"NativeDataPlg", "native geometry"});
  }
}

// The frame whose Node Name reads `name`, and the path of its Extension in leaves()'s terms.
size_t frameNamed(const std::vector<uint8_t>& file, const std::string& name) {
  auto places = renderware::findPlaces(file);
  EXPECT_TRUE(places.ok());
  for (size_t f = 0; f < places->frames.size(); ++f) {
    const auto& n = places->frames[f].nodeName;
    if (n && std::string(file.begin() + static_cast<std::ptrdiff_t>(n->header + 12), file.begin() + static_cast<std::ptrdiff_t>(n->end)) == name) return f;
  }
  ADD_FAILURE() << "no frame named " << name;
  return 0;
}
std::string extensionPath(size_t frame) { return "/16[0]/14[0]/3[" + std::to_string(frame) + "]"; }
constexpr const char* kNodeNameLeaf = "/39056126[0]";  // 0x0253F2FE

// How two DFFs differ chunk by chunk: the leaves changed, added or removed, and the chunks holding
// chunks whose header changed, with how much their size grew.
struct ChunkChanges {
  std::vector<std::string> leaves;
  std::map<std::string, int64_t> grown;
};
ChunkChanges chunkChanges(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  std::map<std::string, std::vector<uint8_t>> la, lb, ha, hb;
  leaves(a, 0, a.size(), "", la, &ha);
  leaves(b, 0, b.size(), "", lb, &hb);
  ChunkChanges out;
  for (const auto& [path, bytes] : la) {
    if (!lb.contains(path) || lb[path] != bytes) out.leaves.push_back(path);
  }
  for (const auto& [path, bytes] : lb) {
    if (!la.contains(path)) out.leaves.push_back(path);
  }
  EXPECT_EQ(ha.size(), hb.size());
  for (const auto& [path, header] : ha) {
    if (!hb.contains(path) || hb[path] == header) continue;
    uint32_t was = 0, now = 0;
    std::memcpy(&was, &header[4], 4);
    std::memcpy(&now, &hb[path][4], 4);
    EXPECT_EQ(std::memcmp(&header[0], &hb[path][0], 4), 0) << path;  // the type
    EXPECT_EQ(std::memcmp(&header[8], &hb[path][8], 4), 0) << path;  // the library id
    out.grown[path] = int64_t{now} - int64_t{was};
  }
  return out;
}

// A frame's name is its Extension's Node Name chunk (§1.3): a renamed bone's new name replaces that
// chunk's bytes; the chunk, its Extension, the FrameList and the Clump grow by as much, and nothing
// else changes.
TEST(RenderWareBase, ARenamedBoneIsWrittenIntoItsNodeName) {
  const std::string dir = test::scratchDir("renderware_base_rename");
  const std::string name = "synthetic_skin_rw36003";
  const test::OntoFixture f = dffFixture(dir, name);
  Rig rig = test::rigOf(f.glb);
  const uint32_t spine = test::boneNamed(rig, "Spine");
  rig.skeleton.bones[spine].name = "Spine Upper";  // 6 bytes longer
  const std::string out = dir + "/renamed.dff";
  const test::CliRun run = test::writeOnto(f, rig, out);
  ASSERT_EQ(run.code, 0) << run.text;

  const std::vector<uint8_t> original = test::readBytes(dffSample(name)), written = test::readBytes(out);
  const std::string ext = extensionPath(frameNamed(original, "Spine"));
  const ChunkChanges changes = chunkChanges(original, written);
  EXPECT_EQ(changes.leaves, (std::vector<std::string>{ext + kNodeNameLeaf}));
  EXPECT_EQ(changes.grown, (std::map<std::string, int64_t>{{"/16[0]", 6}, {"/16[0]/14[0]", 6}, {ext, 6}}));
  EXPECT_EQ(frameNamed(written, "Spine Upper"), frameNamed(original, "Spine"));
  const Rig before = dffRig(dffSample(name)), after = dffRig(out);
  ASSERT_EQ(after.skeleton.bones.size(), before.skeleton.bones.size());
  for (size_t b = 0; b < before.skeleton.bones.size(); ++b) {
    EXPECT_EQ(after.skeleton.bones[b].name, before.skeleton.bones[b].name == "Spine" ? "Spine Upper" : before.skeleton.bones[b].name);
  }
  // Written back onto the original under its old name, the rename undone: the original's bytes.
  const test::OntoFixture back{"renderware-dff", dir, out, "", written};
  rig.skeleton.bones[spine].name = "Spine";
  const std::string undone = dir + "/undone.dff";
  ASSERT_EQ(test::writeOnto(back, rig, undone).code, 0);
  EXPECT_EQ(test::readBytes(undone), original);
}

// A frame without a Node Name (its bone named frame_N) renamed: a Node Name chunk is added at the end
// of its Extension, which, with the FrameList and the Clump, grows by the chunk.
TEST(RenderWareBase, AFrameWithoutANodeNameGainsOne) {
  const std::string dir = test::scratchDir("renderware_base_rename_unnamed");
  std::vector<uint8_t> file = test::readBytes(dffSample("synthetic_skin_rw36003"));
  const size_t frame = frameNamed(file, "Thigh");
  auto places = renderware::findPlaces(file);
  ASSERT_TRUE(places.ok());
  const renderware::ChunkSpan nodeName = *places->frames[frame].nodeName;
  renderware::applySplices(file, {renderware::Splice{nodeName.header, nodeName.end - nodeName.header, {}}}, places->chunks);
  const test::OntoFixture f = test::ontoFixture("renderware-dff", dir, "unnamed.dff", file);
  test::expectUneditedRoundTrip(f, dir + "/same.dff");
  Rig rig = test::rigOf(f.glb);
  rig.skeleton.bones[test::boneNamed(rig, "frame_" + std::to_string(frame))].name = "L Thigh";
  const std::string out = dir + "/named.dff";
  const test::CliRun run = test::writeOnto(f, rig, out);
  ASSERT_EQ(run.code, 0) << run.text;

  const std::vector<uint8_t> written = test::readBytes(out);
  const std::string ext = extensionPath(frame);
  const ChunkChanges changes = chunkChanges(file, written);
  EXPECT_EQ(changes.leaves, (std::vector<std::string>{ext + kNodeNameLeaf}));
  EXPECT_EQ(changes.grown, (std::map<std::string, int64_t>{{"/16[0]", 19}, {"/16[0]/14[0]", 19}, {ext, 19}}));  // a header and 7 bytes
  EXPECT_EQ(frameNamed(written, "L Thigh"), frame);
  EXPECT_GE(dffRig(out).skeleton.find("L Thigh"), 0);
}

// The 3.6 sample with night colours (Rockstar's extra vertex colour chunk 0x0253F2F9: a u32 flag, then
// RGBA a vertex), which rigport does not read, in its geometry's extension before the Bin Mesh.
std::string withNightColours(const std::string& dir) {
  std::vector<uint8_t> file = test::readBytes(dffSample("synthetic_skin_rw36003"));
  auto places = renderware::findPlaces(file);
  EXPECT_TRUE(places.ok());
  const renderware::GeometryPlace& g = places->geometries.at(0);
  std::vector<uint8_t> chunk(12 + 4 + 4 * g.numVertices);
  const uint32_t header[3] = {0x0253F2F9, static_cast<uint32_t>(chunk.size() - 12), renderware::getU32(file, 8)};
  std::memcpy(chunk.data(), header, sizeof header);
  chunk[12] = 1;
  for (size_t i = 16; i < chunk.size(); ++i) chunk[i] = static_cast<uint8_t>(i * 37);
  renderware::applySplices(file, {renderware::Splice{g.binMesh->header, 0, chunk}}, places->chunks);
  return test::writeFile(dir + "/night.dff", file);
}

TEST(RenderWareBase, NewTrianglesAreRefusedWhereTheOriginalHoldsMoreAVertex) {
  const std::string dir = test::scratchDir("renderware_base_night");
  const test::OntoFixture f = test::ontoFixture("renderware-dff", dir, withNightColours(dir));
  test::expectUneditedRoundTrip(f, dir + "/same.dff");
  Rig rig = test::rigOf(f.glb);
  std::rotate(rig.meshes.at(0).indices.begin(), rig.meshes.at(0).indices.begin() + 1, rig.meshes.at(0).indices.begin() + 3);
  const std::string out = dir + "/refused.dff";
  test::expectRefused(test::writeOnto(f, rig, out), out, {"Geometry[0]/Struct/triangles", "chunk 0x253F2F9"});
}

}  // namespace
}  // namespace rigport
