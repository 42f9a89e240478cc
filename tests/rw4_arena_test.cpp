// RW4 arena reader/writer (format note shared/formats/rw4_arena.md). No public sample exists
// (shared/samples/rw4/SOURCES.md), so fixtures are arenas written by rigport's writer and
// hand-edited copies of them: round trips over every vertex element type, one- and multi-island
// palettes, both byte orders; each acceptance rule broken; base-resource addressing with non-empty
// descriptors; the container listing; a truncation/byte-flip sweep.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <fmt/format.h>
#include <glm/gtc/quaternion.hpp>

#include "core/assemble.hpp"
#include "core/byte_swap.hpp"
#include "platform/files.hpp"
#include "core/hash.hpp"
#include "core/hierarchy_manifest.hpp"
#include "core/quant.hpp"
#include "core/validate.hpp"
#include "formats/registry.hpp"
#include "formats/rw4/arena.hpp"
#include "formats/rw4/axes.hpp"
#include "formats/rw4/rw4.hpp"
#include "support/blender.hpp"
#include "support/gltf_validator.hpp"
#include "support/mesh_compare.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using namespace rigport::rw4;

namespace {

// hips -> spine -> {head, arm_l -> hand_l}, hips -> leg: six bones with rotations and a branch.
Rig makeRig(size_t meshes = 1, int grid = 6) {
  Rig rig;
  rig.name = "skater";
  auto bone = [&](const char* name, int32_t parent, glm::vec3 t, glm::quat r = glm::quat(1, 0, 0, 0)) {
    Bone b;
    b.name = name;
    b.parent = parent;
    b.translation = t;
    b.rotation = r;
    rig.skeleton.bones.push_back(b);
  };
  bone("HIPS", -1, {0, 1, 0});
  bone("SPINE", 0, {0, 0.3f, 0.05f}, glm::angleAxis(0.2f, glm::vec3(1, 0, 0)));
  bone("HEAD", 1, {0, 0.5f, 0});
  bone("ARM_L", 1, {0.3f, 0.4f, 0}, glm::angleAxis(-1.2f, glm::vec3(0, 0, 1)));
  bone("HAND_L", 3, {0.4f, 0, 0}, glm::angleAxis(0.4f, glm::normalize(glm::vec3(1, 1, 0))));
  bone("LEG_R", 0, {-0.15f, -0.5f, 0});
  for (size_t m = 0; m < meshes; ++m) {
    Mesh mesh;
    mesh.name = fmt::format("body{}", m);
    mesh.influenceOffsets.push_back(0);
    for (int y = 0; y < grid; ++y) {
      for (int x = 0; x < grid; ++x) {
        mesh.positions.push_back({(x - grid / 2) * 0.2f + 0.01f * static_cast<float>(m), 0.5f + y * 0.3f, 0.05f * static_cast<float>(x % 2)});
        mesh.normals.push_back(glm::normalize(glm::vec3(0.1f * static_cast<float>(x), 1.0f, -0.2f * static_cast<float>(y))));
        mesh.uvs.push_back({static_cast<float>(x) / static_cast<float>(grid), 1.0f - static_cast<float>(y) / static_cast<float>(grid)});
        const uint32_t count = 1 + static_cast<uint32_t>((x + y) % 4);
        float sum = 0;
        std::vector<Influence> inf;
        for (uint32_t k = 0; k < count; ++k) {
          inf.push_back({static_cast<uint32_t>((x + 2 * y + k + m) % 6), 0.2f + 0.3f * static_cast<float>(k)});
          sum += inf.back().weight;
        }
        for (Influence& i : inf) mesh.influences.push_back({i.bone, i.weight / sum});
        mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
      }
    }
    for (uint32_t y = 0; y + 1 < static_cast<uint32_t>(grid); ++y) {
      for (uint32_t x = 0; x + 1 < static_cast<uint32_t>(grid); ++x) {
        const uint32_t a = y * grid + x, b = a + 1, c = a + grid, d = c + 1;
        mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c});
      }
    }
    rig.meshes.push_back(std::move(mesh));
  }
  return rig;
}

// `rig` labelled as already in `platform`'s axes, so the writer stores its values as they are:
// these tests check the bytes; rw4_spore_test.cpp checks the axes each platform declares.
Rig inAxesOf(Platform platform, Rig rig) {
  rig.provenance.axes = axesOf(platform);
  return rig;
}

std::vector<uint8_t> write(const Rig& rig, const ArenaWriteOptions& o = {}) {
  auto bytes = writeArena(rig, o);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().describe());
  return bytes.ok() ? std::move(*bytes) : std::vector<uint8_t>{};
}

Result<Asset> readBytes(const std::vector<uint8_t>& bytes, const ReadOptions& options = {}, const std::string& name = "test.psg") {
  const auto source = Source::fromBytes(bytes, name);
  ReadContext ctx(options);
  return readArena(*source, ctx);
}

Rig readOne(const std::vector<uint8_t>& bytes, const ReadOptions& options = {}) {
  auto asset = readBytes(bytes, options);
  EXPECT_TRUE(asset.ok()) << (asset.ok() ? "" : asset.error().describe());
  if (!asset.ok() || asset->rigs.size() != 1) {
    ADD_FAILURE() << "expected one rig";
    return Rig{};
  }
  return std::move(asset->rigs.front());
}

