// RenderWare DFF reader/writer against the librw ground-truth dumps in shared/samples/renderware
// (see its SOURCES.md): frames, HAnim nodes, per-vertex skin indices/weights and inverse matrices,
// old vs new Skin PLG layout, Xbox/WDGL native skins, round trips, and a truncation/byte-flip sweep.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/axes.hpp"
#include "core/source.hpp"
#include "platform/files.hpp"
#include "export/gltf.hpp"
#include "core/validate.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/renderware/frame_list.hpp"
#include "formats/renderware/geometry.hpp"
#include "formats/renderware/hanim_plg.hpp"
#include "formats/renderware/axes.hpp"
#include "formats/registry.hpp"
#include "support/librw_dump.hpp"
#include "support/mesh_compare.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using namespace rigport::renderware;
using rigport::test::Dump;
using rigport::test::DumpFrame;
using rigport::test::parseDump;

namespace {

std::vector<uint8_t> sampleBytes(const std::string& name) { return test::readBytes(test::sample("renderware/" + name)); }

// Closes a hand-built clump after its FrameList: an empty GeometryList, then the Clump size.
void endClumpWithoutGeometry(ByteWriter& w, size_t clump, uint32_t lib) {
  const size_t gl = beginChunk(w, kGeometryList, lib);
  const size_t gst = beginChunk(w, kStruct, lib);
  w.u32(0);  // numGeometries
  endChunk(w, gst);
  endChunk(w, gl);
  endChunk(w, clump);
}

// Offset of the first chunk header of `type` at or after `from` that carries the samples' library
// stamp (chunks are not aligned: names have any length); 0 if there is none.
size_t findChunk(const std::vector<uint8_t>& bytes, uint32_t type, size_t from = 0) {
  for (size_t i = from; i + 12 <= bytes.size(); ++i) {
    uint32_t t, stamp;
    std::memcpy(&t, &bytes[i], 4);
    std::memcpy(&stamp, &bytes[i + 8], 4);
    if (t == type && stamp == 0x1803FFFFu) return i;
  }
  return 0;
}

Rig readSample(const std::string& name) {
  auto rig = readDff(sampleBytes(name));
  EXPECT_TRUE(rig.ok()) << name << ": " << (rig.ok() ? "" : rig.error().describe());
  if (rig) EXPECT_TRUE(validate(*rig)) << name;  // every check, not only the reader's
  return rig.ok() ? std::move(*rig) : Rig{};
}

int jointPosition(const Rig& rig, uint32_t bone) {
  const auto& j = rig.skeleton.joints;
  for (size_t i = 0; i < j.size(); ++i) {
    if (j[i] == bone) return static_cast<int>(i);
  }
  return -1;
}

// Compares a rig with a librw dump; `weightTolerance` covers the dump's 6 digits (1e-6) or
// quantised native weights (1/255).
void expectMatchesDump(const Rig& rig, const Dump& d, float weightTolerance) {
  const float tol = 1e-6f;
  ASSERT_EQ(rig.skeleton.bones.size(), d.frames.size());
  for (const DumpFrame& f : d.frames) {
    const int32_t b = rig.skeleton.find(f.name);
    ASSERT_GE(b, 0) << f.name;
    const Bone& bone = rig.skeleton.bones[static_cast<size_t>(b)];
    if (f.parent < 0) {
      EXPECT_EQ(bone.parent, -1) << f.name;
    } else {
      ASSERT_GE(bone.parent, 0) << f.name;
      EXPECT_EQ(rig.skeleton.bones[static_cast<size_t>(bone.parent)].name, d.frames[static_cast<size_t>(f.parent)].name);
    }
    EXPECT_EQ(bone.id ? static_cast<int>(*bone.id) : -1, f.hanimId) << f.name;
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(bone.translation[k], f.pos[k], tol) << f.name;
  }
  // HAnim nodes: joint j is the node's frame; PUSH/POP flags follow from the joint tree.
  ASSERT_EQ(rig.skeleton.joints.size(), d.nodes.size());
  std::vector<int32_t> nodeParents;
  for (size_t j = 0; j < d.nodes.size(); ++j) {
    const Bone& bone = rig.skeleton.bones[rig.skeleton.joints[j]];
    EXPECT_EQ(bone.name, d.frames[static_cast<size_t>(d.nodes[j].frame)].name) << "node " << j;
    ASSERT_TRUE(bone.id.has_value());
    EXPECT_EQ(static_cast<int>(*bone.id), d.nodes[j].id);
    int32_t parent = -1;
    for (int32_t p = bone.parent; p >= 0 && parent < 0; p = rig.skeleton.bones[static_cast<size_t>(p)].parent) {
      parent = jointPosition(rig, static_cast<uint32_t>(p));
    }
    nodeParents.push_back(parent);
  }
  const std::vector<int32_t> flags = hanimFlagsFromParents(nodeParents);
  for (size_t j = 0; j < d.nodes.size(); ++j) EXPECT_EQ(flags[j], d.nodes[j].flags) << "node " << j;
  // Per-vertex influences as node indices, zero-weight slots dropped.
  ASSERT_EQ(rig.meshes.size(), 1u);
  const Mesh& mesh = rig.meshes[0];
  ASSERT_EQ(mesh.vertexCount(), d.vertices.size());
  ASSERT_TRUE(mesh.skinned());
  for (size_t v = 0; v < d.vertices.size(); ++v) {
    std::vector<std::pair<int, float>> expected;
    for (int k = 0; k < 4; ++k) {
      if (d.vertices[v].w[k] != 0.0f) expected.emplace_back(d.vertices[v].idx[k], d.vertices[v].w[k]);
    }
    const uint32_t begin = mesh.influenceOffsets[v], end = mesh.influenceOffsets[v + 1];
    ASSERT_EQ(end - begin, expected.size()) << "vertex " << v;
    for (size_t k = 0; k < expected.size(); ++k) {
      const Influence& inf = mesh.influences[begin + k];
      EXPECT_EQ(jointPosition(rig, inf.bone), expected[k].first) << "vertex " << v << " slot " << k;
      EXPECT_NEAR(inf.weight, expected[k].second, weightTolerance) << "vertex " << v << " slot " << k;
    }
  }
  // Inverse matrices per node (pads ignored).
  ASSERT_EQ(d.invMats.size(), d.nodes.size());
  for (size_t b = 0; b < d.invMats.size(); ++b) {
    const Bone& bone = rig.skeleton.bones[rig.skeleton.joints[b]];
    ASSERT_TRUE(bone.inverseBind.has_value()) << "node " << b;
    for (int k = 0; k < 16; ++k) {
      if (k % 4 == 3) continue;
      EXPECT_NEAR((*bone.inverseBind)[k / 4][k % 4], d.invMats[b][static_cast<size_t>(k)], tol) << "node " << b << " m" << k;
    }
  }
}

void expectSameRig(const Rig& a, const Rig& b, float tol) {
  ASSERT_EQ(a.skeleton.bones.size(), b.skeleton.bones.size());
  for (size_t i = 0; i < a.skeleton.bones.size(); ++i) {
    const Bone& x = a.skeleton.bones[i];
    const Bone& y = b.skeleton.bones[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.parent, y.parent) << x.name;
    EXPECT_EQ(x.id, y.id) << x.name;
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(x.translation[k], y.translation[k], tol) << x.name;
      EXPECT_NEAR(x.scale[k], y.scale[k], tol) << x.name;
    }
    // Quaternion dot products carry float rounding even for identical rotations.
    EXPECT_NEAR(std::fabs(glm::dot(x.rotation, y.rotation)), 1.0f, std::max(tol, 1e-6f)) << x.name;
    ASSERT_EQ(x.inverseBind.has_value(), y.inverseBind.has_value()) << x.name;
    if (x.inverseBind) {
      for (int k = 0; k < 16; ++k) EXPECT_NEAR((*x.inverseBind)[k / 4][k % 4], (*y.inverseBind)[k / 4][k % 4], tol);
    }
  }
  EXPECT_EQ(a.skeleton.joints, b.skeleton.joints);
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    const Mesh& x = a.meshes[m];
    const Mesh& y = b.meshes[m];
    ASSERT_EQ(x.positions.size(), y.positions.size());
    for (size_t v = 0; v < x.positions.size(); ++v) {
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(x.positions[v][k], y.positions[v][k], tol);
    }
    EXPECT_EQ(x.indices, y.indices);
    EXPECT_EQ(x.influenceOffsets, y.influenceOffsets);
    ASSERT_EQ(x.influences.size(), y.influences.size());
    for (size_t i = 0; i < x.influences.size(); ++i) {
      EXPECT_EQ(x.influences[i].bone, y.influences[i].bone);
      EXPECT_NEAR(x.influences[i].weight, y.influences[i].weight, tol);
    }
  }
}

