#include "image/gx_decode.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "image/widen.hpp"

namespace rigport::image {
namespace {

using Rgba = std::array<uint8_t, 4>;

uint32_t be16(const uint8_t* p) { return static_cast<uint32_t>(p[0] << 8 | p[1]); }

Rgba rgb565(uint32_t v) { return {widen5(v >> 11), widen6((v >> 5) & 63), widen5(v & 31), 255}; }

// RGB5A3: the top bit set is an opaque RGB555 colour, clear a 3-bit alpha then RGB444.
Rgba rgb5a3(uint32_t v) {
  if ((v & 0x8000) != 0) return {widen5((v >> 10) & 31), widen5((v >> 5) & 31), widen5(v & 31), 255};
  return {widen4((v >> 8) & 15), widen4((v >> 4) & 15), widen4(v & 15), widen3((v >> 12) & 7)};
}

// IA8: the high byte is alpha, the low one intensity (grey).
Rgba ia8(uint32_t v) {
  const auto i = static_cast<uint8_t>(v & 0xFF);
  return {i, i, i, static_cast<uint8_t>(v >> 8)};
}

struct TileShape {
  uint32_t width, height;  // pixels a 32-byte tile holds (RGBA8: 64 bytes)
  uint32_t bytes;
};

TileShape tileOf(GxFormat format) {
  switch (format) {
    case GxFormat::I4:
    case GxFormat::C4:
    case GxFormat::CMPR: return {8, 8, 32};
    case GxFormat::I8:
    case GxFormat::IA4:
    case GxFormat::C8: return {8, 4, 32};
    case GxFormat::RGBA8: return {4, 4, 64};
    default: return {4, 4, 32};  // IA8, RGB565, RGB5A3, C14X2: 16 bits a pixel
  }
}

// One CMPR 4x4 sub-block: two big-endian RGB565 end points, then a byte per row, its first pixel in
// the top two bits. c0 > c1 gives four colours, the middle two 3/8 of the way (the GX hardware's
// blend, not DXT1's 1/3, which is why libsquish does not decode CMPR); otherwise three and a
// transparent fourth (Dolphin: the middle colour with alpha 0).
void cmprSubBlock(const uint8_t* p, uint8_t* out, uint32_t x0, uint32_t y0, uint32_t width, uint32_t height) {
  const uint32_t c0 = be16(p), c1 = be16(p + 2);
  const Rgba a = rgb565(c0), b = rgb565(c1);
  std::array<Rgba, 4> colours{a, b, Rgba{}, Rgba{}};
  for (size_t c = 0; c < 3; ++c) {
    if (c0 > c1) {
      colours[2][c] = static_cast<uint8_t>((b[c] * 3 + a[c] * 5) >> 3);
      colours[3][c] = static_cast<uint8_t>((a[c] * 3 + b[c] * 5) >> 3);
    } else {
      colours[2][c] = colours[3][c] = static_cast<uint8_t>((a[c] + b[c]) / 2);
    }
  }
  colours[2][3] = 255;
  colours[3][3] = c0 > c1 ? 255 : 0;
  for (uint32_t y = 0; y < 4 && y0 + y < height; ++y) {
    for (uint32_t x = 0; x < 4 && x0 + x < width; ++x) {
      const uint32_t index = (p[4 + y] >> (6 - 2 * x)) & 3;
      std::copy_n(colours[index].data(), 4, out + 4 * (size_t{y0 + y} * width + x0 + x));
    }
  }
}

class TileDecoder {
 public:
  TileDecoder(GxFormat format, uint32_t width, uint32_t height, std::span<const uint8_t> palette, GxPalette paletteFormat, uint8_t* out)
      : format_(format), width_(width), height_(height), out_(out) {
    // Converted once rather than at every pixel that names an entry (C8 decoded at a tenth of
    // RGBA8's speed when each pixel converted its entry).
    if (!isGxPalettised(format)) return;
    colours_.reserve(palette.size() / 2);
    for (size_t i = 0; i + 2 <= palette.size(); i += 2) {
      const uint32_t v = be16(palette.data() + i);
      colours_.push_back(paletteFormat == GxPalette::IA8 ? ia8(v) : paletteFormat == GxPalette::RGB565 ? rgb565(v) : rgb5a3(v));
    }
  }

  // Decodes the tile at pixel (x0, y0); a palette index beyond the palette is returned as the
  // pixel's index in the image (and nothing more is decoded), else none.
  std::optional<size_t> tile(const uint8_t* p, uint32_t x0, uint32_t y0) {
    if (format_ == GxFormat::CMPR) {
      for (uint32_t s = 0; s < 4; ++s) cmprSubBlock(p + 8 * s, out_, x0 + 4 * (s % 2), y0 + 4 * (s / 2), width_, height_);
      return std::nullopt;
    }
    const TileShape t = tileOf(format_);
    for (uint32_t y = 0; y < t.height; ++y) {
      for (uint32_t x = 0; x < t.width; ++x) {
        if (x0 + x >= width_ || y0 + y >= height_) continue;
        const size_t at = size_t{y0 + y} * width_ + x0 + x;
        const auto pixel = decodePixel(p, y * t.width + x);
        if (!pixel) return at;
        std::copy_n(pixel->data(), 4, out_ + 4 * at);
      }
    }
    return std::nullopt;
  }

