#include "image/pixel_layout.hpp"

namespace rigport::image {

const char* pixelLayoutName(PixelLayout layout) {
  switch (layout) {
    case PixelLayout::B8G8R8A8: return "B8G8R8A8";
    case PixelLayout::B8G8R8X8: return "B8G8R8X8";
    case PixelLayout::R8G8B8A8: return "R8G8B8A8";
    case PixelLayout::R8G8B8X8: return "R8G8B8X8";
    case PixelLayout::B8G8R8: return "B8G8R8";
    case PixelLayout::A1R5G5B5: return "A1R5G5B5";
    case PixelLayout::R5G6B5: return "R5G6B5";
    case PixelLayout::A4R4G4B4: return "A4R4G4B4";
    case PixelLayout::A8R8G8B8: return "A8R8G8B8";
    case PixelLayout::X8R8G8B8: return "X8R8G8B8";
    case PixelLayout::L8: return "L8";
    case PixelLayout::P8: return "P8";
    case PixelLayout::Dxt1: return "DXT1";
    case PixelLayout::Dxt3: return "DXT3";
    case PixelLayout::Dxt5: return "DXT5";
  }
  return "?";
}

bool isBlockCompressed(PixelLayout layout) {
  return layout == PixelLayout::Dxt1 || layout == PixelLayout::Dxt3 || layout == PixelLayout::Dxt5;
}

uint64_t levelBytes(PixelLayout layout, uint32_t width, uint32_t height) {
  const uint64_t pixels = uint64_t{width} * height;
  switch (layout) {
    case PixelLayout::B8G8R8A8:
    case PixelLayout::B8G8R8X8:
    case PixelLayout::R8G8B8A8:
    case PixelLayout::R8G8B8X8: return pixels * 4;
    case PixelLayout::B8G8R8: return pixels * 3;
    case PixelLayout::A8R8G8B8:
    case PixelLayout::X8R8G8B8: return pixels * 4;
    case PixelLayout::A1R5G5B5:
    case PixelLayout::R5G6B5:
    case PixelLayout::A4R4G4B4: return pixels * 2;
    case PixelLayout::L8:
    case PixelLayout::P8: return pixels;
    case PixelLayout::Dxt1:
    case PixelLayout::Dxt3:
    case PixelLayout::Dxt5: {
      const uint64_t blocks = ((uint64_t{width} + 3) / 4) * ((uint64_t{height} + 3) / 4);
      return blocks * (layout == PixelLayout::Dxt1 ? 8 : 16);
    }
  }
  return 0;
}

std::string fourCcText(uint32_t fourCc) {
  std::string text;
  for (int i = 0; i < 4; ++i) {
    const char c = static_cast<char>((fourCc >> (8 * i)) & 0xFF);
    text += c >= 0x20 && c < 0x7F ? c : '?';
  }
  return text;
}

}  // namespace rigport::image
