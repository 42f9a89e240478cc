// Internal to the IFP reader: one function per package layout (renderware.md §4), each appending
// its animations to the clip set. readIfp() (ifp_reader.cpp) dispatches on the magic.
#pragma once

#include "core/byte_reader.hpp"
#include "core/error.hpp"
#include "core/asset.hpp"

namespace rigport::renderware::ifp {

// An "ANPK" tagged package (GTA III / Vice City, §4.1); `r` is positioned at its tag.
Status readAnpk(ByteReader& r, ClipSet& clips);
// A flat "ANP3" (San Andreas) or "ANP2" package (§4.2); `r` is positioned after the 4-byte magic.
Status readAnp23(ByteReader& r, ClipSet& clips, bool isAnp3);

// Animation::duration for IFP: the last key time of any track (the formats store no duration).
float lastKeyTime(const Animation& anim);

}  // namespace rigport::renderware::ifp