bool hasWarning(const Rig& rig, const std::string& code, const std::string& text) {
  for (const Warning& w : rig.provenance.warnings) {
    if (w.code == code && w.message.find(text) != std::string::npos) return true;
  }
  return false;
}

const char* kSamples[] = {"synthetic_skin_rw36003.dff", "synthetic_skin_rw33002.dff",
                          "synthetic_skin_rw36003_xbox_native.dff", "synthetic_skin_rw36003_wdgl_native.dff"};

}  // namespace

TEST(RenderwareDff, NewLayoutSampleMatchesLibrwDump) {
  const Rig rig = readSample("synthetic_skin_rw36003.dff");
  expectMatchesDump(rig, parseDump(test::sample("renderware/synthetic_skin_rw36003.librw-dump.txt")), 1e-6f);
  EXPECT_EQ(rig.provenance.axes.up, AxisSystem::Up::Z);
  EXPECT_TRUE(rig.provenance.axes.rightHanded);
  EXPECT_EQ(rig.meshes[0].name, "Root");  // the atomic's frame
  EXPECT_EQ(rig.meshes[0].indices.size(), 18u * 3u);
  EXPECT_TRUE(rig.provenance.warnings.empty()) << rig.provenance.warnings[0].message;
}

TEST(RenderwareDff, OldLayoutSampleMatchesLibrwDump) {
  const Rig rig = readSample("synthetic_skin_rw33002.dff");
  expectMatchesDump(rig, parseDump(test::sample("renderware/synthetic_skin_rw33002.librw-dump.txt")), 1e-6f);
}

TEST(RenderwareDff, OldAndNewLayoutsGiveTheSameModel) {
  expectSameRig(readSample("synthetic_skin_rw33002.dff"), readSample("synthetic_skin_rw36003.dff"), 0.0f);
}

TEST(RenderwareDff, XboxNativeSkinMatchesUninstancedDump) {
  const Rig rig = readSample("synthetic_skin_rw36003_xbox_native.dff");
  expectMatchesDump(rig, parseDump(test::sample("renderware/synthetic_skin_rw36003_xbox_native.librw-uninstanced-dump.txt")),
                    1.0f / 255.0f);
}

TEST(RenderwareDff, WdglNativeSkinMatchesUninstancedDump) {
  const Rig rig = readSample("synthetic_skin_rw36003_wdgl_native.dff");
  expectMatchesDump(rig, parseDump(test::sample("renderware/synthetic_skin_rw36003_wdgl_native.librw-uninstanced-dump.txt")),
                    1.0f / 255.0f);
}

TEST(RenderwareDff, NativeGeometryMatchesGenericVertexDataAndTriangles) {
  const Rig generic = readSample("synthetic_skin_rw36003.dff");
  for (const char* name : {"synthetic_skin_rw36003_xbox_native.dff", "synthetic_skin_rw36003_wdgl_native.dff"}) {
    const Rig native = readSample(name);
    ASSERT_EQ(native.meshes.size(), 1u);
    const Mesh& a = generic.meshes[0];
    const Mesh& b = native.meshes[0];
    ASSERT_EQ(a.positions.size(), b.positions.size()) << name;
    for (size_t v = 0; v < a.positions.size(); ++v) {
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(a.positions[v][k], b.positions[v][k], 1e-6f) << name;
    }
    // Normals are packed (WDGL bytes /127, Xbox 11:11:10), UVs WDGL shorts /512.
    ASSERT_EQ(a.normals.size(), b.normals.size()) << name;
    for (size_t v = 0; v < a.normals.size(); ++v) {
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(a.normals[v][k], b.normals[v][k], 1.0f / 127.0f) << name << " normal " << v;
    }
    ASSERT_EQ(a.uvs.size(), b.uvs.size()) << name;
    for (size_t v = 0; v < a.uvs.size(); ++v) {
      for (int k = 0; k < 2; ++k) EXPECT_NEAR(a.uvs[v][k], b.uvs[v][k], 1.0f / 512.0f) << name << " uv " << v;
    }
    EXPECT_EQ(a.indices, b.indices) << name;
  }
}

TEST(RenderwareDff, UnsupportedNativePlatformIsNamed) {
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003_wdgl_native.dff");
  // The WDGL native Skin PLG (chunk at 0x6DD) holds Struct{platform, ...}: make it D3D9.
  const size_t platformAt = 0x6DD + 12 + 12;
  ASSERT_EQ(bytes[platformAt], 2u);
  bytes[platformAt] = 9;
  auto rig = readDff(bytes);
  ASSERT_FALSE(rig.ok());
  EXPECT_EQ(rig.error().code, ErrorCode::Unsupported);
  EXPECT_NE(rig.error().message.find("native skin for platform D3D9 (9) is not supported"), std::string::npos)
      << rig.error().describe();
}

