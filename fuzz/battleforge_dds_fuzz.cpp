// libFuzzer target for the DDS reader (formats/battleforge/dds_reader.cpp) and the image room
// behind it; every texture it accepts is encoded as the PNG the glTF export embeds.
// Seeds: tests/data/fuzz/battleforge_dds/seed.dds (a DXT1 DDS with mips, written by the tests' writer).
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/read_context.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "image/png.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rigport::ReadOptions options;
  options.memoryLimit = 64u << 20;  // the fuzzer's malloc limit is 512 MiB
  rigport::ReadContext ctx(options);
  auto asset = rigport::battleforge::readDds(std::span<const uint8_t>(data, size), ctx);
  if (!asset) return 0;
  for (const rigport::Texture& t : asset->textures) (void)rigport::image::encodePng(t.image.levels.front());
  return 0;
}
