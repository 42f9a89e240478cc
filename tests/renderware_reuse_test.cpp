// A program reading DFF after DFF (and RW4 arena after arena) into the arrays of the rigs it
// recycled (ReadOptions::storage, core/rig_storage.hpp): each read gives the rig a fresh read
// gives, whatever the file before held;
// and exporting rig after rig it keeps through one ExportCache, whose spare rig the exporter copies
// into: each GLB is the one an export without the cache, or of the rig moved in, gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/rig_storage.hpp"
#include "export/gltf.hpp"
#include "formats/renderware/axes.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/rw4/rw4.hpp"

using namespace rigport;

namespace {

constexpr int kBones = 8;

struct Shape {
  int vertices;
  bool normals;
  bool uvs;
  int influences;  // a vertex (1..4), or 0: not skinned
};

// A helix of `s.vertices` on a chain of kBones bones, a triangle per vertex, in RenderWare's axes.
Rig rigOf(const std::vector<Shape>& shapes) {
  Rig rig;
  rig.provenance.axes = renderware::kRenderWareAxes;
  for (int b = 0; b < kBones; ++b) {
    Bone bone;
    bone.name = "bone" + std::to_string(b);
    bone.parent = b - 1;
    bone.translation = {0.0f, 0.0f, 0.25f};
    bone.id = static_cast<uint32_t>(b);
    rig.skeleton.bones.push_back(bone);
  }
  for (size_t m = 0; m < shapes.size(); ++m) {
    const Shape& s = shapes[m];
    Mesh mesh;
    mesh.name = "mesh" + std::to_string(m);
    if (s.influences > 0) mesh.influenceOffsets.push_back(0);
    for (int v = 0; v < s.vertices; ++v) {
      const float t = static_cast<float>(v) * 0.001f + static_cast<float>(m);
      mesh.positions.emplace_back(std::cos(t), std::sin(t), t * 0.01f);
      if (s.normals) mesh.normals.emplace_back(std::cos(t), std::sin(t), 0.0f);
      if (s.uvs) mesh.uvs.emplace_back(std::fmod(t, 1.0f), 0.5f);
      for (int k = 0; k < s.influences; ++k) {
        mesh.influences.push_back({static_cast<uint32_t>((v + 3 * k) % kBones), 1.0f / static_cast<float>(s.influences)});
      }
      if (s.influences > 0) mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
    if (s.influences == 0) mesh.attachBone = 1;
    for (uint32_t v = 0; v + 2 < static_cast<uint32_t>(s.vertices); ++v) mesh.indices.insert(mesh.indices.end(), {v, v + 1, v + 2});
    rig.meshes.push_back(std::move(mesh));
  }
  return rig;
}

template <class Vector>
bool sameBytes(const Vector& a, const Vector& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
}

void expectSameMeshes(const Rig& reused, const Rig& fresh, const std::string& what) {
  ASSERT_EQ(reused.meshes.size(), fresh.meshes.size()) << what;
  for (size_t m = 0; m < fresh.meshes.size(); ++m) {
    const Mesh& a = reused.meshes[m];
    const Mesh& b = fresh.meshes[m];
    EXPECT_TRUE(sameBytes(a.positions, b.positions)) << what << " mesh " << m;
    EXPECT_TRUE(sameBytes(a.normals, b.normals)) << what << " mesh " << m;
    EXPECT_TRUE(sameBytes(a.uvs, b.uvs)) << what << " mesh " << m;
    EXPECT_TRUE(sameBytes(a.indices, b.indices)) << what << " mesh " << m;
    EXPECT_TRUE(sameBytes(a.influenceOffsets, b.influenceOffsets)) << what << " mesh " << m;
    EXPECT_TRUE(sameBytes(a.influences, b.influences)) << what << " mesh " << m;
    EXPECT_EQ(a.parts.size(), b.parts.size()) << what << " mesh " << m;
    EXPECT_EQ(a.attachBone, b.attachBone) << what << " mesh " << m;
  }
}

// Larger after smaller and smaller after larger; files without normals, UVs or skins after files
// with them; one weight a vertex after four (the influences array is longer than what is written).
const std::vector<std::vector<Shape>> kFiles = {
    {{20000, true, true, 4}, {9000, true, true, 2}},
    {{8000, false, true, 1}},
    {{40000, true, false, 3}, {12000, true, true, 0}, {6000, false, false, 4}},
    {{7000, true, true, 4}, {7000, false, true, 1}},
    {{30000, false, false, 0}},
    {{25000, true, true, 2}},
};

// Every array of the rig's meshes, by address.
std::set<const void*> arraysOf(const Rig& rig) {
  std::set<const void*> out;
  for (const Mesh& m : rig.meshes) {
    for (const void* p : {static_cast<const void*>(m.positions.data()), static_cast<const void*>(m.normals.data()),
                          static_cast<const void*>(m.uvs.data()), static_cast<const void*>(m.indices.data()),
                          static_cast<const void*>(m.influenceOffsets.data()), static_cast<const void*>(m.influences.data())}) {
      if (p != nullptr) out.insert(p);
    }
  }
  return out;
}

// Each of kFiles written by `write` and read by `read` (a rig from bytes and a context) fresh and
// into the arrays of the rig read before it: the same meshes, and arrays that did come from the
// storage (file 1 fits in file 0's, and so on).
template <class Write, class Read>
void expectRecycledReadsGiveTheFreshRigs(Write write, Read read) {
  RigStorage storage;
  ReadOptions options;
  options.storage = &storage;
  std::set<const void*> recycled;
  size_t reusedArrays = 0;
  for (size_t f = 0; f < kFiles.size(); ++f) {
    const auto bytes = write(rigOf(kFiles[f]));
    ASSERT_TRUE(bytes) << bytes.error().describe();
    ReadContext freshCtx;
    const auto fresh = read(*bytes, freshCtx);
    ASSERT_TRUE(fresh) << fresh.error().describe();
    ReadContext ctx(options);
    auto reused = read(*bytes, ctx);
    ASSERT_TRUE(reused) << reused.error().describe();
    expectSameMeshes(*reused, *fresh, "file " + std::to_string(f));
    EXPECT_EQ(reused->provenance.warnings.size(), fresh->provenance.warnings.size()) << f;
    for (const void* p : arraysOf(*reused)) reusedArrays += recycled.count(p);
    recycled = arraysOf(*reused);
    storage.recycle(std::move(*reused));
  }
  EXPECT_GE(reusedArrays, 10u);
}

TEST(RigStorage, ReadingIntoRecycledArraysGivesTheFreshRig) {
  expectRecycledReadsGiveTheFreshRigs([](const Rig& rig) { return renderware::writeDff(rig); },
                                      [](const std::vector<uint8_t>& bytes, ReadContext& ctx) { return renderware::readDff(bytes, ctx); });
}

// The RW4 arena reader takes its meshes' arrays from the storage too (rw4/opti_mesh.cpp).
TEST(RigStorage, ReadingArenasIntoRecycledArraysGivesTheFreshRig) {
  // An arena skins every mesh: an unskinned one rides its bone as one influence a vertex.
  const auto write = [](Rig rig) {
    for (Mesh& m : rig.meshes) {
      if (m.skinned()) continue;
      for (uint32_t v = 0; v <= m.positions.size(); ++v) m.influenceOffsets.push_back(v);
      m.influences.assign(m.positions.size(), Influence{static_cast<uint32_t>(m.attachBone), 1.0f});
      m.attachBone = -1;
    }
    return rw4::writeArena(rig);
  };
  expectRecycledReadsGiveTheFreshRigs(write,
                                      [](const std::vector<uint8_t>& bytes, ReadContext& ctx) -> Result<Rig> {
                                        const auto source = Source::fromBytes(bytes, "test.psg");
                                        RP_ASSIGN(Asset asset, rw4::readArena(*source, ctx));
                                        if (asset.rigs.size() != 1) return makeError(ErrorCode::Invalid, "expected one rig");
                                        return std::move(asset.rigs[0]);
                                      });
}

TEST(ExportCache, ConstExportThroughTheSpareRigIsTheMovedExport) {
  ExportCache cache;
  for (size_t f = 0; f < kFiles.size(); ++f) {
    const auto bytes = renderware::writeDff(rigOf(kFiles[f]));
    ASSERT_TRUE(bytes) << bytes.error().describe();
    const auto rig = renderware::readDff(*bytes);
    ASSERT_TRUE(rig) << rig.error().describe();
    ASSERT_FALSE(rig->provenance.axes.isGltf());  // the exporter converts a copy
    std::vector<uint8_t> kept;
    ASSERT_TRUE(exportGlbInto(*rig, kept, {}, &cache));
    EXPECT_FALSE(cache.spare.meshes.empty()) << f;  // the copy went back to the cache
    const auto alone = exportGlb(*rig);
    ASSERT_TRUE(alone);
    Rig copy = *rig;
    const auto moved = exportGlb(std::move(copy));
    ASSERT_TRUE(moved);
    EXPECT_TRUE(kept == *moved) << "file " << f;
    EXPECT_TRUE(*alone == *moved) << "file " << f;
    const auto gltf = exportGltf(*rig, "x.bin", {}, &cache);
    const auto gltfAlone = exportGltf(*rig, "x.bin");
    ASSERT_TRUE(gltf && gltfAlone);
    EXPECT_EQ(gltf->json, gltfAlone->json) << f;
    EXPECT_TRUE(gltf->bin == gltfAlone->bin) << f;
  }
}

// The const export reads the caller's positions, normals and influences and writes them converted
// into the spare rig (OwnMeshes::from): what the spare held there before is never read, even when
// it is no model at all.
TEST(ExportCache, ConstExportReadsNothingTheSpareHeld) {
  const auto bytes = renderware::writeDff(rigOf(kFiles[0]));
  ASSERT_TRUE(bytes) << bytes.error().describe();
  const auto rig = renderware::readDff(*bytes);
  ASSERT_TRUE(rig) << rig.error().describe();
  ASSERT_FALSE(rig->meshes.empty());
  ASSERT_TRUE(rig->meshes[0].skinned());
  ExportCache cache;
  cache.spare = *rig;
  for (Mesh& m : cache.spare.meshes) {
    std::fill(m.positions.begin(), m.positions.end(), glm::vec3(std::nanf("")));
    std::fill(m.normals.begin(), m.normals.end(), glm::vec3(0.0f));
    std::fill(m.influenceOffsets.begin(), m.influenceOffsets.end(), 0xFFFFFFFFu);
    std::fill(m.influences.begin(), m.influences.end(), Influence{0xFFFFu, -1.0f});
  }
  std::vector<uint8_t> kept;
  ASSERT_TRUE(exportGlbInto(*rig, kept, {}, &cache));
  Rig copy = *rig;
  const auto moved = exportGlb(std::move(copy));
  ASSERT_TRUE(moved);
  EXPECT_TRUE(kept == *moved);
}

// The const export copies neither UVs nor indices into the spare rig: the buffer borrows the
// caller's UVs, and the caller's u32 indices, or writes their u16 form into the spare's room for
// them. So the spare ends with no UVs, and the indices of a mesh of 65,536 vertices or more (u32)
// as they were, garbage; the GLB is still the moved export's. A mirroring axis change (a
// left-handed source) turns the copy's triangles, which the export then reads from the copy.
TEST(ExportCache, ConstExportCopiesNoUvsAndIndicesItNeedNotTurn) {
  // Made here, not read: a DFF's triangles index at most 65,535 vertices.
  Rig rig = rigOf({{70000, true, true, 2}, {9000, true, true, 1}});
  ASSERT_EQ(rig.meshes.size(), 2u);
  ASSERT_GE(rig.meshes[0].vertexCount(), 65536u);  // u32 indices
  for (const bool leftHanded : {false, true}) {
    if (leftHanded) rig.provenance.axes.rightHanded = false;
    ExportCache cache;
    cache.spare = rig;
    for (Mesh& m : cache.spare.meshes) {
      std::fill(m.uvs.begin(), m.uvs.end(), glm::vec2(std::nanf("")));
      std::fill(m.indices.begin(), m.indices.end(), 0xFFFFFFFFu);
    }
    std::vector<uint8_t> kept;
    ASSERT_TRUE(exportGlbInto(rig, kept, {}, &cache)) << leftHanded;
    Rig copy = rig;
    const auto moved = exportGlb(std::move(copy));
    ASSERT_TRUE(moved);
    EXPECT_TRUE(kept == *moved) << leftHanded;
    ASSERT_EQ(cache.spare.meshes.size(), 2u);
    for (const Mesh& m : cache.spare.meshes) EXPECT_TRUE(m.uvs.empty()) << leftHanded;
    const std::vector<uint32_t>& spareIndices = cache.spare.meshes[0].indices;
    const bool untouched = std::all_of(spareIndices.begin(), spareIndices.end(), [](uint32_t i) { return i == 0xFFFFFFFFu; });
    EXPECT_EQ(untouched, !leftHanded);
  }
}

TEST(RigStorage, TakesTheSmallestThatHoldsElseTheLargest) {
  RigStorage storage;
  Rig rig;
  for (size_t n : {100000u, 20000u, 50000u}) {
    Mesh m;
    m.indices.resize(n);
    rig.meshes.push_back(std::move(m));
  }
  Mesh small;
  small.indices.resize(100);  // below kMinBytes: left to the allocator
  rig.meshes.push_back(std::move(small));
  storage.recycle(std::move(rig));
  EXPECT_TRUE(rig.meshes.empty());
  const auto a = storage.take<std::vector<uint32_t>>(30000);
  EXPECT_EQ(a.capacity(), 50000u);
  EXPECT_TRUE(a.empty());
  const auto b = storage.take<std::vector<uint32_t>>(200000);
  EXPECT_EQ(b.capacity(), 100000u);
  EXPECT_EQ(storage.take<std::vector<uint32_t>>(0).capacity(), 0u);
  EXPECT_EQ(storage.take<std::vector<uint32_t>>(1).capacity(), 20000u);
  EXPECT_EQ(storage.take<std::vector<uint32_t>>(1).capacity(), 0u);
  EXPECT_EQ(storage.take<std::vector<glm::vec3>>(1).capacity(), 0u);
}

}  // namespace