TEST(RenderwareDff, UnknownExtensionChunkIsSkippedWithWarning) {
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003.dff");
  // The Clump's own (empty) Extension is the last 12 bytes: put a 4-byte chunk 0xBEEF into it.
  const size_t ext = bytes.size() - 12;
  const uint8_t chunk[] = {0xEF, 0xBE, 0, 0, 4, 0, 0, 0, 0xFF, 0xFF, 0x03, 0x18, 1, 2, 3, 4};
  bytes.insert(bytes.end(), std::begin(chunk), std::end(chunk));
  bytes[ext + 4] = sizeof(chunk);
  const uint32_t clumpSize = static_cast<uint32_t>(bytes.size() - 12);
  std::memcpy(bytes.data() + 4, &clumpSize, 4);
  auto rig = readDff(bytes);
  ASSERT_TRUE(rig.ok()) << rig.error().describe();
  EXPECT_TRUE(hasWarning(*rig, "unknown-chunk", fmt::format("0xBEEF (4 bytes) at 0x{:X} in Clump", ext + 12)));
  expectSameRig(*rig, readSample("synthetic_skin_rw36003.dff"), 0.0f);
}

TEST(RenderwareDff, RoundTripOfSampleReproducesModel) {
  for (const char* name : kSamples) {
    const Rig rig = readSample(name);
    for (uint32_t version : {0x36003u, 0x33002u, 0x30200u}) {
      auto bytes = writeDff(rig, DffWriteOptions{version});
      ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
      auto again = readDff(*bytes);
      ASSERT_TRUE(again.ok()) << again.error().describe();
      SCOPED_TRACE(fmt::format("{} as 0x{:X}", name, version));
      expectSameRig(rig, *again, 1e-5f);
    }
  }
}

// writeDff(readDff(sample)) against the librw-written generic samples. The only differences,
// each patched into the expected bytes below so that everything else must match exactly:
//  1. FrameList matrices: rebuilt from the bones' quaternion/scale, so entries may differ by float
//     rounding (≤ 1e-6, e.g. -0.0 vs 1e-8); parents and flags must be identical.
//  2. (None any more: the material colour, (200,180,160,255) in the samples, is part of the rig.)
//  3. The 3.3.0.2 sample's Atomic extension holds a MatFX atomic chunk (0x120, 16 bytes), not
//     modelled; dropping it shrinks the Atomic, its Extension and the Clump by 16 bytes.
namespace {

// Header offsets of the chunks enclosing (and including) the first chunk of `type`.
bool findChunkPath(const std::vector<uint8_t>& b, size_t begin, size_t end, uint32_t type, std::vector<size_t>& path) {
  static const std::set<uint32_t> containers = {0x10, 0x0E, 0x1A, 0x0F, 0x14, 0x03, 0x08, 0x07};
  for (size_t at = begin; at + 12 <= end;) {
    uint32_t t = 0, size = 0;
    std::memcpy(&t, &b[at], 4);
    std::memcpy(&size, &b[at + 4], 4);
    path.push_back(at);
    if (t == type) return true;
    if (containers.count(t) && findChunkPath(b, at + 12, at + 12 + size, type, path)) return true;
    path.pop_back();
    at += 12 + size;
  }
  return false;
}

std::vector<size_t> chunkPath(const std::vector<uint8_t>& b, uint32_t type) {
  std::vector<size_t> path;
  findChunkPath(b, 0, b.size(), type, path);
  return path;
}

}  // namespace

TEST(RenderwareDff, RewrittenGenericSamplesDifferOnlyInUnmodelledData) {
  for (const auto& [name, version] : {std::pair{"synthetic_skin_rw36003.dff", 0x36003u}, std::pair{"synthetic_skin_rw33002.dff", 0x33002u}}) {
    SCOPED_TRACE(name);
    std::vector<uint8_t> expected = sampleBytes(name);
    auto written = writeDff(readSample(name), DffWriteOptions{version});
    ASSERT_TRUE(written.ok());
    const std::vector<uint8_t>& ours = *written;
    // 3. Drop the MatFX atomic chunk and shrink its ancestors.
    const std::vector<size_t> matfx = chunkPath(expected, 0x120);
    if (!matfx.empty()) {
      const size_t at = matfx.back();
      uint32_t size = 0;
      std::memcpy(&size, &expected[at + 4], 4);
      for (size_t i = 0; i + 1 < matfx.size(); ++i) {
        uint32_t parent = 0;
        std::memcpy(&parent, &expected[matfx[i] + 4], 4);
        parent -= 12 + size;
        std::memcpy(&expected[matfx[i] + 4], &parent, 4);
      }
      expected.erase(expected.begin() + static_cast<std::ptrdiff_t>(at), expected.begin() + static_cast<std::ptrdiff_t>(at + 12 + size));
    }
    ASSERT_EQ(ours.size(), expected.size());
    // 1. Frame matrices within float rounding.
    const std::vector<size_t> frameList = chunkPath(expected, 0x0E);
    const size_t records = frameList.back() + 12 + 12 + 4;
    uint32_t numFrames = 0;
    std::memcpy(&numFrames, &expected[records - 4], 4);
    for (uint32_t f = 0; f < numFrames; ++f) {
      for (size_t k = 0; k < 12; ++k) {
        const size_t at = records + 56 * f + 4 * k;
        float a = 0, b = 0;
        std::memcpy(&a, &expected[at], 4);
        std::memcpy(&b, &ours[at], 4);
        EXPECT_NEAR(a, b, 1e-6f) << "frame " << f << " matrix " << k;
        std::memcpy(&expected[at], &ours[at], 4);
      }
    }
    size_t firstDiff = 0;
    while (firstDiff < ours.size() && ours[firstDiff] == expected[firstDiff]) ++firstDiff;
    EXPECT_EQ(firstDiff, ours.size()) << fmt::format("first unexplained difference at 0x{:X}", firstDiff);
  }
}