bool hasWarning(const Rig& rig, const std::string& code, const std::string& text = "") {
  for (const Warning& w : rig.provenance.warnings) {
    if (w.code == code && w.message.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string warnings(const Rig& rig) {
  std::string out;
  for (const Warning& w : rig.provenance.warnings) out += "[" + w.code + "] " + w.message + "\n";
  return out;
}

// Per-vertex weights by bone name, so rigs whose bone order differs compare.
std::map<std::string, float> weightsOf(const Rig& rig, const Mesh& mesh, size_t v) {
  std::map<std::string, float> out;
  for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) {
    out[rig.skeleton.bones[mesh.influences[i].bone].name] += mesh.influences[i].weight;
  }
  return out;
}

struct Tolerances {
  float position = 1e-6f, normal = 1e-6f, uv = 1e-6f, weight = 1e-6f;
};

void expectSameRig(const Rig& a, const Rig& b, const Tolerances& tol, bool parents = true) {
  ASSERT_EQ(a.skeleton.bones.size(), b.skeleton.bones.size());
  const auto wa = a.skeleton.worldBindMatrices();
  const auto wb = b.skeleton.worldBindMatrices();
  for (size_t i = 0; i < a.skeleton.bones.size(); ++i) {
    const Bone& x = a.skeleton.bones[i];
    const int32_t j = b.skeleton.find(x.name);
    ASSERT_GE(j, 0) << x.name;
    const Bone& y = b.skeleton.bones[static_cast<size_t>(j)];
    if (parents) {
      EXPECT_EQ(x.parent < 0 ? "" : a.skeleton.bones[static_cast<size_t>(x.parent)].name,
                y.parent < 0 ? "" : b.skeleton.bones[static_cast<size_t>(y.parent)].name) << x.name;
    }
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 4; ++r) EXPECT_NEAR(wa[i][c][r], wb[static_cast<size_t>(j)][c][r], 1e-5f) << x.name << " world " << c << r;
    }
  }
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    const Mesh& x = a.meshes[m];
    const Mesh& y = b.meshes[m];
    ASSERT_EQ(x.vertexCount(), y.vertexCount());
    EXPECT_EQ(x.indices, y.indices);
    ASSERT_TRUE(y.skinned());
    for (size_t v = 0; v < x.vertexCount(); ++v) {
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(x.positions[v][k], y.positions[v][k], tol.position) << "vertex " << v;
      if (!x.normals.empty()) {
        ASSERT_EQ(y.normals.size(), x.normals.size());
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(x.normals[v][k], y.normals[v][k], tol.normal) << "vertex " << v;
      }
      if (!x.uvs.empty()) {
        ASSERT_EQ(y.uvs.size(), x.uvs.size());
        for (int k = 0; k < 2; ++k) EXPECT_NEAR(x.uvs[v][k], y.uvs[v][k], tol.uv) << "vertex " << v;
      }
      const auto ex = weightsOf(a, x, v), got = weightsOf(b, y, v);
      float sum = 0;
      for (const auto& [name, w] : got) sum += w;
      EXPECT_NEAR(sum, 1.0f, 1e-5f) << "vertex " << v;
      for (const auto& [name, w] : ex) {
        const auto it = got.find(name);
        EXPECT_NEAR(it == got.end() ? 0.0f : it->second, w, tol.weight) << "vertex " << v << " bone " << name;
      }
      for (const auto& [name, w] : got) EXPECT_TRUE(ex.count(name) == 1 || w <= tol.weight) << "vertex " << v << " gained " << name;
    }
  }
}

uint32_t get32(const std::vector<uint8_t>& b, size_t at, Endian e) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return e == Endian::Big ? byteSwap(v) : v;
}
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v, Endian e) {
  if (e == Endian::Big) v = byteSwap(v);
  std::memcpy(b.data() + at, &v, 4);
}
void put16(std::vector<uint8_t>& b, size_t at, uint16_t v, Endian e) {
  if (e == Endian::Big) v = byteSwap(v);
  std::memcpy(b.data() + at, &v, 2);
}

Arena parse(const std::vector<uint8_t>& bytes) {
  ByteReader root(bytes);
  Provenance prov;
  auto arena = parseArena(root, prov);
  EXPECT_TRUE(arena.ok()) << (arena.ok() ? "" : arena.error().describe());
  return arena.ok() ? std::move(*arena) : Arena{};
}

// File offset of the first dictionary row of `type`.
size_t objectAt(const std::vector<uint8_t>& bytes, uint32_t type) {
  const Arena a = parse(bytes);
  for (const DictEntry& e : a.dictionary)
    if (e.typeId == type) return static_cast<size_t>(e.fileOffset);
  ADD_FAILURE() << "no object of type " << typeName(type);
  return 0;
}

Tolerances tolerancesFor(const VertexLayout& l) {
  Tolerances t;
  auto positionTol = [](uint8_t type) { return type == kF ? 1e-6f : type == kSF ? 2e-3f : 0.5f / 256.0f + 1e-6f; };
  t.position = positionTol(l.position);
  t.normal = l.normal == kF ? 1e-6f : l.normal == kCMP ? 2.5e-3f : l.normal == kSF ? 1e-3f : 1e-4f;
  t.uv = l.uv == kF ? 1e-6f : l.uv == kSF ? 5e-4f : l.uv == kUB ? 0.5f / 255.0f + 1e-6f : 1e-4f;
  // Each stored weight is off by half a code; after renormalising by a sum that is itself off, at
  // most about twice that.
  t.weight = l.weights == kF ? 1e-6f : l.weights == kSF ? 2e-3f : (l.weights == kUB || l.weights == kUB256) ? 4.0f / 255.0f : 1e-4f;
  return t;
}

}  // namespace

TEST(Rw4Arena, Ps3RoundTripReproducesTheRig) {
  const Rig rig = makeRig();
  const std::vector<uint8_t> bytes = write(rig);
  ASSERT_TRUE(probeArena(bytes));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + 4), 3), "ps3");
  EXPECT_EQ(bytes[kHeaderIsBigEndian], 1);
  const Rig back = readOne(bytes);
  ASSERT_TRUE(validate(back).ok());
  expectSameRig(rig, back, tolerancesFor(VertexLayout{}));
  EXPECT_TRUE(back.provenance.warnings.empty()) << warnings(back);
  // Inverse bind matrices are stored as float32 and come back bit for bit.
  const auto world = rig.skeleton.worldBindMatrices();
  for (size_t b = 0; b < rig.skeleton.bones.size(); ++b) {
    const Bone& y = back.skeleton.bones[static_cast<size_t>(back.skeleton.find(rig.skeleton.bones[b].name))];
    ASSERT_TRUE(y.inverseBind.has_value());
    const glm::mat4 expected = glm::inverse(world[b]);
    for (int k = 0; k < 16; ++k) EXPECT_EQ((*y.inverseBind)[k / 4][k % 4], expected[k / 4][k % 4]);
  }
}

TEST(Rw4Arena, PcArenaIsLittleEndianAndReadsBackTheSame) {
  ArenaWriteOptions o;
  o.platform = Platform::Pc;
  const Rig rig = inAxesOf(Platform::Pc, makeRig(2));
  const std::vector<uint8_t> bytes = write(rig, o);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + 4), 3), "w32");
  EXPECT_EQ(bytes[kHeaderIsBigEndian], 0);
  EXPECT_EQ(get32(bytes, 0x34, Endian::Little), 0x98u);  // §2.1: sections right after the 4-descriptor header
  expectSameRig(rig, readOne(bytes), tolerancesFor(VertexLayout{}));
}

