// A RenderWare texture dictionary writer for tests (rigport writes no texture files yet, issue 29):
// the layout of formats/renderware/txd_layout.hpp, written field by field from librw's
// writeNativeTexture (d3d8.cpp, d3d9.cpp), with pixels encoded by the tests' own code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rigport::test {

// One texture native as stored: every header field is the test's to forge.
struct TxdRaster {
  uint32_t platform = 9;               // 8: D3D8, 9: D3D9; anything else for the unsupported cases
  uint32_t filterAddressing = 0x1102;  // linear, wrap U and V
  std::string name = "texture";
  std::string mask;
  uint32_t rasterFormat = 0x0500;      // 8888
  uint32_t alphaOrD3dFormat = 21;      // D3D8: hasAlpha; D3D9: D3DFORMAT (21: A8R8G8B8)
  uint16_t width = 1;
  uint16_t height = 1;
  uint8_t depth = 32;
  int numLevels = -1;                  // -1: levels.size()
  uint8_t rasterType = 4;              // a texture
  uint8_t compressionOrFlags = 0;      // D3D8: DXT number; D3D9: flags
  std::vector<uint8_t> palette;        // RGBA entries, written as given
  std::vector<std::vector<uint8_t>> levels;  // each level's stored bytes, written with their size
};

// A Texture Dictionary (0x16) chunk of the rasters, stamped with RW version `version`.
std::vector<uint8_t> writeTxd(const std::vector<TxdRaster>& rasters, uint32_t version = 0x36003);

}  // namespace rigport::test