TEST(RenderwareDff, RoundTripOfConstructedModel) {
  Rig rig;
  rig.provenance.axes = kRenderWareAxes;  // already in the file's axes: no conversion on write
  auto addBone = [&](const char* name, int32_t parent, glm::vec3 t, glm::quat q, glm::vec3 s, std::optional<uint32_t> id) {
    Bone b;
    b.name = name;
    b.parent = parent;
    b.translation = t;
    b.rotation = glm::normalize(q);
    b.scale = s;
    b.id = id;
    rig.skeleton.bones.push_back(b);
  };
  addBone("root", -1, {1, 2, 3}, glm::quat(0.9f, 0.1f, 0.2f, 0.3f), {1, 1, 1}, 7);
  addBone("a", 0, {0, 0, 1}, glm::quat(0.8f, -0.3f, 0.1f, 0.2f), {1.5f, 0.5f, 2.0f}, 3);
  addBone("b", 1, {0, 1, 0}, glm::quat(1, 0, 0, 0), {1, 1, 1}, 4);
  addBone("c", 0, {1, 0, 0}, glm::quat(0.5f, 0.5f, 0.5f, 0.5f), {1, 1, 1}, 9);
  addBone("d", 3, {0, 0, -1}, glm::quat(0.7f, 0, 0.7f, 0), {1, 1, 1}, 11);
  rig.skeleton.joints = {0, 1, 2, 3, 4};
  Mesh m;
  for (int i = 0; i < 6; ++i) m.positions.push_back(glm::vec3(i, i * 0.5f, -i));
  m.indices = {0, 1, 2, 3, 4, 5, 0, 2, 4};
  m.influenceOffsets = {0};
  for (int v = 0; v < 6; ++v) {
    for (int k = 0; k <= v % 4; ++k) m.influences.push_back(Influence{static_cast<uint32_t>((v + k) % 5), 1.0f / (1 + v % 4)});
    m.influenceOffsets.push_back(static_cast<uint32_t>(m.influences.size()));
  }
  rig.meshes.push_back(m);
  // Explicit inverse binds (the reader always yields them), computed in world space.
  const auto world = rig.skeleton.worldBindMatrices();
  for (size_t b = 0; b < world.size(); ++b) rig.skeleton.bones[b].inverseBind = glm::inverse(world[b]);
  auto bytes = writeDff(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  auto again = readDff(*bytes);
  ASSERT_TRUE(again.ok()) << again.error().describe();
  // The root joint owns the atomic; its frame is not at the origin, which takes no part in skinning
  // (§1.9: librw cancels the atomic's frame): compare what a renderer sees.
  const Mesh& back = again->meshes[0];
  ASSERT_EQ(back.positions.size(), m.positions.size());
  const auto worldBack = again->skeleton.worldBindMatrices();
  for (size_t v = 0; v < m.positions.size(); ++v) {
    glm::vec3 skinned(0.0f);
    for (uint32_t i = back.influenceOffsets[v]; i < back.influenceOffsets[v + 1]; ++i) {
      const Influence& inf = back.influences[i];
      skinned += inf.weight * glm::vec3(worldBack[inf.bone] * *again->skeleton.bones[inf.bone].inverseBind *
                                        glm::vec4(back.positions[v], 1.0f));
    }
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(skinned[k], m.positions[v][k], 1e-4f) << "vertex " << v;
  }
  for (auto& b : rig.skeleton.bones) b.inverseBind.reset();
  for (auto& b : again->skeleton.bones) b.inverseBind.reset();
  again->meshes[0].positions = m.positions;
  expectSameRig(rig, *again, 1e-5f);
}

TEST(RenderwareDff, WriterKeepsLargestFourInfluences) {
  Rig rig = readSample("synthetic_skin_rw36003.dff");
  Mesh& m = rig.meshes[0];
  // Vertex 0 gets six influences; the four largest survive, renormalised.
  std::vector<Influence> six = {{1, 0.05f}, {2, 0.3f}, {3, 0.1f}, {4, 0.25f}, {5, 0.2f}, {6, 0.1f}};
  m.influences.erase(m.influences.begin(), m.influences.begin() + m.influenceOffsets[1]);
  m.influences.insert(m.influences.begin(), six.begin(), six.end());
  const uint32_t delta = 6 - m.influenceOffsets[1];
  for (size_t v = 1; v < m.influenceOffsets.size(); ++v) m.influenceOffsets[v] += delta;
  auto bytes = writeDff(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  auto again = readDff(*bytes);
  ASSERT_TRUE(again.ok()) << again.error().describe();
  const Mesh& back = again->meshes[0];
  ASSERT_EQ(back.influenceOffsets[1], 4u);
  const float kept = 0.3f + 0.1f + 0.25f + 0.2f;
  const Influence expected[] = {{2, 0.3f / kept}, {3, 0.1f / kept}, {4, 0.25f / kept}, {5, 0.2f / kept}};
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(back.influences[static_cast<size_t>(k)].bone, expected[k].bone);
    EXPECT_NEAR(back.influences[static_cast<size_t>(k)].weight, expected[k].weight, 1e-6f);
  }
}

TEST(RenderwareDff, EveryTruncationAndByteFlipFailsCleanly) {
  size_t runs = 0, failures = 0;
  for (const char* name : kSamples) {
    const std::vector<uint8_t> original = sampleBytes(name);
    for (size_t len = 0; len < original.size(); ++len) {
      auto r = readDff(std::span(original.data(), len));
      ++runs;
      // The Clump chunk spans the whole file, so every proper prefix is short of its declared size.
      ASSERT_FALSE(r.ok()) << name << " truncated at " << len << " was accepted";
      ++failures;
      EXPECT_TRUE(r.error().offset.has_value()) << name << " truncated at " << len << ": " << r.error().describe();
    }
    std::vector<uint8_t> bytes = original;
    for (size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] ^= 0xFF;
      auto r = readDff(bytes);
      ++runs;
      failures += r.ok() ? 0 : 1;
      if (!r) EXPECT_TRUE(r.error().offset.has_value()) << name << " flipped at " << i << ": " << r.error().describe();
      // The reader checks only its meshes' structure: every element of a damaged file it accepts
      // (a flipped weight, node index or triangle) must still be valid as built.
      if (r) {
        const Status valid = validate(*r);
        EXPECT_TRUE(valid) << name << " flipped at " << i << ": " << valid.error().describe();
      }
      bytes[i] ^= 0xFF;
    }
  }
  EXPECT_GT(failures, 0u);
  RecordProperty("runs", static_cast<int>(runs));
}

TEST(RenderwareDff, GarbageGivesAnErrorWithOffset) {
  std::mt19937 rng(42);
  std::vector<uint8_t> garbage(4096);
  for (uint8_t& b : garbage) b = static_cast<uint8_t>(rng());
  auto r = readDff(garbage);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().describe().find("0x"), std::string::npos) << r.error().describe();
  // A clump header that claims more than the file holds.
  const uint8_t header[] = {0x10, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF, 0x03, 0x18};
  auto t = readDff(header);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::Truncated);
  EXPECT_NE(t.error().describe().find("0x"), std::string::npos);
}

TEST(RenderwareDff, ProbeAcceptsClumpsOnly) {
  EXPECT_TRUE(probeDff(sampleBytes("synthetic_skin_rw36003.dff")));
  EXPECT_FALSE(probeDff(sampleBytes("synthetic_skin_rw36003.anm")));
}