// Every element type of §3.1 in some usage, in both byte orders.
TEST(Rw4Arena, EveryVertexElementTypeRoundTripsInBothByteOrders) {
  const VertexLayout layouts[] = {
      {kF, kF, kF, kF, kF},
      {kSF, kSF, kSF, kSF, kSF},
      {kS1, kS1, kS1, kS1, kS1},
      {kS32K, kCMP, kUB, kS32K, kS32K},
      {kF, kCMP, kSF, kUB, kUB256},
      {kF, kCMP, kSF, kUB256, kUB},
  };
  for (Platform p : {Platform::Ps3, Platform::Pc}) {
    const Rig rig = inAxesOf(p, makeRig(2));
    for (const VertexLayout& l : layouts) {
      SCOPED_TRACE(fmt::format("{} pos {} nrm {} uv {} wgt {} idx {}", platformInfo(p).name, vertexTypeName(l.position),
                               vertexTypeName(l.normal), vertexTypeName(l.uv), vertexTypeName(l.weights), vertexTypeName(l.indices)));
      ArenaWriteOptions o;
      o.platform = p;
      o.layout = l;
      const Rig back = readOne(write(rig, o));
      expectSameRig(rig, back, tolerancesFor(l));
      EXPECT_TRUE(back.provenance.warnings.empty()) << warnings(back);
    }
  }
}

TEST(Rw4Arena, ComponentSizeGovernsTheStepBetweenComponents) {
  // Weights as F (4-byte steps) and indices as S32K (2-byte steps): a reader stepping one byte per
  // component would read garbage slots and weights.
  ArenaWriteOptions o;
  o.layout.weights = kF;
  o.layout.indices = kS32K;
  const std::vector<uint8_t> bytes = write(makeRig(), o);
  const size_t vd = objectAt(bytes, kVertexDescriptor);
  const uint16_t n = static_cast<uint16_t>((bytes[vd + 0x0A] << 8) | bytes[vd + 0x0B]);
  size_t checked = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* e = bytes.data() + vd + kVertexDescriptorHeader + i * kVertexElementSize;
    if (e[6] == kWeights) {
      EXPECT_EQ(e[0], kF);
      ++checked;
    }
    if (e[6] == kIndices) {
      EXPECT_EQ(e[0], kS32K);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2u);
  expectSameRig(makeRig(), readOne(bytes), tolerancesFor(o.layout));
}

TEST(Rw4Arena, MultiIslandPaletteIsReadThroughTheRemapTable) {
  ArenaWriteOptions o;
  o.islandsPerMesh = 3;
  const Rig rig = makeRig(2);
  const std::vector<uint8_t> bytes = write(rig, o);
  const size_t mesh = objectAt(bytes, kRenderOptiMeshData);
  EXPECT_EQ(get32(bytes, mesh + optimesh::kNumIslands, Endian::Big), 3u);
  // §4.2: the table follows three 12-byte draw records, not the one-island +0x6C.
  EXPECT_EQ(get32(bytes, mesh + optimesh::kRemapTable, Endian::Big), optimesh::kHeaderSize + 3 * kDrawParamsSize);
  const Rig back = readOne(bytes);
  expectSameRig(rig, back, tolerancesFor(o.layout));
  EXPECT_TRUE(back.provenance.warnings.empty()) << warnings(back);
}

TEST(Rw4Arena, OneIslandMeshWithoutRemapTableFallsBackToTheWalkthroughRule) {
  const Rig rig = makeRig();
  std::vector<uint8_t> bytes = write(rig);
  const size_t mesh = objectAt(bytes, kRenderOptiMeshData);
  EXPECT_EQ(get32(bytes, mesh + optimesh::kRemapTable, Endian::Big), optimesh::kOneIslandRemapTable);
  put32(bytes, mesh + optimesh::kNumRemapIndices, 0, Endian::Big);
  const Rig back = readOne(bytes);
  EXPECT_TRUE(hasWarning(back, "rw4-palette-fallback", "+0x6C")) << warnings(back);
  expectSameRig(rig, back, tolerancesFor(VertexLayout{}));
}

TEST(Rw4Arena, MultiIslandMeshWithoutRemapTableIsSkippedWithTheReason) {
  ArenaWriteOptions o;
  o.islandsPerMesh = 2;
  std::vector<uint8_t> bytes = write(makeRig(), o);
  put32(bytes, objectAt(bytes, kRenderOptiMeshData) + optimesh::kNumRemapIndices, 0, Endian::Big);
  const Rig back = readOne(bytes);
  EXPECT_TRUE(back.meshes.empty());
  EXPECT_TRUE(hasWarning(back, "rw4-mesh-skipped", "no remap table for a mesh of 2 islands")) << warnings(back);
  EXPECT_EQ(back.skeleton.bones.size(), 6u);
}

// The public Skate model arena's sky (docs/rw4_materials.md) has no blend indices: a static mesh,
// read unskinned on the model's root. Without positions either, the mesh is skipped.
TEST(Rw4Arena, AStreamWithoutBlendIndicesIsStaticAndOneWithoutPositionsIsSkipped) {
  std::vector<uint8_t> bytes = write(makeRig());
  const size_t vd = objectAt(bytes, kVertexDescriptor);
  for (size_t i = 0; i < bytes[vd + 0x0B]; ++i) {
    uint8_t* e = bytes.data() + vd + kVertexDescriptorHeader + i * kVertexElementSize;
    if (e[6] == kIndices) e[6] = kTex0 + 1;  // the blend indices become TEX1: a stream without indices
  }
  const Rig back = readOne(bytes);
  ASSERT_EQ(back.meshes.size(), 1u) << warnings(back);
  EXPECT_FALSE(back.meshes[0].skinned());
  EXPECT_EQ(back.meshes[0].positions.size(), makeRig().meshes[0].positions.size());
  for (size_t i = 0; i < bytes[vd + 0x0B]; ++i) {
    uint8_t* e = bytes.data() + vd + kVertexDescriptorHeader + i * kVertexElementSize;
    if (e[6] == kXYZ) e[6] = kTex0 + 2;
  }
  const Rig none = readOne(bytes);
  EXPECT_TRUE(none.meshes.empty());
  EXPECT_TRUE(hasWarning(none, "rw4-no-positions", "neither blend indices nor positions")) << warnings(none);
}

TEST(Rw4Arena, WithoutParentsEveryBoneHangsUnderTheFirstWithAWarning) {
  ArenaWriteOptions o;
  o.skeletonObject = false;
  const Rig rig = makeRig();
  const Rig back = readOne(write(rig, o));
  ASSERT_EQ(back.skeleton.bones.size(), 6u);
  EXPECT_EQ(back.skeleton.bones[0].parent, -1);
  for (size_t b = 1; b < 6; ++b) EXPECT_EQ(back.skeleton.bones[b].parent, 0);
  EXPECT_TRUE(hasWarning(back, "rw4-no-hierarchy", "--hierarchy")) << warnings(back);
  // World bind poses are the file's whatever the parents: meshes and weights are unchanged.
  expectSameRig(rig, back, tolerancesFor(o.layout), /*parents=*/false);
}

