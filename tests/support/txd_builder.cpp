#include "support/txd_builder.hpp"

#include "core/byte_writer.hpp"
#include "formats/renderware/chunk.hpp"
#include "formats/renderware/txd_layout.hpp"

namespace rigport::test {

std::vector<uint8_t> writeTxd(const std::vector<TxdRaster>& rasters, uint32_t version) {
  using namespace renderware;
  const uint32_t id = packLibraryId(version, 0xFFFF);
  ByteWriter w;
  const size_t dict = beginChunk(w, kTextureDictionary, id);
  const size_t dictStruct = beginChunk(w, kStruct, id);
  w.u16(static_cast<uint16_t>(rasters.size()));
  w.u16(rasters.empty() || rasters.front().platform == kTexturePlatformD3d8 ? 1 : 2);  // device id: 1 D3D8, 2 D3D9
  endChunk(w, dictStruct);
  for (const TxdRaster& r : rasters) {
    const size_t native = beginChunk(w, kTextureNative, id);
    const size_t st = beginChunk(w, kStruct, id);
    w.u32(r.platform);
    w.u32(r.filterAddressing);
    w.fixedString(r.name, 32);
    w.fixedString(r.mask, 32);
    w.u32(r.rasterFormat);
    w.u32(r.alphaOrD3dFormat);
    w.u16(r.width);
    w.u16(r.height);
    w.u8(r.depth);
    w.u8(static_cast<uint8_t>(r.numLevels < 0 ? r.levels.size() : static_cast<size_t>(r.numLevels)));
    w.u8(r.rasterType);
    w.u8(r.compressionOrFlags);
    w.raw(r.palette);
    for (const std::vector<uint8_t>& level : r.levels) {
      w.u32(static_cast<uint32_t>(level.size()));
      w.raw(level);
    }
    endChunk(w, st);
    endChunk(w, beginChunk(w, kExtension, id));
    endChunk(w, native);
  }
  endChunk(w, beginChunk(w, kExtension, id));
  endChunk(w, dict);
  return w.take();
}

}  // namespace rigport::test