TEST(RenderwareDff, ChildBeforeParentFramesAreReorderedWithWarning) {
  // FrameList: frame 0 "child" (parent 1, HAnim id 5), frame 1 "root" owning a 2-node hierarchy.
  const uint32_t lib = packLibraryId(0x36003, 0xFFFF);
  std::vector<RwFrame> frames(2);
  frames[0].parent = 1;
  frames[0].name = "child";
  frames[0].matrix[3] = glm::vec4(0, 0, 2, 1);
  frames[0].hanim = HAnimPlg{};
  frames[0].hanim->nodeId = 5;
  frames[1].name = "root";
  frames[1].hanim = HAnimPlg{};
  frames[1].hanim->nodeId = 1;
  frames[1].hanim->nodes = {HAnimNode{1, 0, 0}, HAnimNode{5, 1, kHAnimPop}};
  ByteWriter w;
  const size_t clump = beginChunk(w, kClump, lib);
  const size_t st = beginChunk(w, kStruct, lib);
  for (int i = 0; i < 3; ++i) w.u32(0);  // numAtomics, numLights, numCameras
  endChunk(w, st);
  writeFrameList(w, frames, lib);
  endClumpWithoutGeometry(w, clump, lib);
  auto rig = readDff(w.bytes());
  ASSERT_TRUE(rig.ok()) << rig.error().describe();
  ASSERT_EQ(rig->skeleton.bones.size(), 2u);
  EXPECT_EQ(rig->skeleton.bones[0].name, "root");
  EXPECT_EQ(rig->skeleton.bones[1].name, "child");
  EXPECT_EQ(rig->skeleton.bones[1].parent, 0);
  EXPECT_NEAR(rig->skeleton.bones[1].translation.z, 2.0f, 0.0f);
  EXPECT_EQ(rig->skeleton.joints, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(hasWarning(*rig, "frame-order", "reordered"));
}

TEST(RenderwareDff, WriterPutsAGltfAxesRigIntoZUp) {
  Rig rig = readSample("synthetic_skin_rw36003.dff");
  Rig yUp = rig;
  toGltfAxes(yUp);  // Z-up → Y-up copy
  auto bytes = writeDff(yUp);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  auto again = readDff(*bytes);
  ASSERT_TRUE(again.ok()) << again.error().describe();
  expectSameRig(rig, *again, 1e-5f);
}

TEST(RenderwareDff, FrameNameFallsBackToUserDataThenGenerated) {
  // Two frames without Node Name: frame 0 has a User Data PLG set "name" = "Hips", frame 1 nothing.
  const uint32_t lib = packLibraryId(0x36003, 0xFFFF);
  ByteWriter w;
  const size_t clump = beginChunk(w, kClump, lib);
  const size_t st = beginChunk(w, kStruct, lib);
  for (int i = 0; i < 3; ++i) w.u32(0);
  endChunk(w, st);
  const size_t list = beginChunk(w, kFrameList, lib);
  const size_t fst = beginChunk(w, kStruct, lib);
  w.u32(2);
  for (int f = 0; f < 2; ++f) {
    for (int k = 0; k < 12; ++k) w.f32(k % 4 == 0 ? 1.0f : 0.0f);  // right.x, up.y, at.z = 1: identity, pos 0
    w.s32(f - 1);
    w.u32(0);
  }
  endChunk(w, fst);
  const size_t ext0 = beginChunk(w, kExtension, lib);
  const size_t ud = beginChunk(w, kUserDataPlg, lib);
  w.s32(1);      // numSets
  w.u32(5);      // nameLen (with NUL)
  w.cString("name");
  w.s32(3);      // string
  w.u32(1);      // numElements
  w.u32(5);
  w.cString("Hips");
  endChunk(w, ud);
  endChunk(w, ext0);
  endChunk(w, beginChunk(w, kExtension, lib));
  endChunk(w, list);
  endClumpWithoutGeometry(w, clump, lib);
  auto rig = readDff(w.bytes());
  ASSERT_TRUE(rig.ok()) << rig.error().describe();
  ASSERT_EQ(rig->skeleton.bones.size(), 2u);
  EXPECT_EQ(rig->skeleton.bones[0].name, "Hips");
  EXPECT_EQ(rig->skeleton.bones[1].name, "frame_1");
  EXPECT_EQ(rig->skeleton.bones[1].rotation, glm::quat(1, 0, 0, 0));
}

// §1.8/issue: a vertex whose weights are all zero is bound to the atomic's frame bone (weight 1)
// with an "unweighted-vertex" warning, instead of being left without influences.
TEST(RenderwareDff, UnweightedVertexIsBoundToTheAtomicFrameWithWarning) {
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003.dff");
  const size_t skinChunk = findChunk(bytes, 0x116);  // the Skin PLG
  ASSERT_NE(skinChunk, 0u);
  const size_t skin = skinChunk + 12;
  // New layout (§1.5): 4-byte header, usedBones[numUsedBones], indices[14][4], weights[14][4].
  const size_t numUsedBones = bytes[skin + 1];
  const size_t weights = skin + 4 + numUsedBones + 14 * 4;
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(weights), bytes.begin() + static_cast<std::ptrdiff_t>(weights + 16), 0);

  auto rig = readDff(bytes);
  ASSERT_TRUE(rig) << rig.error().describe();
  const Mesh& mesh = rig->meshes.at(0);
  ASSERT_EQ(mesh.influenceOffsets[1] - mesh.influenceOffsets[0], 1u);
  const Influence& only = mesh.influences[mesh.influenceOffsets[0]];
  EXPECT_EQ(rig->skeleton.bones.at(only.bone).name, "Root");  // the sample's atomic sits on frame "Root"
  EXPECT_EQ(only.weight, 1.0f);
  const auto& w = rig->provenance.warnings;
  EXPECT_TRUE(std::any_of(w.begin(), w.end(), [](const Warning& x) { return x.code == "unweighted-vertex"; }));
  // The other vertices keep their influences.
  EXPECT_EQ(mesh.influenceOffsets[2] - mesh.influenceOffsets[1], 1u);
}

// §1.1, §1.7: the rig records the file's RenderWare version and its geometry's platform.
TEST(RenderwareDff, VersionAndPlatformAreRecordedInTheRigExtras) {
  const std::pair<const char*, std::pair<const char*, const char*>> cases[] = {
      {"synthetic_skin_rw36003.dff", {"3.6.0.3", "generic"}},
      {"synthetic_skin_rw33002.dff", {"3.3.0.2", "generic"}},
      {"synthetic_skin_rw36003_xbox_native.dff", {"3.6.0.3", "Xbox"}},
      {"synthetic_skin_rw36003_wdgl_native.dff", {"3.6.0.3", "OpenGL/WDGL"}}};
  for (const auto& [name, expected] : cases) {
    const Rig rig = readSample(name);
    EXPECT_EQ(rig.extras["renderware"]["version"], expected.first) << name;
    EXPECT_EQ(rig.extras["renderware"]["platform"], expected.second) << name;
  }
}