TEST(Rw4Arena, HierarchyManifestGivesTheParents) {
  ArenaWriteOptions o;
  o.skeletonObject = false;
  const Rig rig = makeRig();
  const std::vector<uint8_t> bytes = write(rig, o);
  auto manifest = parseHierarchyManifest(
      R"({"HIPS": null, "SPINE": "HIPS", "HEAD": "SPINE", "ARM_L": "SPINE", "HAND_L": "ARM_L", "LEG_R": "HIPS", "NOT_HERE": "HIPS"})", "h.json");
  ASSERT_TRUE(manifest.ok()) << manifest.error().describe();
  ReadOptions ro;
  ro.boneParents = std::make_shared<const BoneParentMap>(*manifest);
  const Rig back = readOne(bytes, ro);
  expectSameRig(rig, back, tolerancesFor(o.layout));
  EXPECT_TRUE(back.provenance.warnings.empty()) << warnings(back);
  // Local TRS of each bone matches the source's (bind pose by inverting, then relative to the parent).
  for (const Bone& x : rig.skeleton.bones) {
    const Bone& y = back.skeleton.bones[static_cast<size_t>(back.skeleton.find(x.name))];
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(x.translation[k], y.translation[k], 1e-5f) << x.name;
    EXPECT_NEAR(std::fabs(glm::dot(x.rotation, y.rotation)), 1.0f, 1e-5f) << x.name;
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(y.scale[k], 1.0f, 1e-5f) << x.name;
  }
}

TEST(Rw4Arena, ManifestWithACycleOrMissingBonesIsReported) {
  ArenaWriteOptions o;
  o.skeletonObject = false;
  const std::vector<uint8_t> bytes = write(makeRig(), o);
  ReadOptions ro;
  ro.boneParents = std::make_shared<const BoneParentMap>(BoneParentMap{{"SPINE", "HEAD"}, {"HEAD", "SPINE"}});
  auto cyc = readBytes(bytes, ro);
  ASSERT_FALSE(cyc.ok());
  EXPECT_NE(cyc.error().message.find("cycle"), std::string::npos) << cyc.error().describe();
  ro.boneParents = std::make_shared<const BoneParentMap>(BoneParentMap{{"SPINE", "HIPS"}, {"HEAD", "NOBODY"}});
  const Rig back = readOne(bytes, ro);
  EXPECT_TRUE(hasWarning(back, "rw4-hierarchy", "not in the hierarchy manifest")) << warnings(back);
  EXPECT_TRUE(hasWarning(back, "rw4-hierarchy", "parent the arena does not hold")) << warnings(back);
  EXPECT_FALSE(parseHierarchyManifest("[1,2]", "x.json").ok());
  EXPECT_FALSE(parseHierarchyManifest(R"({"A": 3})", "x.json").ok());
  EXPECT_FALSE(parseHierarchyManifest(R"({"A": "A"})", "x.json").ok());
}

TEST(Rw4Arena, ScaledBindPoseIsDecomposedAndReported) {
  Rig rig = makeRig();
  rig.skeleton.bones[3].scale = {1.5f, 1.5f, 1.5f};
  const Rig back = readOne(write(rig));
  EXPECT_TRUE(hasWarning(back, "rw4-bind-scale", "'ARM_L'")) << warnings(back);
  const Bone& arm = back.skeleton.bones[static_cast<size_t>(back.skeleton.find("ARM_L"))];
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(arm.scale[k], 1.5f, 1e-5f);
  expectSameRig(rig, back, tolerancesFor(VertexLayout{}));
}

// Walkthrough §2 acceptance rules, each broken in a written arena: a clear error naming the field.
TEST(Rw4Arena, EachAcceptanceRuleBrokenGivesItsError) {
  const std::vector<uint8_t> good = write(makeRig());
  const size_t md = objectAt(good, kRenderModelData);
  struct Case {
    const char* what;
    size_t field;
    uint32_t value;
    const char* path;
    const char* message;
  } cases[] = {
      {"IBMs past the object", model::kIBPMatrices, 0x4000, "m_pIBPMatrices", "inverse bind matrices"},
      {"name table past the object", model::kBoneNameTable, 0x4000, "m_pBoneNameTable", "name table"},
      {"name pool outside the object", model::kBoneNameList, 0x4000, "m_pBoneNameList", "name pool"},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> bytes = good;
    put32(bytes, md + c.field, c.value, Endian::Big);
    auto r = readBytes(bytes);
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.error().code, ErrorCode::BadValue) << c.what;
    EXPECT_NE(r.error().path.find(c.path), std::string::npos) << c.what << ": " << r.error().describe();
    EXPECT_NE(r.error().message.find(c.message), std::string::npos) << c.what << ": " << r.error().describe();
    ASSERT_TRUE(r.error().offset.has_value());
    EXPECT_EQ(*r.error().offset, md + c.field) << c.what;
  }
  // The first name not printable: its first byte becomes a control character.
  std::vector<uint8_t> bytes = good;
  const uint32_t nameTable = get32(bytes, md + model::kBoneNameTable, Endian::Big);
  const uint32_t firstName = get32(bytes, md + nameTable, Endian::Big);
  bytes[md + firstName] = 0x07;
  auto r = readBytes(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not printable"), std::string::npos) << r.error().describe();
  // No NUL before the object ends: the first name points at the object's last byte.
  bytes = good;
  const Arena arena = parse(good);
  put32(bytes, md + nameTable, arena.dictionary[0].size - 1, Endian::Big);
  bytes[md + arena.dictionary[0].size - 1] = 'A';
  r = readBytes(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("NUL-terminated"), std::string::npos) << r.error().describe();
  // A later bad name is repaired with a warning, not an error.
  bytes = good;
  put32(bytes, md + nameTable + 4, 0xFFFF, Endian::Big);
  const Rig back = readOne(bytes);
  EXPECT_EQ(back.skeleton.find("bone_1"), 1);
  EXPECT_TRUE(hasWarning(back, "rw4-bone-name", "bone 1")) << warnings(back);
}

TEST(Rw4Arena, HeaderErrorsNameTheField) {
  std::vector<uint8_t> bytes = write(makeRig());
  std::vector<uint8_t> wrongEndian = bytes;
  wrongEndian[kHeaderIsBigEndian] = 0;
  auto r = readBytes(wrongEndian);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().path.find("isBigEndian"), std::string::npos) << r.error().describe();
  std::vector<uint8_t> platform = bytes;
  std::memcpy(platform.data() + 4, "psp", 3);
  r = readBytes(platform);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::Unsupported);
  EXPECT_NE(r.error().message.find("'psp'"), std::string::npos) << r.error().describe();
  std::vector<uint8_t> manifest = bytes;
  put32(manifest, 0xC0, 0x12345678, Endian::Big);
  r = readBytes(manifest);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().path.find("SectionManifest"), std::string::npos) << r.error().describe();
  EXPECT_EQ(*r.error().offset, 0xC0u);
}

