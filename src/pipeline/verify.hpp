// measureWritten(): what `convert --to FORMAT` encoded, read back and posed before anything is
// written (issue 27: "convert exactly or say what is lost and by how much, never silently"). The
// writers' own loss warnings (core/fit.hpp) say what each fit changed, in the units of its keys; this
// check measures the whole result as a user reading the output would: every encoded file read in
// memory by its format's reader, a model and its clip files (a DFF and its .anm) assembled together,
// clip files alone (SKA, CLIP) onto the skeleton that was encoded, then compared with the rig as read
// from the input, before fitting, by `rigport compare`'s library call (core/compare.hpp). Beyond the
// coarsest stated precision of the formats written (FormatInfo::precision × the model's size), one
// `pose-loss` warning gives each measure's worst error in metres and where it is. A model read back
// with the input's own vertices and weights and no clip is first bounded (provablyWithin(),
// core/compare.hpp): shown within the precision, it is not posed; else it is compared.
#pragma once

#include <optional>
#include <vector>

#include "core/assemble.hpp"
#include "core/compare.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"
#include "pipeline/encode.hpp"

namespace rigport {

inline constexpr const char* kPoseLossCode = "pose-loss";
// A part of the output that did not read back, so was not measured (a note, not a loss).
inline constexpr const char* kPoseUnverifiedCode = "pose-unverified";

// Most vertex posings per clip the check spends on "clip vertices" (CompareOptions::maxClipVertexPoses):
// every sample time of the 4,000-vertex demo's 1 s walk, 4 of a 60,000-vertex one's, so that the check
// stays under the conversion's own time (README "Modding" gives the figures).
inline constexpr size_t kCheckClipVertexPoses = 250000;

// `source` (the rig given to encodeForFormat) against `files` read back. Returns no warning when every
// measure is within precision; else one pose-loss warning; a file that does not read back, a clip the
// skeleton cannot bind or a read-back that is not one rig, one pose-unverified warning. Never fails.
Provenance measureWritten(const Rig& source, const EncodedFiles& files, const ReadOptions& read);

// Gives back the memory of what measureWritten(source, files, ...) does not look at, so that reading
// the files back reuses it: the meshes' normals, UVs and triangles (it poses vertices). Not where it
// splits the source like the model's writer (splitLikeTheWriter), which takes the triangles and the
// vertices' attributes: then nothing. `source` is for measureWritten() alone after this.
void releaseUnmeasured(Rig& source, const EncodedFiles& files);

// Rigs of one file that are one skeleton with its clips spread over them (a package's clips, each
// assembled onto the package's RIG) become that rig with every clip, as `rigport compare` and the
// check above read a file.
void joinClipsOfOneSkeleton(std::vector<AssembledRig>& rigs);

// `rig` with each mesh beyond the vertex limit of `written`'s writer split as fitToLimits splits it
// before that writer runs (exactly: core/fit.hpp), so that its vertices pair by index with the
// pieces a file of that format holds; none when no mesh is beyond the limit. The check above and
// `rigport compare` measure a split mesh so.
std::optional<Rig> splitLikeTheWriter(const Rig& rig, const FormatInfo& written);

}  // namespace rigport