// §1.9: every sample's skin matrices are the inverses of its FrameList bind pose, so none warns;
// moving a frame after the fact makes the reader say which node disagrees.
TEST(RenderwareDff, BindPoseThatDisagreesWithSkinMatricesIsReported) {
  for (const char* name : kSamples) {
    auto rig = readDff(sampleBytes(name));
    ASSERT_TRUE(rig) << name;
    for (const Warning& w : rig->provenance.warnings) EXPECT_NE(w.code, "bind-pose") << name << ": " << w.message;
  }
  // Frame 2 ("Pelvis", at (0, 0, 1)) of the generic sample: FrameList header, Struct header,
  // numFrames, then 56-byte records whose position sits at +36 (§1.2).
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003.dff");
  const size_t frameList = findChunk(bytes, 0x0E);
  ASSERT_NE(frameList, 0u);
  const size_t at = frameList + 12 + 12 + 4 + 2 * 56 + 36;
  float pos[3];
  std::memcpy(pos, &bytes[at], 12);
  ASSERT_EQ(pos[2], 1.0f) << "not the Pelvis record";
  const float moved = 1.5f;
  std::memcpy(&bytes[at + 8], &moved, 4);
  auto rig = readDff(bytes);
  ASSERT_TRUE(rig) << rig.error().describe();
  const auto& w = rig->provenance.warnings;
  auto it = std::find_if(w.begin(), w.end(), [](const Warning& x) { return x.code == "bind-pose"; });
  ASSERT_NE(it, w.end());
  EXPECT_NE(it->message.find("0.5"), std::string::npos) << it->message;
}

// §5 (DragonFF #394): a hierarchy node id that matches no frame. Node 4 (id 41, "Thigh", under
// node 1 "Pelvis") is renamed 77 in the hierarchy's node array; the frame keeps its own id 41.
TEST(RenderwareDff, HierarchyNodeWithoutFrameGetsItsOwnBoneAtItsSkinMatrixPose) {
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003.dff");
  // The hierarchy's HAnim PLG is the one with nodes: payload version, nodeId, numNodes, flags,
  // keyFrameSize, then 12-byte {id, index, flags} nodes (§1.4).
  size_t nodes = 0;
  for (size_t at = findChunk(bytes, 0x11E); at != 0 && nodes == 0; at = findChunk(bytes, 0x11E, at + 1)) {
    int32_t numNodes;
    std::memcpy(&numNodes, &bytes[at + 12 + 8], 4);
    if (numNodes > 0) nodes = at + 12 + 20;
  }
  ASSERT_NE(nodes, 0u);
  int32_t id;
  std::memcpy(&id, &bytes[nodes + 4 * 12], 4);
  ASSERT_EQ(id, 41) << "node 4 is not Thigh";
  const int32_t missing = 77;
  std::memcpy(&bytes[nodes + 4 * 12], &missing, 4);

  auto rig = readDff(bytes);
  ASSERT_TRUE(rig) << rig.error().describe();
  EXPECT_TRUE(hasWarning(*rig, "hanim-missing-frame", "(id 77)"));
  const Skeleton& sk = rig->skeleton;
  ASSERT_EQ(sk.joints.size(), 6u);
  EXPECT_EQ(std::set<uint32_t>(sk.joints.begin(), sk.joints.end()).size(), 6u) << "a bone is a joint twice";
  ASSERT_EQ(sk.bones.size(), 8u);  // 7 frames + the frameless node
  const Bone& added = sk.bones[sk.joints[4]];
  EXPECT_EQ(added.name, "node_77");
  EXPECT_EQ(added.id, 77u);
  ASSERT_GE(added.parent, 0);
  EXPECT_EQ(sk.bones[static_cast<size_t>(added.parent)].name, "Pelvis");
  // Its pose comes from its skin matrix, which is Thigh's: same world bind matrix, so the skin
  // matrices still agree with the bind pose.
  const std::vector<glm::mat4> world = sk.worldBindMatrices();
  const glm::mat4& a = world[sk.joints[4]];
  const glm::mat4& t = world[static_cast<size_t>(sk.find("Thigh"))];
  for (int c = 0; c < 4; ++c) {
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(a[c][k], t[c][k], 1e-5f) << c << "," << k;
  }
  for (const Warning& w : rig->provenance.warnings) EXPECT_NE(w.code, "bind-pose") << w.message;
  // Vertex 12 weighs nodes 4 and 5 by 0.5 each: node 4 is the new bone.
  const Mesh& mesh = rig->meshes.at(0);
  bool onAdded = false;
  for (uint32_t i = mesh.influenceOffsets[12]; i < mesh.influenceOffsets[13]; ++i) {
    onAdded |= mesh.influences[i].bone == sk.joints[4] && mesh.influences[i].weight == 0.5f;
  }
  EXPECT_TRUE(onAdded);
  auto glb = exportGlb(*rig);
  EXPECT_TRUE(glb) << glb.error().describe();
}

// librw writes the skin index attribute unnormalised; one flagged normalised must still give the
// palette indices, not index/255 (= 0).
TEST(RenderwareDff, WdglSkinIndicesIgnoreTheNormalizedFlag) {
  const Rig before = readSample("synthetic_skin_rw36003_wdgl_native.dff");
  std::vector<uint8_t> bytes = sampleBytes("synthetic_skin_rw36003_wdgl_native.dff");
  // Native Data PLG payload (§1.7): u32 numAttribs, then 24-byte AttribDesc
  // {index, type, normalized, size, stride, offset}; flag the index attribute (5) normalised.
  const size_t nd = findChunk(bytes, 0x510);
  ASSERT_NE(nd, 0u);
  uint32_t numAttribs;
  std::memcpy(&numAttribs, &bytes[nd + 12], 4);
  size_t flagged = 0;
  for (uint32_t a = 0; a < numAttribs; ++a) {
    const size_t desc = nd + 16 + 24 * a;
    uint32_t index, normalized;
    std::memcpy(&index, &bytes[desc], 4);
    std::memcpy(&normalized, &bytes[desc + 8], 4);
    if (index != 5) continue;
    ASSERT_EQ(normalized, 0u);
    const uint32_t one = 1;
    std::memcpy(&bytes[desc + 8], &one, 4);
    ++flagged;
  }
  ASSERT_EQ(flagged, 1u);
  auto after = readDff(bytes);
  ASSERT_TRUE(after) << after.error().describe();
  ASSERT_EQ(after->meshes.size(), 1u);
  EXPECT_EQ(after->meshes[0].influenceOffsets, before.meshes.at(0).influenceOffsets);
  ASSERT_EQ(after->meshes[0].influences.size(), before.meshes[0].influences.size());
  for (size_t i = 0; i < before.meshes[0].influences.size(); ++i) {
    EXPECT_EQ(after->meshes[0].influences[i].bone, before.meshes[0].influences[i].bone) << i;
    EXPECT_EQ(after->meshes[0].influences[i].weight, before.meshes[0].influences[i].weight) << i;
  }
}

