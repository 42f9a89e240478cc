#include "image/decode.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <squish.h>

#include "image/widen.hpp"

namespace rigport::image {
namespace {

uint16_t u16At(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

void putPixel(uint8_t* out, uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
  out[0] = r;
  out[1] = g;
  out[2] = b;
  out[3] = a;
}

// Every layout but P8 and DXT: each pixel's bytes stand alone.
void decodeDirect(std::span<const uint8_t> in, PixelLayout layout, uint8_t* out, size_t pixels) {
  const uint8_t* p = in.data();
  for (size_t i = 0; i < pixels; ++i, out += 4) {
    switch (layout) {
      case PixelLayout::B8G8R8A8: putPixel(out, p[4 * i + 2], p[4 * i + 1], p[4 * i], p[4 * i + 3]); break;
      case PixelLayout::B8G8R8X8: putPixel(out, p[4 * i + 2], p[4 * i + 1], p[4 * i], 255); break;
      case PixelLayout::R8G8B8A8: putPixel(out, p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]); break;
      case PixelLayout::R8G8B8X8: putPixel(out, p[4 * i], p[4 * i + 1], p[4 * i + 2], 255); break;
      case PixelLayout::B8G8R8: putPixel(out, p[3 * i + 2], p[3 * i + 1], p[3 * i], 255); break;
      case PixelLayout::A8R8G8B8: putPixel(out, p[4 * i + 1], p[4 * i + 2], p[4 * i + 3], p[4 * i]); break;
      case PixelLayout::X8R8G8B8: putPixel(out, p[4 * i + 1], p[4 * i + 2], p[4 * i + 3], 255); break;
      case PixelLayout::A1R5G5B5: {
        const uint32_t v = u16At(p + 2 * i);
        putPixel(out, widen5((v >> 10) & 31), widen5((v >> 5) & 31), widen5(v & 31), (v & 0x8000) != 0 ? 255 : 0);
        break;
      }
      case PixelLayout::R5G6B5: {
        const uint32_t v = u16At(p + 2 * i);
        putPixel(out, widen5(v >> 11), widen6((v >> 5) & 63), widen5(v & 31), 255);
        break;
      }
      case PixelLayout::A4R4G4B4: {
        const uint32_t v = u16At(p + 2 * i);
        putPixel(out, widen4((v >> 8) & 15), widen4((v >> 4) & 15), widen4(v & 15), widen4(v >> 12));
        break;
      }
      case PixelLayout::L8: putPixel(out, p[i], p[i], p[i], 255); break;
      default: break;  // P8 and DXT have their own loops
    }
  }
}

// libsquish decodes whole 4x4 blocks; a level narrower or shorter than 4 (a small mip) keeps the
// part of its last blocks that lies inside it.
void decodeBlocks(std::span<const uint8_t> in, PixelLayout layout, uint8_t* out, uint32_t width, uint32_t height) {
  const int flags = layout == PixelLayout::Dxt1 ? squish::kDxt1 : layout == PixelLayout::Dxt3 ? squish::kDxt3 : squish::kDxt5;
  const size_t blockBytes = layout == PixelLayout::Dxt1 ? 8 : 16;
  const uint32_t blocksWide = (width + 3) / 4;
  std::array<uint8_t, 64> block{};
  for (uint32_t by = 0; by < (height + 3) / 4; ++by) {
    for (uint32_t bx = 0; bx < blocksWide; ++bx) {
      squish::Decompress(block.data(), in.data() + (size_t{by} * blocksWide + bx) * blockBytes, flags);
      const uint32_t rows = std::min(4u, height - 4 * by), columns = std::min(4u, width - 4 * bx);
      for (uint32_t y = 0; y < rows; ++y) {
        std::copy_n(block.data() + 16 * y, 4 * columns, out + 4 * ((size_t{4 * by + y} * width) + 4 * bx));
      }
    }
  }
}

}  // namespace

Result<ImageLevel> decodeLevel(ByteReader& r, PixelLayout layout, uint32_t width, uint32_t height,
                               std::span<const uint8_t> palette, Field f) {
  const size_t start = r.position();
  RP_ASSIGN(const std::span<const uint8_t> in, r.bytes(levelBytes(layout, width, height), f));
  const size_t pixels = size_t{width} * height;
  RP_CHECK(r.charge(uint64_t{pixels} * 4, f));
  ImageLevel level{width, height, std::vector<uint8_t>(pixels * 4)};
  uint8_t* out = level.rgba.data();
  if (isBlockCompressed(layout)) {
    decodeBlocks(in, layout, out, width, height);
  } else if (layout == PixelLayout::P8) {
    const size_t entries = palette.size() / 4;
    for (size_t i = 0; i < pixels; ++i) {
      if (in[i] >= entries) {
        return r.errorAt(start + i, ErrorCode::BadValue, fmt::format("palette index {} of a palette of {} entries", in[i], entries),
                         Field("index", static_cast<int64_t>(i)));
      }
      std::copy_n(palette.data() + 4 * size_t{in[i]}, 4, out + 4 * i);
    }
  } else {
    decodeDirect(in, layout, out, pixels);
  }
  return level;
}

}  // namespace rigport::image