// §2.1 header layout per platform: N descriptors, sections right after them.
TEST(Rw4Arena, HeaderLayoutMatchesTheNote) {
  const std::vector<uint8_t> ps3 = write(makeRig());
  EXPECT_EQ(get32(ps3, 0x34, Endian::Big), 0xC0u);
  const Arena a = parse(ps3);
  ASSERT_EQ(a.resources.size(), 6u);
  // Descriptor 0 is main memory, 5 the GRAPHICS_LOCAL data; 1..4 empty; together the file.
  EXPECT_EQ(a.resources[0].size + a.resources[5].size, ps3.size());
  for (size_t i = 1; i < 5; ++i) EXPECT_EQ(a.resources[i].size, 0u);
  ASSERT_GE(a.types.size(), 2u);
  EXPECT_EQ(a.types[0], 0u);
  for (const DictEntry& e : a.dictionary) {
    EXPECT_TRUE(e.inFile);
    EXPECT_EQ(a.types[e.typeIndex], e.typeId);
    if (e.typeId == kPs3GraphicsResource) EXPECT_EQ(e.fileOffset, a.resources[0].size + e.ptr);
  }
  // §2.2 subreferences resolve to RenderModelData offsets (the island areas and AABBs).
  ASSERT_EQ(a.subreferences.size(), 2u);
  ByteReader root(ps3, Endian::Big);
  auto ref = resolveRef(a, root, 0, subreference(1), "test");
  ASSERT_TRUE(ref.ok());
  ASSERT_TRUE(ref->has_value());
  EXPECT_EQ(a.dictionary[(*ref)->object].typeId, kRenderModelData);
  EXPECT_GT((*ref)->offset, 0u);
  EXPECT_FALSE(resolveRef(a, root, 0, subreference(9), "test").ok());
  auto none = resolveRef(a, root, 0, kRefNoneValue, "test");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

// §2.4: base resource 0x10030 + k lives after descriptors 0..k, not always right after main memory.
TEST(Rw4Arena, BaseResourceAddressSumsEveryDescriptorBeforeIt) {
  const Rig rig = makeRig();
  std::vector<uint8_t> bytes = write(rig);
  const Arena a = parse(bytes);
  const uint32_t mainSize = a.resources[0].size;
  // Give descriptor 2 (UNINITIALIZED) 0x100 bytes between main memory and the graphics data.
  bytes.insert(bytes.begin() + mainSize, 0x100, 0xEE);
  put32(bytes, kResourceDescriptors + 2 * 8, 0x100, Endian::Big);
  expectSameRig(rig, readOne(bytes), tolerancesFor(VertexLayout{}));
}

TEST(Rw4Arena, ListNamesEveryDictionaryObject) {
  const std::vector<uint8_t> bytes = write(makeRig(2));
  const auto source = Source::fromBytes(bytes, "x.psg");
  ReadContext ctx;
  auto items = listArena(*source, ctx);
  ASSERT_TRUE(items.ok()) << items.error().describe();
  const Arena a = parse(bytes);
  ASSERT_EQ(items->size(), a.dictionary.size());
  std::map<std::string, int> kinds;
  for (size_t i = 0; i < items->size(); ++i) {
    const ItemInfo& item = (*items)[i];
    EXPECT_EQ(item.id, std::to_string(i));
    EXPECT_EQ(item.bytes, a.dictionary[i].size);
    EXPECT_NE(item.name.find(fmt::format("0x{:08X}", a.dictionary[i].typeId)), std::string::npos) << item.name;
    ++kinds[item.name.substr(0, item.name.find(" ("))];
    EXPECT_EQ(item.kind, a.dictionary[i].resource == 0 ? "object" : "resource");
  }
  EXPECT_EQ(kinds["RenderModelData"], 1);
  EXPECT_EQ(kinds["Skeleton"], 1);
  EXPECT_EQ(kinds["RenderOptiMeshData"], 2);
  EXPECT_EQ(kinds["VertexDescriptor"], 2);
  EXPECT_EQ(kinds["BaseResource 4"], 4);
  EXPECT_NE((*items)[2].name.find("main memory"), std::string::npos);
}

TEST(Rw4Arena, RegistryDetectsAndWritesArenas) {
  const FormatInfo* f = findFormat("rw4-arena");
  ASSERT_NE(f, nullptr);
  ASSERT_NE(f->write, nullptr);
  auto bytes = f->write(makeRig());
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(detectFormat(*bytes, "x.bin"), f);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes->data() + 4), 3), "ps3");
  EXPECT_FALSE(f->probe(std::vector<uint8_t>(16, 0)));
}

TEST(Rw4Arena, WriterRefusesWhatAnArenaCannotHold) {
  Rig none;
  EXPECT_EQ(writeArena(none).error().code, ErrorCode::Usage);
  ArenaWriteOptions o;
  o.layout.position = kCMP;
  EXPECT_EQ(writeArena(makeRig(), o).error().code, ErrorCode::Usage);
  o = {};
  o.layout.position = kS1;
  Rig far = makeRig();
  far.meshes[0].positions[0].x = 500.0f;
  EXPECT_EQ(writeArena(far, o).error().code, ErrorCode::Usage);
}

void addAnimation(Rig& rig);

TEST(Rw4Arena, EveryTruncationAndByteFlipFailsCleanly) {
  ArenaWriteOptions pc;
  pc.platform = Platform::Pc;
  pc.animationObjects = true;
  ArenaWriteOptions ps3;
  ps3.islandsPerMesh = 2;
  Rig animated = makeRig(1, 3);
  addAnimation(animated);
  size_t runs = 0, failures = 0;
  for (const std::vector<uint8_t>& original : {write(makeRig(1, 3), ps3), write(animated, pc)}) {
    for (size_t len = 0; len < original.size(); ++len) {
      auto r = readBytes(std::vector<uint8_t>(original.begin(), original.begin() + static_cast<long>(len)));
      ++runs;
      // The descriptors' sizes add up to the file: every proper prefix is short.
      ASSERT_FALSE(r.ok()) << "truncated at " << len << " was accepted";
      ++failures;
      EXPECT_TRUE(r.error().offset.has_value()) << "truncated at " << len << ": " << r.error().describe();
    }
    std::vector<uint8_t> bytes = original;
    for (size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] ^= 0xFF;
      auto r = readBytes(bytes);
      ++runs;
      if (!r) {
        ++failures;
        EXPECT_TRUE(r.error().offset.has_value() || r.error().path == "hierarchy") << "flipped at " << i << ": " << r.error().describe();
      } else {
        for (const Rig& rig : r->rigs) EXPECT_TRUE(validate(rig).ok()) << "flipped at " << i;
      }
      bytes[i] ^= 0xFF;
    }
  }
  EXPECT_GT(failures, 0u);
  RecordProperty("runs", static_cast<int>(runs));
}