namespace {

using test::expectSameMesh;

// A read mesh by mesh (ReadOptions::meshBuilt, what `info` does) against an ordinary read of the
// same bytes: the same outcome and error, the same warnings in the same order, the same skeleton,
// and each mesh handed over complete and identical to the ordinary read's, then let go.
void expectMeshByMeshReadIsTheOrdinaryRead(std::span<const uint8_t> bytes, const std::string& where) {
  ReadContext ordinaryContext;
  const auto ordinary = readDff(bytes, ordinaryContext);
  std::vector<Mesh> handed;
  ReadOptions options;
  options.meshBuilt = [&](Rig& rig, size_t r, size_t m) -> Status {
    EXPECT_EQ(r, 0u) << where;
    EXPECT_EQ(m, handed.size()) << where;
    handed.push_back(rig.meshes[m]);
    Mesh kept;
    kept.name = rig.meshes[m].name;
    kept.attachBone = rig.meshes[m].attachBone;
    rig.meshes[m] = std::move(kept);
    return Ok{};
  };
  ReadContext byMeshContext(options);
  const auto byMesh = readDff(bytes, byMeshContext);
  ASSERT_EQ(ordinary.ok(), byMesh.ok()) << where << ": " << (ordinary.ok() ? byMesh.error().describe() : ordinary.error().describe());
  if (!ordinary) {
    EXPECT_EQ(ordinary.error().describe(), byMesh.error().describe()) << where;
    return;
  }
  ASSERT_EQ(handed.size(), ordinary->meshes.size()) << where;
  for (size_t m = 0; m < handed.size(); ++m) expectSameMesh(handed[m], ordinary->meshes[m], fmt::format("{} mesh {}", where, m));
  ASSERT_EQ(byMesh->provenance.warnings.size(), ordinary->provenance.warnings.size()) << where;
  for (size_t w = 0; w < ordinary->provenance.warnings.size(); ++w) {
    const Warning& x = byMesh->provenance.warnings[w];
    const Warning& y = ordinary->provenance.warnings[w];
    EXPECT_EQ(std::tie(x.code, x.message, x.count), std::tie(y.code, y.message, y.count)) << where << " warning " << w;
  }
  ASSERT_EQ(byMesh->skeleton.bones.size(), ordinary->skeleton.bones.size()) << where;
  for (size_t b = 0; b < ordinary->skeleton.bones.size(); ++b) {
    const Bone& x = byMesh->skeleton.bones[b];
    const Bone& y = ordinary->skeleton.bones[b];
    EXPECT_EQ(x.name, y.name) << where;
    EXPECT_EQ(std::memcmp(&x.translation, &y.translation, sizeof x.translation), 0) << where << " bone " << b;
    EXPECT_EQ(std::memcmp(&x.rotation, &y.rotation, sizeof x.rotation), 0) << where << " bone " << b;
  }
  EXPECT_EQ(byMesh->skeleton.joints, ordinary->skeleton.joints) << where;
  for (const Mesh& m : byMesh->meshes) EXPECT_TRUE(m.positions.empty() && m.influences.empty()) << where << ": let go";
}

}  // namespace

TEST(RenderwareDff, MeshByMeshReadIsTheOrdinaryReadForEverySampleAndByteFlip) {
  for (const char* name : kSamples) {
    // The sample, and the sample written as RW 3.2, whose geometries sit inside their atomics (§1.2).
    const auto old = writeDff(readSample(name), DffWriteOptions{0x30200});
    ASSERT_TRUE(old.ok()) << old.error().describe();
    for (auto [file, bytes] : {std::pair{std::string(name), sampleBytes(name)}, std::pair{fmt::format("{} as 3.2", name), *old}}) {
      expectMeshByMeshReadIsTheOrdinaryRead(bytes, file);
      for (size_t i = 0; i < bytes.size(); ++i) {
        bytes[i] ^= 0xFF;
        expectMeshByMeshReadIsTheOrdinaryRead(bytes, fmt::format("{} flipped at {}", file, i));
        bytes[i] ^= 0xFF;
        if (HasFailure()) return;  // one broken case says enough
      }
    }
  }
}

namespace {

// A DFF of three skinned meshes of 30,000 vertices, over Source::kReadBelowBytes so that it is
// mapped, written to scratch folder `dir`; returns its path.
std::string writeMappedDff(const std::string& dir) {
  Rig rig;
  rig.provenance.axes = kRenderWareAxes;
  Bone root;
  root.name = "root";
  rig.skeleton.bones = {root};
  Bone child = root;
  child.name = "child";
  child.parent = 0;
  child.translation = {0, 0, 1};
  rig.skeleton.bones.push_back(child);
  rig.skeleton.joints = {0, 1};
  for (int m = 0; m < 3; ++m) {
    Mesh mesh;
    mesh.name = fmt::format("mesh{}", m);
    mesh.influenceOffsets = {0};
    for (uint32_t v = 0; v < 30000; ++v) {
      mesh.positions.push_back(glm::vec3(static_cast<float>(v % 173), static_cast<float>(v / 173), static_cast<float>(m)));
      mesh.influences.push_back(Influence{v % 2, 0.25f + 0.5f * static_cast<float>(v % 2)});
      mesh.influences.push_back(Influence{1 - v % 2, 0.75f - 0.5f * static_cast<float>(v % 2)});
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
    for (uint32_t v = 0; v + 2 < 30000; v += 3) mesh.indices.insert(mesh.indices.end(), {v, v + 1, v + 2});
    rig.meshes.push_back(mesh);
  }
  const auto written = writeDff(rig);
  EXPECT_TRUE(written.ok()) << written.error().describe();
  EXPECT_GT(written->size(), 2 * Source::kReadBelowBytes);
  const std::string path = test::scratchDir(dir) + "/big.dff";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(written->data()), static_cast<std::streamsize>(written->size()));
  return path;
}

}  // namespace

