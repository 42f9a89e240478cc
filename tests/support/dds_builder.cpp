#include "support/dds_builder.hpp"

namespace rigport::test {
namespace {

void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

}  // namespace

DdsImage dxtDds(int dxt, uint32_t width, uint32_t height) {
  DdsImage d;
  d.width = width;
  d.height = height;
  d.pixelFlags = 0x4;  // FOURCC
  d.fourCc = 0x00545844 | (static_cast<uint32_t>('0' + dxt) << 24);
  d.bitCount = 0;
  d.rMask = d.gMask = d.bMask = d.aMask = 0;
  return d;
}

std::vector<uint8_t> writeDds(const DdsImage& d) {
  std::vector<uint8_t> out;
  put32(out, 0x20534444);  // "DDS "
  const uint32_t count = d.mipMapCount < 0 ? static_cast<uint32_t>(d.levels.size()) : static_cast<uint32_t>(d.mipMapCount);
  put32(out, d.headerSize);
  put32(out, d.flags | (count > 1 ? 0x20000u : 0u));
  put32(out, d.height);
  put32(out, d.width);
  put32(out, d.levels.empty() ? 0 : static_cast<uint32_t>(d.levels.front().size()));  // dwPitchOrLinearSize
  put32(out, 0);                                                                      // dwDepth
  put32(out, count);
  for (int i = 0; i < 11; ++i) put32(out, 0);  // dwReserved1
  put32(out, d.pixelFormatSize);
  put32(out, d.pixelFlags);
  put32(out, d.fourCc);
  put32(out, d.bitCount);
  put32(out, d.rMask);
  put32(out, d.gMask);
  put32(out, d.bMask);
  put32(out, d.aMask);
  put32(out, 0x1000 | (count > 1 ? 0x400008u : 0u));  // dwCaps: TEXTURE, and COMPLEX | MIPMAP for a chain
  put32(out, d.caps2);
  for (int i = 0; i < 3; ++i) put32(out, 0);  // dwCaps3, dwCaps4, dwReserved2
  for (const std::vector<uint8_t>& level : d.levels) out.insert(out.end(), level.begin(), level.end());
  return out;
}

}  // namespace rigport::test
