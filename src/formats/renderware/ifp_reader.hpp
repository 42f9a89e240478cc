// Internal to the IFP reader: one function per package layout (renderware.md §4), each appending
// its animations to the clip set. readIfp() (ifp_reader.cpp) dispatches on the magic.
#pragma once

#include "core/byte_reader.hpp"
#include "core/error.hpp"
#include "core/asset.hpp"
#include "core/read_context.hpp"

namespace rigport::renderware::ifp {

// An "ANPK" tagged package (GTA III / Vice City, §4.1); `r` is positioned at its tag.
Status readAnpk(ByteReader& r, ClipSet& clips, const ReadContext& ctx);
// A flat "ANP3" (San Andreas) or "ANP2" package (§4.2); `r` is positioned after the 4-byte magic.
Status readAnp23(ByteReader& r, ClipSet& clips, bool isAnp3, const ReadContext& ctx);

// Once clips.animations.back() is decoded from `r`'s bytes before r.position(): hands it to
// ReadOptions::animationRead and gives back `r`'s bytes from `kept` (where those not given back
// yet start; moved on) once they are a MiB: a call cost about 80 µs on a loaded 2-core machine
// (strace -c), and one a clip made `info` of a 1,000-clip package (listed, then read) 3.6 times as
// slow. Without animationRead it does nothing: a whole read keeps its pages.
void animationDecoded(const ReadContext& ctx, ClipSet& clips, const ByteReader& r, size_t& kept);

// Animation::duration for IFP: the last key time of any track (the formats store no duration).
float lastKeyTime(const Animation& anim);

}  // namespace rigport::renderware::ifp