// A mapped file that another program truncates while rigport reads it: the read is refused with
// an Io error naming the file and the offset where its bytes ended, instead of dying of SIGBUS.
TEST(RenderwareDff, AFileThatShrinksWhileReadIsRefusedWithTheOffsetWhereItEnded) {
  platform::enableMappingFaultGuard();  // files are mapped only where a program asked for it
  const std::string path = writeMappedDff("dff_shrinks");
  auto source = Source::open(path, Budget::kDefaultLimit);
  ASSERT_TRUE(source.ok()) << source.error().describe();
  const size_t size = (*source)->bytes().size();
  ReadContext ctx{ReadOptions{}};
#if defined(_WIN32)
  // Windows refuses to shrink a file while a view of it is mapped (platform/files_windows.cpp): the
  // read sees the whole file.
  ASSERT_NE(::truncate(path.c_str(), static_cast<off_t>(size / 2)), 0);
  const auto whole = readAsset(**source, ctx);
  EXPECT_TRUE(whole.ok()) << whole.error().describe();
  EXPECT_EQ(std::filesystem::file_size(path), size);
#else
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(size / 2)), 0);
  const auto asset = readAsset(**source, ctx);
  ASSERT_FALSE(asset.ok());
  EXPECT_EQ(asset.error().code, ErrorCode::Io);
  EXPECT_EQ(asset.error().file, path);
  ASSERT_TRUE(asset.error().offset.has_value());
  EXPECT_GE(*asset.error().offset, size / 2);
  EXPECT_LT(*asset.error().offset, size);
  EXPECT_NE(asset.error().describe().find("became shorter while it was read"), std::string::npos) << asset.error().describe();
#endif
}

// A file over Source::kReadBelowBytes is mapped, and the mesh-by-mesh read gives its pages back as
// it goes (Source::release): each geometry's pages go once it is checked, and it is read again
// from the page cache at its use, which must give the same model.
TEST(RenderwareDff, MeshByMeshReadOfAMappedFileGivesItsPagesBackAndTheSameModel) {
  platform::enableMappingFaultGuard();  // files are mapped only where a program asked for it
  const std::string path = writeMappedDff("dff_mesh_by_mesh");
  auto source = Source::open(path, Budget::kDefaultLimit);
  ASSERT_TRUE(source.ok()) << source.error().describe();
  const std::span<const uint8_t> bytes = (*source)->bytes();
  const auto ordinary = readDff(bytes);
  ASSERT_TRUE(ordinary.ok()) << ordinary.error().describe();
  ReadOptions options;
  size_t released = 0;
  std::vector<Mesh> handed;
  options.meshBuilt = [&](Rig& r, size_t, size_t m) -> Status {
    handed.push_back(std::exchange(r.meshes[m], Mesh{}));
    return Ok{};
  };
  ReadContext ctx(options);
  ctx.releaseBytes = [&](std::span<const uint8_t> b) {
    ++released;
    (*source)->release(b);
  };
  const auto byMesh = readDff(bytes, ctx);
  ASSERT_TRUE(byMesh.ok()) << byMesh.error().describe();
  EXPECT_GE(released, 6u) << "each geometry's pages, once checked and once used";
  ASSERT_EQ(handed.size(), ordinary->meshes.size());
  for (size_t m = 0; m < handed.size(); ++m) expectSameMesh(handed[m], ordinary->meshes[m], fmt::format("mesh {}", m));
}

// The writer maps a rig from other axes vertex by vertex as it writes each geometry (no converted
// copy of the rig): the file is byte for byte the one it writes from a copy converted first by
// convertAxes() (a Y-up rig; a left-handed one in inches, whose mirror turns every triangle), with a
// skinned mesh, one riding a bone and one on no bone (taken into the first frame's space).
TEST(RenderwareDff, WriterMapsVerticesAsItWritesThemByteForByteAsFromAConvertedCopy) {
  const Rig sample = readSample("synthetic_skin_rw36003.dff");
  const AxisSystem sources[] = {AxisSystem{}, AxisSystem{AxisSystem::Up::Y, AxisSystem::Axis::NegZ, false, 0.0254f}};
  for (const AxisSystem& source : sources) {
    Rig rig = sample;
    Mesh rider = rig.meshes[0];
    rider.influences.clear();
    rider.influenceOffsets.clear();
    rider.attachBone = 2;
    Mesh loose = rider;
    loose.attachBone = -1;
    rig.meshes.push_back(rider);
    rig.meshes.push_back(loose);
    convertAxes(rig, source);  // now in `source` axes, as a reader of such a file leaves it
    ASSERT_EQ(rig.provenance.axes, source);
    Rig converted = rig;
    convertAxes(converted, kRenderWareAxes);
    auto mapped = writeDff(rig);
    auto copied = writeDff(converted);
    ASSERT_TRUE(mapped.ok()) << mapped.error().describe();
    ASSERT_TRUE(copied.ok()) << copied.error().describe();
    EXPECT_TRUE(*mapped == *copied) << "source up " << static_cast<int>(source.up) << ", right-handed " << source.rightHanded;
  }
}

// boundingSphere() takes its box in SSE2 lanes: the box of glm::min/max in vertex order, bit for
// bit, NaN and signed zeros included (a NaN first vertex stays in the box, as glm's comparison keeps it).
TEST(RenderwareDff, BoundingSphereLanesMatchTheScalarRule) {
  const float values[] = {1.5f, -0.0f, 0.0f, -2.25f, std::numeric_limits<float>::infinity(), 3e-39f, std::numeric_limits<float>::quiet_NaN(), -7.0f, 4.0f};
  for (size_t n = 1; n < 12; ++n) {
    for (size_t shift = 0; shift < 9; ++shift) {
      std::vector<glm::vec3> p(n);
      for (size_t v = 0; v < n; ++v) p[v] = glm::vec3(values[(v + shift) % 9], values[(2 * v + shift + 1) % 9], values[(5 * v + shift + 3) % 9]);
      glm::vec3 lo = p[0], hi = p[0];
      for (const glm::vec3& v : p) {
        lo = glm::min(lo, v);
        hi = glm::max(hi, v);
      }
      const glm::vec3 c = (lo + hi) * 0.5f;
      const glm::vec4 expected(c, glm::length(hi - c));
      const glm::vec4 got = boundingSphere(p);
      // Bit for bit, but any NaN matches any NaN: which NaN an operation on two NaNs gives (its sign
      // and payload) IEEE 754 leaves open, and it follows the compiler's order of the operands (the
      // MinGW build's scalar rule gave other NaNs than the lanes, its Linux build the same ones).
      for (int k = 0; k < 4; ++k) {
        const bool same = (std::isnan(got[k]) && std::isnan(expected[k])) || std::bit_cast<uint32_t>(got[k]) == std::bit_cast<uint32_t>(expected[k]);
        EXPECT_TRUE(same) << n << " vertices, shift " << shift << ", component " << k << ": " << got[k] << " against " << expected[k];
      }
    }
  }
}