 private:
  std::optional<Rgba> fromPalette(uint32_t index) const {
    if (index >= colours_.size()) return std::nullopt;
    return colours_[index];
  }

  // Pixel i (row-major) of the tile at p.
  std::optional<Rgba> decodePixel(const uint8_t* p, uint32_t i) const {
    switch (format_) {
      case GxFormat::I4: {
        const uint8_t v = widen4((p[i / 2] >> (i % 2 == 0 ? 4 : 0)) & 15);
        return Rgba{v, v, v, v};
      }
      case GxFormat::I8: return Rgba{p[i], p[i], p[i], p[i]};
      case GxFormat::IA4: {
        const uint8_t v = widen4(p[i] & 15);
        return Rgba{v, v, v, widen4(p[i] >> 4)};
      }
      case GxFormat::IA8: return ia8(be16(p + 2 * i));
      case GxFormat::RGB565: return rgb565(be16(p + 2 * i));
      case GxFormat::RGB5A3: return rgb5a3(be16(p + 2 * i));
      case GxFormat::RGBA8: return Rgba{p[2 * i + 1], p[32 + 2 * i], p[32 + 2 * i + 1], p[2 * i]};  // AR pairs, then GB pairs
      case GxFormat::C4: return fromPalette((p[i / 2] >> (i % 2 == 0 ? 4 : 0)) & 15);
      case GxFormat::C8: return fromPalette(p[i]);
      case GxFormat::C14X2: return fromPalette(be16(p + 2 * i) & 0x3FFF);
      case GxFormat::CMPR: break;  // whole sub-blocks, in tile()
    }
    return Rgba{};
  }

  GxFormat format_;
  uint32_t width_, height_;
  std::vector<Rgba> colours_;  // the palette's entries as RGBA
  uint8_t* out_;
};

}  // namespace

const char* gxFormatName(GxFormat format) {
  switch (format) {
    case GxFormat::I4: return "I4";
    case GxFormat::I8: return "I8";
    case GxFormat::IA4: return "IA4";
    case GxFormat::IA8: return "IA8";
    case GxFormat::RGB565: return "RGB565";
    case GxFormat::RGB5A3: return "RGB5A3";
    case GxFormat::RGBA8: return "RGBA8";
    case GxFormat::C4: return "C4";
    case GxFormat::C8: return "C8";
    case GxFormat::C14X2: return "C14X2";
    case GxFormat::CMPR: return "CMPR";
  }
  return "?";
}

bool isGxFormat(uint8_t value) { return value <= 6 || (value >= 8 && value <= 10) || value == 14; }

bool isGxPalettised(GxFormat format) { return format == GxFormat::C4 || format == GxFormat::C8 || format == GxFormat::C14X2; }

uint64_t gxLevelBytes(GxFormat format, uint32_t width, uint32_t height) {
  const TileShape t = tileOf(format);
  return ((uint64_t{width} + t.width - 1) / t.width) * ((uint64_t{height} + t.height - 1) / t.height) * t.bytes;
}

Result<ImageLevel> decodeGxLevel(ByteReader& r, GxFormat format, uint32_t width, uint32_t height, std::span<const uint8_t> palette,
                                 GxPalette paletteFormat, Field f) {
  const size_t start = r.position();
  RP_ASSIGN(const std::span<const uint8_t> in, r.bytes(gxLevelBytes(format, width, height), f));
  RP_CHECK(r.charge(uint64_t{width} * height * 4, f));
  ImageLevel level{width, height, std::vector<uint8_t>(size_t{width} * height * 4)};
  const TileShape t = tileOf(format);
  TileDecoder decoder(format, width, height, palette, paletteFormat, level.rgba.data());
  const uint8_t* p = in.data();
  for (uint32_t y = 0; y < height; y += t.height) {
    for (uint32_t x = 0; x < width; x += t.width, p += t.bytes) {
      if (const auto bad = decoder.tile(p, x, y)) {
        return r.errorAt(start + static_cast<size_t>(p - in.data()), ErrorCode::BadValue,
                         fmt::format("pixel ({}, {}) indexes past a palette of {} entries", *bad % width, *bad / width, palette.size() / 2),
                         Field("pixel", static_cast<int64_t>(*bad)));
      }
    }
  }
  return level;
}

}  // namespace rigport::image