TEST(Rw4Arena, CliInfoListsObjectsAndConvertUsesTheHierarchy) {
  const std::string dir = test::scratchDir("rw4_cli");
  ArenaWriteOptions o;
  o.skeletonObject = false;
  const Rig rig = makeRig();
  const std::vector<uint8_t> bytes = write(rig, o);
  const std::string psg = dir + "/skater.psg";
  ASSERT_TRUE(platform::writeFileAtomic(psg, bytes).ok());
  const test::CliRun info = test::runCli("info " + test::quote(psg));
  EXPECT_EQ(info.code, 0) << info.text;
  EXPECT_NE(info.text.find("RenderModelData"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("0x00EB0023"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("rw4-no-hierarchy"), std::string::npos) << info.text;
  {
    std::ofstream h(dir + "/skater.json");
    h << R"({"HIPS": null, "SPINE": "HIPS", "HEAD": "SPINE", "ARM_L": "SPINE", "HAND_L": "ARM_L", "LEG_R": "HIPS"})";
  }
  const test::CliRun conv = test::runCli("convert " + test::quote(psg) + " --hierarchy " + test::quote(dir + "/skater.json") + " -o " +
                                         test::quote(dir + "/skater.glb"));
  ASSERT_EQ(conv.code, 0) << conv.text;
  const test::CliRun missing = test::runCli("convert " + test::quote(psg) + " --hierarchy " + test::quote(dir + "/nope.json") + " -o " +
                                            test::quote(dir + "/nope.glb"));
  EXPECT_EQ(missing.code, 1) << missing.text;
  EXPECT_NE(missing.text.find("nope.json"), std::string::npos) << missing.text;
  EXPECT_FALSE(std::filesystem::exists(dir + "/nope.glb"));
}

namespace {

constexpr const char* kManifest =
    R"({"HIPS": null, "SPINE": "HIPS", "HEAD": "SPINE", "ARM_L": "SPINE", "HAND_L": "ARM_L", "LEG_R": "HIPS"})";

// A PS3 .psg without parents, its hierarchy manifest, and the .glb `rigport convert` makes of them.
struct Converted {
  std::string dir, psg, manifest, glb;
  Rig read;  // what the reader gives with the manifest: the weights the .glb must carry
};

Converted convertWithManifest(const std::string& name) {
  Converted c;
  c.dir = test::scratchDir(name);
  c.psg = c.dir + "/skater.psg";
  c.manifest = c.dir + "/skater_hierarchy.json";
  c.glb = c.dir + "/skater.glb";
  ArenaWriteOptions o;
  o.skeletonObject = false;
  const std::vector<uint8_t> bytes = write(makeRig(), o);
  EXPECT_TRUE(platform::writeFileAtomic(c.psg, bytes).ok());
  std::ofstream(c.manifest) << kManifest;
  const test::CliRun run = test::runCli("convert " + test::quote(c.psg) + " --hierarchy " + test::quote(c.manifest) + " -o " + test::quote(c.glb));
  EXPECT_EQ(run.code, 0) << run.text;
  ReadOptions ro;
  ro.boneParents = std::make_shared<const BoneParentMap>(*parseHierarchyManifest(kManifest, "m.json"));
  c.read = readOne(bytes, ro);
  return c;
}

}  // namespace

TEST(Rw4Gltf, ConvertedPsgWithManifestIsValidatorClean) {
  const Converted c = convertWithManifest("rw4_gltf_validator");
  ASSERT_TRUE(std::filesystem::exists(c.glb));
  const test::ValidatorRun v = test::validateGltfFile(c.glb);
  EXPECT_TRUE(v.ok) << v.output;
}

// Blender headless import (tools/blender_inspect.py), as tests/blender_import_test.cpp: bone names
// and parents from the manifest, and every vertex's group weights as the reader gave them.
TEST(Rw4Gltf, BlenderImportsBonesParentsAndWeights) {
  const Converted c = convertWithManifest("rw4_gltf_blender");
  const test::BlenderRun run = test::inspectWithBlender(c.glb, c.dir + "/report.json");
  ASSERT_TRUE(run.ok) << run.output;
  const nlohmann::json& report = run.report;
  ASSERT_EQ(report["armatures"].size(), 1u);
  std::map<std::string, std::string> parentOf;
  for (const auto& b : report["armatures"][0]["bones"]) parentOf[b["name"]] = b["parent"].is_null() ? "" : b["parent"].get<std::string>();
  const std::map<std::string, std::string> expectedParents{{"HIPS", ""},      {"SPINE", "HIPS"},  {"HEAD", "SPINE"},
                                                           {"ARM_L", "SPINE"}, {"HAND_L", "ARM_L"}, {"LEG_R", "HIPS"}};
  EXPECT_EQ(parentOf, expectedParents);

  ASSERT_EQ(report["meshes"].size(), 1u);
  const auto& mesh = report["meshes"][0];
  const Mesh& source = c.read.meshes.at(0);
  ASSERT_EQ(mesh["vertexCount"], source.vertexCount());
  for (size_t bv = 0; bv < source.vertexCount(); ++bv) {
    const auto& p = mesh["positions"][bv];
    const glm::vec3 gltf(p[0].get<float>(), p[2].get<float>(), -p[1].get<float>());  // Blender Z-up back to glTF Y-up
    size_t v = source.vertexCount();
    for (size_t i = 0; i < source.vertexCount(); ++i) {
      if (glm::distance(source.positions[i], gltf) < 1e-4f) v = i;
    }
    ASSERT_LT(v, source.vertexCount()) << "Blender vertex " << bv << " matches no exported position";
    const auto expected = weightsOf(c.read, source, v);
    const auto& got = mesh["weights"][bv];
    EXPECT_EQ(got.size(), expected.size()) << "vertex " << v << ": " << got.dump();
    for (const auto& [bone, weight] : expected) {
      ASSERT_TRUE(got.contains(bone)) << "vertex " << v << " lacks group " << bone << ": " << got.dump();
      EXPECT_NEAR(got[bone].get<double>(), weight, 1e-4) << "vertex " << v << " group " << bone;
    }
  }
}

// The two fixed arenas of tests/data/samples/rw4 (SOURCES.md there): written once by the writer
// from makeRig(1, 4); they must keep reading as that rig.
TEST(Rw4Arena, FixedFilesReadAsTheRigTheyWereWrittenFrom) {
  const Rig rig = makeRig(1, 4);
  const Rig ps3 = readOne(test::readBytes(test::sample("rw4/skater_ps3.psg")));
  expectSameRig(rig, ps3, tolerancesFor(VertexLayout{}));
  EXPECT_TRUE(ps3.provenance.warnings.empty()) << warnings(ps3);
  const Rig pc = readOne(test::readBytes(test::sample("rw4/skater_pc.rw4")));
  expectSameRig(rig, pc, tolerancesFor(VertexLayout{kS1, kSF, kUB, kS32K, kS1}));
  EXPECT_TRUE(pc.provenance.warnings.empty()) << warnings(pc);
  ASSERT_TRUE(pc.extras.is_object());
  EXPECT_EQ(pc.extras["rw4"]["platform"], "PC");
}

// Keys on three bones: ARM_L rotation, HIPS translation, SPINE scale, 5 keys over 1 s.
void addAnimation(Rig& rig) {
  Animation anim;
  anim.name = "kickflip";
  anim.duration = 1.0f;
  BoneTrack arm, hips, spine;
  arm.bone = 3;
  hips.bone = 0;
  spine.bone = 1;
  for (int k = 0; k < 5; ++k) {
    const float t = 0.25f * static_cast<float>(k);
    arm.rotation.times.push_back(t);
    arm.rotation.values.push_back(glm::angleAxis(-1.2f + 0.3f * std::sin(6.0f * t), glm::vec3(0, 0, 1)));
    hips.translation.times.push_back(t);
    hips.translation.values.push_back({0, 1.0f + 0.1f * t, 0.2f * t});
    spine.scale.times.push_back(t);
    spine.scale.values.push_back(glm::vec3(1.0f + 0.1f * t));
  }
  anim.tracks = {arm, hips, spine};
  rig.animations.push_back(anim);
}

// §5 objects of a PC arena: Skeleton parents and hashes, AnimationSkin, KeyframeAnim bound by hash.
TEST(Rw4Arena, PcKeyframeAnimBindsByTheSkeletonHashes) {
  Rig rig = inAxesOf(Platform::Pc, makeRig());
  addAnimation(rig);
  ArenaWriteOptions o;
  o.platform = Platform::Pc;
  o.animationObjects = true;
  const std::vector<uint8_t> bytes = write(rig, o);
  auto asset = readBytes(bytes);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->rigs.size(), 1u);
  ASSERT_EQ(asset->clips.size(), 1u);
  ASSERT_EQ(asset->clips[0].animations.size(), 1u);
  auto assembled = assemble(std::move(*asset), {}, nullptr, {});
  ASSERT_TRUE(assembled.ok()) << assembled.error().describe();
  ASSERT_EQ(assembled->size(), 1u);
  const Rig& back = (*assembled)[0].rig;
  ASSERT_EQ(back.animations.size(), 1u);
  const Animation& anim = back.animations[0];
  EXPECT_FLOAT_EQ(anim.duration, 1.0f);
  // One LocRotScale channel per animated bone; the other components hold the bind pose.
  ASSERT_EQ(anim.tracks.size(), 3u);
  for (const BoneTrack& t : anim.tracks) {
    ASSERT_GE(t.bone, 0);
    const std::string& name = back.skeleton.bones[static_cast<size_t>(t.bone)].name;
    const Bone& src = rig.skeleton.bones[static_cast<size_t>(rig.skeleton.find(name))];
    const BoneTrack* s = nullptr;
    for (const BoneTrack& st : rig.animations[0].tracks)
      if (rig.skeleton.bones[static_cast<size_t>(st.bone)].name == name) s = &st;
    ASSERT_NE(s, nullptr) << name;
    ASSERT_EQ(t.rotation.times.size(), 5u) << name;
    for (size_t k = 0; k < 5; ++k) {
      const float time = t.rotation.times[k];
      EXPECT_FLOAT_EQ(time, 0.25f * static_cast<float>(k));
      const glm::quat q = s->rotation.empty() ? src.rotation : s->rotation.values[k];
      EXPECT_NEAR(std::fabs(glm::dot(t.rotation.values[k], q)), 1.0f, 1e-6f) << name;
      const glm::vec3 l = s->translation.empty() ? src.translation : s->translation.values[k];
      const glm::vec3 sc = s->scale.empty() ? src.scale : s->scale.values[k];
      for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(t.translation.values[k][c], l[c], 1e-6f) << name;
        EXPECT_NEAR(t.scale.values[k][c], sc[c], 1e-6f) << name;
      }
    }
  }
}

