// Parser for the librw ground-truth dumps in tests/data/samples/renderware (*.librw-dump.txt and
// *.librw-uninstanced-dump.txt; line format in that folder's SOURCES.md, "Dump format").
#pragma once

#include <array>
#include <string>
#include <vector>

#include <glm/glm.hpp>

namespace rigport::test {

// One `frame i` line, in FrameList stream order.
struct DumpFrame {
  int parent = -1;
  std::string name;
  int hanimId = -1;
  glm::vec3 pos{0.0f};
};
// One `node j` line of the HAnim hierarchy; `frame` indexes Dump::frames.
struct DumpNode {
  int id = 0, index = 0, flags = 0, frame = 0;
};
// One `v i` line: four node indices and four weights (zero-weight slots included).
struct DumpVertex {
  int idx[4] = {0, 0, 0, 0};
  float w[4] = {0, 0, 0, 0};
};
struct Dump {
  std::vector<DumpFrame> frames;
  std::vector<DumpNode> nodes;
  std::vector<DumpVertex> vertices;
  // `invMat b` per HAnim node: 16 floats in file order (right.xyz, pad, up.xyz, pad, at.xyz, pad, pos.xyz, pad).
  std::vector<std::array<float, 16>> invMats;
};

// Reads a dump; a file that cannot be opened is a test failure (and gives an empty Dump).
Dump parseDump(const std::string& path);

}  // namespace rigport::test
