// A DDS writer for tests (rigport writes no texture files yet, issue 29): Microsoft's DDS_HEADER and
// DDS_PIXELFORMAT (formats/battleforge/dds_layout.hpp) written field by field, every field the
// test's to forge, with pixels encoded by the tests' own code.
#pragma once

#include <cstdint>
#include <vector>

namespace rigport::test {

struct DdsImage {
  uint32_t headerSize = 124;           // DDS_HEADER.dwSize
  uint32_t flags = 0x1007;             // CAPS | HEIGHT | WIDTH | PIXELFORMAT; writeDds adds MIPMAPCOUNT for several levels
  uint32_t width = 1;
  uint32_t height = 1;
  int mipMapCount = -1;                // -1: levels.size()
  uint32_t pixelFormatSize = 32;       // DDS_PIXELFORMAT.dwSize
  uint32_t pixelFlags = 0x41;          // RGB | ALPHAPIXELS
  uint32_t fourCc = 0;
  uint32_t bitCount = 32;
  uint32_t rMask = 0xFF0000, gMask = 0xFF00, bMask = 0xFF, aMask = 0xFF000000;  // A8R8G8B8
  uint32_t caps2 = 0;
  std::vector<std::vector<uint8_t>> levels;  // each level's stored bytes, back to back after the header
};

// A DXT DDS header: FourCC "DXT1", "DXT3" or "DXT5" (by `dxt`), no masks.
DdsImage dxtDds(int dxt, uint32_t width, uint32_t height);

std::vector<uint8_t> writeDds(const DdsImage& image);

}  // namespace rigport::test
