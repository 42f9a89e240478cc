// OpenGL/WDGL ("mobile") native skin (format note renderware.md §1.7; librw src/gl/wdgl.cpp
// readNativeSkin): the Skin PLG holds only the matrices, weights/indices are vertex attributes.
#include <fmt/format.h>

#include "formats/renderware/native/native_reader.hpp"

namespace rigport::renderware {

Result<SkinPlg> readWdglSkin(ByteReader& r) {
  SkinPlg skin;
  RP_ASSIGN(const int32_t numBones, r.s32("numBones"));
  if (numBones < 0 || numBones > 256) {
    return r.error(ErrorCode::BadValue, fmt::format("bone count {} outside 0..256", numBones), "numBones");
  }
  skin.numBones = static_cast<uint32_t>(numBones);
  RP_ASSIGN(skin.inverseMatrices, readInverseMatrices(r, skin.numBones, false));
  return skin;
}

}  // namespace rigport::renderware
