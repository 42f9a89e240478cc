#include "support/gx_builder.hpp"

namespace rigport::test {
namespace {

void put16(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(static_cast<uint8_t>(v >> 8));
  out.push_back(static_cast<uint8_t>(v));
}
void put32(std::vector<uint8_t>& out, uint32_t v) {
  put16(out, v >> 16);
  put16(out, v & 0xFFFF);
}
void align32(std::vector<uint8_t>& out) {
  while (out.size() % 32 != 0) out.push_back(0);
}

struct Tile {
  uint32_t w, h, bits;
};
Tile tileOf(uint8_t format) {
  switch (format) {
    case 0:
    case 8: return {8, 8, 4};
    case 1:
    case 2:
    case 9: return {8, 4, 8};
    default: return {4, 4, 16};
  }
}

}  // namespace

std::vector<uint8_t> gxTiles(uint8_t format, uint32_t width, uint32_t height, const std::vector<uint32_t>& values) {
  const Tile t = tileOf(format);
  std::vector<uint8_t> out;
  for (uint32_t ty = 0; ty < height; ty += t.h) {
    for (uint32_t tx = 0; tx < width; tx += t.w) {
      for (uint32_t y = 0; y < t.h; ++y) {
        for (uint32_t x = 0; x < t.w; ++x) {
          const bool inside = tx + x < width && ty + y < height;
          const uint32_t v = inside ? values[size_t{ty + y} * width + tx + x] : 0;
          if (t.bits == 16) {
            put16(out, v);
          } else if (t.bits == 8) {
            out.push_back(static_cast<uint8_t>(v));
          } else if (x % 2 == 0) {
            out.push_back(static_cast<uint8_t>((v & 15) << 4));
          } else {
            out.back() = static_cast<uint8_t>(out.back() | (v & 15));
          }
        }
      }
    }
  }
  return out;
}

std::vector<uint8_t> gxRgba8(uint32_t width, uint32_t height, const std::vector<std::array<uint8_t, 4>>& rgba) {
  std::vector<uint8_t> out;
  for (uint32_t ty = 0; ty < height; ty += 4) {
    for (uint32_t tx = 0; tx < width; tx += 4) {
      for (int half = 0; half < 2; ++half) {
        for (uint32_t y = 0; y < 4; ++y) {
          for (uint32_t x = 0; x < 4; ++x) {
            const bool inside = tx + x < width && ty + y < height;
            const std::array<uint8_t, 4> p = inside ? rgba[size_t{ty + y} * width + tx + x] : std::array<uint8_t, 4>{};
            out.push_back(half == 0 ? p[3] : p[1]);
            out.push_back(half == 0 ? p[0] : p[2]);
          }
        }
      }
    }
  }
  return out;
}

std::vector<uint8_t> gxCmpr(uint32_t width, uint32_t height, const std::vector<CmprBlock>& blocks) {
  const uint32_t blocksWide = width / 4;
  std::vector<uint8_t> out;
  for (uint32_t ty = 0; ty < height / 4; ty += 2) {
    for (uint32_t tx = 0; tx < blocksWide; tx += 2) {
      for (uint32_t s = 0; s < 4; ++s) {
        const CmprBlock& b = blocks[size_t{ty + s / 2} * blocksWide + tx + s % 2];
        put16(out, b.c0);
        put16(out, b.c1);
        for (uint32_t y = 0; y < 4; ++y) {
          uint8_t row = 0;
          for (uint32_t x = 0; x < 4; ++x) row = static_cast<uint8_t>(row | ((b.index[4 * y + x] & 3) << (6 - 2 * x)));
          out.push_back(row);
        }
      }
    }
  }
  return out;
}

std::vector<uint8_t> writeTex(const std::vector<TexEntry>& textures) {
  std::vector<uint8_t> out;
  put16(out, static_cast<uint32_t>(textures.size()));
  put16(out, 0);
  out.resize(4 + 0x20 * textures.size(), 0);
  align32(out);
  for (size_t i = 0; i < textures.size(); ++i) {
    const TexEntry& t = textures[i];
    const size_t d = 4 + 0x20 * i;
    const auto at = static_cast<uint32_t>(out.size());
    out.insert(out.end(), t.image.begin(), t.image.end());
    align32(out);
    uint32_t paletteAt = 0;
    if (!t.palette.empty()) {
      paletteAt = static_cast<uint32_t>(out.size());
      for (uint16_t e : t.palette) put16(out, e);
      align32(out);
    }
    std::vector<uint8_t> desc;
    put32(desc, at);
    put32(desc, paletteAt);
    put16(desc, t.height);
    put16(desc, t.width);
    desc.resize(0x17, 0);
    desc.push_back(t.format);
    put16(desc, t.paletteEntries < 0 ? static_cast<uint32_t>(t.palette.size()) : static_cast<uint32_t>(t.paletteEntries));
    desc.push_back(t.paletteFormat);
    desc.resize(0x20, 0);
    std::copy(desc.begin(), desc.end(), out.begin() + static_cast<std::ptrdiff_t>(d));
  }
  return out;
}

std::vector<uint8_t> withTex(std::vector<uint8_t> block, const std::vector<uint8_t>& tex) {
  align32(block);
  const auto at = static_cast<uint32_t>(block.size());
  block.insert(block.end(), tex.begin(), tex.end());
  for (int i = 0; i < 4; ++i) block[0x0C + i] = static_cast<uint8_t>(at >> (24 - 8 * i));
  return block;
}

}  // namespace rigport::test