// A PC arena with a Skeleton but no RenderModelData: the bones are named by their hashes and
// posed by the AnimationSkin.
TEST(Rw4Arena, SkeletonObjectWithoutModelDataBecomesARig) {
  const Rig rig = inAxesOf(Platform::Pc, makeRig());
  ArenaWriteOptions o;
  o.platform = Platform::Pc;
  o.animationObjects = true;
  std::vector<uint8_t> bytes = write(rig, o);
  const Arena a = parse(bytes);
  ASSERT_EQ(a.dictionary[0].typeId, kRenderModelData);
  put32(bytes, a.dictStart + 0x14, 0x00EB00FF, Endian::Little);  // row 0 is no longer a RenderModelData
  const Rig back = readOne(bytes);
  ASSERT_EQ(back.skeleton.bones.size(), rig.skeleton.bones.size());
  EXPECT_TRUE(back.meshes.empty());
  const auto world = rig.skeleton.worldBindMatrices();
  const auto backWorld = back.skeleton.worldBindMatrices();
  for (size_t b = 0; b < rig.skeleton.bones.size(); ++b) {
    const Bone& y = back.skeleton.bones[b];
    EXPECT_EQ(y.name, fmt::format("0x{:08X}", fnv1_32Lower(rig.skeleton.bones[b].name)));
    EXPECT_EQ(y.parent, rig.skeleton.bones[b].parent);
    ASSERT_TRUE(y.nameHash.has_value());
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) EXPECT_NEAR(backWorld[b][c][r], world[b][c][r], 1e-5f) << b;
  }
  EXPECT_FALSE(hasWarning(back, "rw4-animation-skin")) << warnings(back);
}

