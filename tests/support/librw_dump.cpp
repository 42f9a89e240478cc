#include "support/librw_dump.hpp"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace rigport::test {

Dump parseDump(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  Dump d;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string tag;
    s >> tag;
    if (tag == "frame") {
      DumpFrame f;
      int i = 0;
      std::string word;
      s >> i >> word >> f.parent >> word;  // "parent" N "name"
      const size_t q0 = line.find('\''), q1 = line.find('\'', q0 + 1);
      f.name = line.substr(q0 + 1, q1 - q0 - 1);
      std::istringstream rest(line.substr(q1 + 1));
      rest >> word >> f.hanimId >> word >> f.pos.x >> f.pos.y >> f.pos.z;
      d.frames.push_back(f);
    } else if (tag == "node") {
      DumpNode n;
      int j = 0;
      std::string w;
      s >> j >> w >> n.id >> w >> n.index >> w >> n.flags >> w >> n.frame;
      d.nodes.push_back(n);
    } else if (tag == "v") {
      DumpVertex v;
      int i = 0;
      std::string w;
      s >> i >> w;
      for (int& k : v.idx) s >> k;
      s >> w;
      for (float& k : v.w) s >> k;
      d.vertices.push_back(v);
    } else if (tag == "invMat") {
      std::array<float, 16> m{};
      std::string w;
      s >> w;  // "b:"
      for (int k = 0; k < 16; ++k) {
        if (k % 4 == 0 && k > 0) s >> w;  // "|"
        s >> m[k];
      }
      d.invMats.push_back(m);
    }
  }
  return d;
}

}  // namespace rigport::test
