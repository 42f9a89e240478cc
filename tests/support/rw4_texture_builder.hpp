// An RW4 texture arena writer for tests (rigport writes no texture files yet, issue 29): the
// container of rw4_arena.md §2 holding Skate's PS3 Texture objects or Spore's PC Raster objects
// (formats/rw4/texture_layout.hpp), a TableOfContents naming them (PS3), and each texture's pixels
// in a BaseResource of its own, in the order the public texture PSGs keep (BaseResource, Texture,
// BaseResource, Texture, ..., TableOfContents, VersionData). Pixels are the tests' own encoding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rigport::test {

// One texture as stored: every field is the test's to forge.
struct Rw4Texture {
  uint8_t format = 0x86;          // PS3: CellGcm format byte (0x86 DXT1 ... 0xA5 A8R8G8B8 linear)
  uint32_t d3dFormat = 0x31545844;  // PC: the Raster's D3DFORMAT ("DXT1")
  int mipmap = -1;                // -1: levels.size()
  uint8_t dimension = 2;
  uint8_t cubemap = 0;
  uint16_t width = 4;
  uint16_t height = 4;
  uint32_t pitch = 0;
  int64_t buffer = -1;            // the BaseResource row it names; -1: its own
  std::string tocName;            // PS3: the TableOfContents entry's name ("0x<guid>.Texture")
  uint64_t guid = 0;
  std::vector<std::vector<uint8_t>> levels;  // each level as stored, back to back in the BaseResource
};

// A PS3 arena (big-endian, BaseResource 0x10034, a TableOfContents) or a PC one (little-endian,
// BaseResource 0x10030, no TableOfContents, as Spore's files).
std::vector<uint8_t> writeTextureArena(const std::vector<Rw4Texture>& textures, bool ps3 = true);

}  // namespace rigport::test
