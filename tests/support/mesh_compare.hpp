// Mesh for mesh, bit for bit (NaN positions of a damaged file included): what a read mesh by mesh
// (ReadOptions::meshBuilt) must hand over compared with an ordinary read's meshes.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "core/rig.hpp"

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

}  // namespace rigport::test
