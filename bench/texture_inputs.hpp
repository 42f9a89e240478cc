// Game textures for the PNG writer's benchmarks (issue 29): synthetic pictures pushed through
// libsquish's DXT encoder (as the texture tests encode theirs) and decoded by rigport's own
// decoder, so the PNG writer gets what it gets from a TXD: 4x4 blocks of at most 4 colours each
// (DXT5: 8 alpha levels a block). And a textured model to convert whole: a DFF whose materials name
// those textures and the TXD that holds them (bench_inputs writes them as textured.dff and
// textured.txd, the TXD found beside the DFF by its name).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/texture.hpp"
#include "image/pixel_layout.hpp"

namespace rigport::bench {

struct GameTexture {
  std::string name;             // what the picture is, e.g. "painted_dxt1_1024"
  image::PixelLayout layout;    // Dxt1 (1-bit alpha where the picture has it), Dxt5, or B8G8R8A8 (stored whole)
  std::vector<uint8_t> stored;  // level 0 as a TXD stores it
  ImageLevel decoded;           // the stored level decoded, the PNG writer's input
};

// Six DXT pictures, four 1024² and two 512²: painted (smooth shading, flat shapes, soft edges), a
// photo-like one (shading with a fine grain), a busy detail texture (several octaves of value
// noise), foliage with soft alpha (DXT5), a smaller painted one and a cut-out (DXT1 1-bit alpha);
// then two stored uncompressed (8888), the painted and photo-like 1024² ones, to check that what is
// chosen for DXT does not fail on the pictures a DXT encoder never touched.
const std::vector<GameTexture>& gameTextures();

// A DFF of six small meshes, one material each naming one of gameTextures()' DXT ones, and the TXD
// of those textures (D3D9 rasters, level 0 only).
const std::vector<uint8_t>& texturedDff();
const std::vector<uint8_t>& texturedTxd();

}  // namespace rigport::bench
