// Textures in the model: an image decoded to RGBA8 with its mip levels, how its alpha is used, and
// how it is sampled. Readers of texture files (a RenderWare TXD) fill them in through the image
// room (src/image/); core/texture_binding.hpp binds them to a rig's materials by name; the glTF
// exporter embeds level 0 of each as a PNG.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rigport {

// One mip level: width x height pixels of R, G, B, A bytes, rows top to bottom, no padding.
struct ImageLevel {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint8_t> rgba;
};

// How a texture's alpha is used, judged from its pixels (image/alpha.hpp): every alpha 255 is
// opaque, every alpha 0 or 255 a cut-out mask (glTF MASK), anything between blends (glTF BLEND).
enum class AlphaMode { Opaque, Mask, Blend };
constexpr const char* alphaModeName(AlphaMode mode) {
  return mode == AlphaMode::Opaque ? "opaque" : mode == AlphaMode::Mask ? "mask" : "blend";
}

struct Image {
  std::vector<ImageLevel> levels;  // level 0 is the full size; each next one halves it (at least 1)
  AlphaMode alpha = AlphaMode::Opaque;
};

enum class TextureFilter { Nearest, Linear };
enum class MipFilter { None, Nearest, Linear };  // None: level 0 only
enum class TextureWrap { Repeat, Mirror, Clamp };

struct Sampler {
  TextureFilter magnify = TextureFilter::Linear;
  TextureFilter minify = TextureFilter::Linear;
  MipFilter mip = MipFilter::None;
  TextureWrap wrapU = TextureWrap::Repeat;
  TextureWrap wrapV = TextureWrap::Repeat;
};

struct Texture {
  std::string name;         // as the file stores it; materials name it (matched ignoring case)
  // Another name materials bind it by, or empty: an RW4 texture whose TableOfContents entry gives a
  // name of its own keeps the entry's GUID here as "0x<guid>", which Skate's material channels name.
  std::string id;
  std::string mask;         // the alpha mask's name, or empty (RenderWare)
  std::string pixelFormat;  // the stored layout in the format's words, e.g. "DXT1", "8888", "PAL8"
  std::string file;         // the file it was read from
  Image image;
  Sampler sampler;
};

}  // namespace rigport