// The fixed animated PC arena keeps reading as the rig and clip it was written from.
TEST(Rw4Arena, FixedAnimatedPcFileReadsItsClip) {
  auto asset = readBytes(test::readBytes(test::sample("rw4/skater_pc_anim.rw4")));
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  ASSERT_EQ(asset->rigs.size(), 1u);
  expectSameRig(makeRig(1, 3), asset->rigs[0], tolerancesFor(VertexLayout{}));
  ASSERT_EQ(asset->clips.size(), 1u);
  ASSERT_EQ(asset->clips[0].animations.size(), 1u);
  const Animation& anim = asset->clips[0].animations[0];
  EXPECT_FLOAT_EQ(anim.duration, 1.0f);
  ASSERT_EQ(anim.tracks.size(), 3u);
  for (const BoneTrack& t : anim.tracks) {
    EXPECT_EQ(t.rotation.times.size(), 5u);
    ASSERT_TRUE(t.target.nameHash.has_value());
    size_t matches = 0;
    for (const Bone& b : asset->rigs[0].skeleton.bones) matches += b.nameHash == t.target.nameHash ? 1 : 0;
    EXPECT_EQ(matches, 1u) << "channel 0x" << std::hex << *t.target.nameHash;
  }
}

// 16-bit blend indices address a palette past 256 bones; 8-bit ones are refused with the reason.
TEST(Rw4Arena, WidePaletteNeedsWideBlendIndices) {
  Rig rig;
  for (int b = 0; b < 300; ++b) {
    Bone bone;
    bone.name = fmt::format("b{}", b);
    bone.parent = b - 1;
    bone.translation = {0.0f, 0.01f, 0.0f};
    rig.skeleton.bones.push_back(bone);
  }
  Mesh mesh;
  mesh.influenceOffsets.push_back(0);
  for (uint32_t v = 0; v < 300; ++v) {
    mesh.positions.push_back({0.01f * static_cast<float>(v), 0.0f, 0.0f});
    mesh.influences.push_back({v, 1.0f});
    mesh.influenceOffsets.push_back(v + 1);
  }
  for (uint32_t v = 0; v + 2 < 300; v += 3) mesh.indices.insert(mesh.indices.end(), {v, v + 1, v + 2});
  rig.meshes.push_back(mesh);
  auto refused = writeArena(rig);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("300 bones"), std::string::npos) << refused.error().describe();
  ArenaWriteOptions o;
  o.layout.indices = kS32K;
  const Rig back = readOne(write(rig, o));
  ASSERT_EQ(back.meshes.size(), 1u);
  for (uint32_t v = 0; v < 300; ++v) {
    ASSERT_EQ(back.meshes[0].influenceOffsets[v + 1] - back.meshes[0].influenceOffsets[v], 1u);
    EXPECT_EQ(back.skeleton.bones[back.meshes[0].influences[v].bone].name, fmt::format("b{}", v));
  }
}

// The reader decodes byte blend indices with UB weights (Skate's layout) on a path of its own; a
// vertex whose slots repeat a bone, carry zero weights or name one bone only must come out merged
// exactly as through the general decoder (F weights and indices).
TEST(Rw4Arena, ByteSkinVerticesMergeLikeEveryOtherLayout) {
  Rig rig = makeRig(1, 2);
  Mesh& mesh = rig.meshes[0];
  const std::vector<std::vector<Influence>> given = {
      {{0, 0.4f}, {1, 0.3f}, {2, 0.2f}, {3, 0.1f}},    // four bones: the fast path
      {{1, 0.25f}, {1, 0.25f}, {2, 0.25f}, {3, 0.25f}},  // bone 1 twice
      {{4, 1.0f}},                                       // one bone, three zero-weight slots
      {{5, 0.5f}, {5, 0.5f}},                            // one bone in two slots
  };
  const std::vector<std::map<std::string, float>> expected = {
      {{"HIPS", 0.4f}, {"SPINE", 0.3f}, {"HEAD", 0.2f}, {"ARM_L", 0.1f}},
      {{"SPINE", 0.5f}, {"HEAD", 0.25f}, {"ARM_L", 0.25f}},
      {{"HAND_L", 1.0f}},
      {{"LEG_R", 1.0f}},
  };
  mesh.influences.clear();
  mesh.influenceOffsets = {0};
  for (const auto& v : given) {
    mesh.influences.insert(mesh.influences.end(), v.begin(), v.end());
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
  ArenaWriteOptions general;
  general.layout.weights = kF;
  general.layout.indices = kF;
  for (const ArenaWriteOptions& o : {ArenaWriteOptions{}, general}) {
    SCOPED_TRACE(fmt::format("weights {} indices {}", vertexTypeName(o.layout.weights), vertexTypeName(o.layout.indices)));
    const Rig back = readOne(write(rig, o));
    ASSERT_EQ(back.meshes.size(), 1u);
    const Mesh& m = back.meshes[0];
    ASSERT_EQ(m.vertexCount(), given.size());
    for (size_t v = 0; v < given.size(); ++v) {
      const auto got = weightsOf(back, m, v);
      EXPECT_EQ(m.influenceOffsets[v + 1] - m.influenceOffsets[v], expected[v].size()) << "vertex " << v << ": one influence per bone";
      ASSERT_EQ(got.size(), expected[v].size()) << "vertex " << v;
      for (const auto& [bone, w] : expected[v]) EXPECT_NEAR(got.at(bone), w, 2.0f / 255.0f) << "vertex " << v << " " << bone;
    }
    EXPECT_TRUE(back.provenance.warnings.empty()) << warnings(back);
  }
}

namespace {

size_t expectMeshByMeshReadIsTheOrdinaryRead(const std::vector<uint8_t>& bytes, const std::string& where) {
  return test::expectMeshByMeshReadIsTheOrdinaryRead(readArena, bytes, "test.psg", where);
}

}  // namespace

TEST(Rw4Arena, AReadMeshByMeshHandsOverTheOrdinaryReadsMeshesAndTheirBytes) {
  size_t meshes = 0;
  for (const char* name : {"rw4/skater_ps3.psg", "rw4/skater_pc.rw4", "rw4/skater_pc_anim.rw4"}) {
    const std::vector<uint8_t> bytes = test::readBytes(test::sample(name));
    const size_t released = expectMeshByMeshReadIsTheOrdinaryRead(bytes, name);
    const size_t count = readOne(bytes).meshes.size();
    meshes += count;
    if (count > 0) EXPECT_GT(released, 0u) << name << ": the vertex and index resources go back after each mesh";
  }
  EXPECT_GT(meshes, 0u);
  // Damaged files too: every byte of a two-island PS3 arena flipped, the read mesh by mesh ends as
  // the ordinary read does.
  ArenaWriteOptions ps3;
  ps3.islandsPerMesh = 2;
  std::vector<uint8_t> bytes = write(makeRig(1, 3), ps3);
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] ^= 0xFF;
    expectMeshByMeshReadIsTheOrdinaryRead(bytes, fmt::format("flipped at {}", i));
    bytes[i] ^= 0xFF;
    if (HasFailure()) break;
  }
}
