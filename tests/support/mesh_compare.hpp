// Mesh for mesh, bit for bit (NaN positions of a damaged file included): what a read mesh by mesh
// (ReadOptions::meshBuilt) must hand over compared with an ordinary read's meshes.
#pragma once

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/asset.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"
#include "core/source.hpp"

namespace rigport::test {

template <class V>
bool sameBytes(const V& a, const V& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(typename V::value_type)) == 0);
}

inline void expectSameMesh(const Mesh& a, const Mesh& b, const std::string& where) {
  EXPECT_EQ(a.name, b.name) << where;
  EXPECT_EQ(a.attachBone, b.attachBone) << where;
  EXPECT_TRUE(sameBytes(a.positions, b.positions)) << where;
  EXPECT_TRUE(sameBytes(a.normals, b.normals)) << where;
  EXPECT_TRUE(sameBytes(a.uvs, b.uvs)) << where;
  EXPECT_TRUE(sameBytes(a.indices, b.indices)) << where;
  EXPECT_TRUE(sameBytes(a.parts, b.parts)) << where;
  EXPECT_TRUE(sameBytes(a.influenceOffsets, b.influenceOffsets)) << where;
  EXPECT_TRUE(sameBytes(a.influences, b.influences)) << where;
}

// A read mesh by mesh (ReadOptions::meshBuilt, what `info` does) against an ordinary read of the
// same bytes by `read`: the same outcome and error, the same warnings, and each mesh handed over
// with its rig's place in the asset, complete and identical to the ordinary read's, before the next
// mesh of its rig is built (so a reader holds one mesh at a time). Returns the releases of the
// file's bytes (ReadContext::releaseBytes) the read made; `order`, when given, gets them and the
// handovers as they came: "bytes" for each release, "mesh R.M" for mesh M of rig R.
using AssetReader = Result<Asset> (*)(const Source& source, ReadContext& ctx);
inline size_t expectMeshByMeshReadIsTheOrdinaryRead(AssetReader read, const std::vector<uint8_t>& bytes, const std::string& name,
                                                    const std::string& where, std::vector<std::string>* order = nullptr) {
  const auto source = Source::fromBytes(bytes, name);
  ReadContext plain;
  const auto ordinary = read(*source, plain);
  std::vector<std::pair<size_t, Mesh>> handed;
  ReadOptions options;
  options.meshBuilt = [&](Rig& rig, size_t r, size_t m) -> Status {
    EXPECT_EQ(m + 1, rig.meshes.size()) << where << ": mesh " << m << " handed over before the next is built";
    Mesh kept;
    kept.name = rig.meshes[m].name;
    kept.attachBone = rig.meshes[m].attachBone;
    handed.emplace_back(r, std::exchange(rig.meshes[m], std::move(kept)));
    if (order != nullptr) order->push_back(fmt::format("mesh {}.{}", r, m));
    return Ok{};
  };
  ReadContext ctx(options);
  size_t released = 0;
  ctx.releaseBytes = [&](std::span<const uint8_t>) {
    ++released;
    if (order != nullptr) order->push_back("bytes");
  };
  const auto byMesh = read(*source, ctx);
  EXPECT_EQ(ordinary.ok(), byMesh.ok()) << where;
  if (!ordinary.ok() || !byMesh.ok()) {
    if (!ordinary.ok() && !byMesh.ok()) EXPECT_EQ(ordinary.error().describe(), byMesh.error().describe()) << where;
    return released;
  }
  EXPECT_EQ(byMesh->rigs.size(), ordinary->rigs.size()) << where;
  size_t k = 0;
  for (size_t r = 0; r < std::min(ordinary->rigs.size(), byMesh->rigs.size()); ++r) {
    const Rig& a = ordinary->rigs[r];
    const Rig& b = byMesh->rigs[r];
    for (size_t m = 0; m < a.meshes.size(); ++m, ++k) {
      if (k >= handed.size()) break;
      EXPECT_EQ(handed[k].first, r) << where;
      expectSameMesh(handed[k].second, a.meshes[m], fmt::format("{} rig {} mesh {}", where, r, m));
      EXPECT_TRUE(b.meshes[m].positions.empty()) << where << ": let go";
    }
    EXPECT_EQ(a.provenance.warnings.size(), b.provenance.warnings.size()) << where;
    for (size_t w = 0; w < std::min(a.provenance.warnings.size(), b.provenance.warnings.size()); ++w) {
      EXPECT_EQ(a.provenance.warnings[w].message, b.provenance.warnings[w].message) << where;
    }
  }
  size_t meshes = 0;
  for (const Rig& a : ordinary->rigs) meshes += a.meshes.size();
  EXPECT_EQ(meshes, handed.size()) << where << ": every mesh handed over once";
  return released;
}

}  // namespace rigport::test
