// fitToLimits(): makes a rig fit what a target format can hold before its writer runs (`rigport
// convert in.glb --to FORMAT`), reducing or splitting where that is sound and saying what was lost,
// never silently; refusing where nothing sound can be done. Each registry entry with a writer
// states its limits (formats/registry.hpp, FormatInfo::limits).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

struct WriteLimits {
  uint32_t maxInfluences = 0;    // per vertex; 0: no limit. More: the smallest are dropped, the rest renormalised
  uint32_t maxJoints = 0;        // skin palette entries; 0: no limit. More: refused
  uint32_t maxVertices = 0;      // per mesh (the index width); 0: no limit. More: the mesh is split
  bool noEvents = false;         // the format stores no animation events: they are dropped
  bool noScalarChannels = false; // nor scalar channels (morph/driver keys)
  bool noScaleKeys = false;      // keys carry no scale: scale keys are dropped, the loss measured (core/fit_keys.hpp)
  bool hermiteKeys = false;      // keys are Hermite with one tangent each: STEP and LINEAR keys are converted
  float keyFrameRate = 0.0f;     // keys lie on frames of this rate and play linearly: other keys are resampled; 0: any time
  bool oneClipPerFile = false;   // a file holds one clip: several need a file each (pipeline/encode.hpp)
  bool asciiNames = false;       // bone names are printable ASCII: others are spelled in it, each rename named
  bool uniqueNames = false;      // bone names are unique: a repeated one is suffixed (a joint keeps its name first), each rename named
  bool tracksOnJointsOnly = false; // tracks bind to joints: a track on another bone is folded into its children's
  bool jointsOnJoints = false;   // a joint hangs on a joint: a bone that is no joint between two is folded into the joints below it
  bool skinnedMeshesOnly = false; // every mesh is skinned: a mesh riding a bone is bound to it with weight 1, its vertices moved into bind space
  // The format's rule (Skeleton::inheritScale): whether children inherit their parent's scale. A rig
  // of the other rule poses the bones under a scaled parent differently there: they are counted.
  bool childrenInheritScale = true;
  // The format stores morph targets (shape keys) and their weight keys. Not: they are dropped, and
  // one warning per mesh gives an upper bound of how far that moves a vertex.
  bool keepsMorphTargets = false;
};

// Splits a mesh into pieces of at most `limit` vertices, triangle by triangle (a triangle never
// straddles two pieces; shared vertices are copied into each piece that needs them). Exact: the
// pieces pose as the mesh did.
std::vector<Mesh> splitMesh(const Mesh& mesh, uint32_t limit);

// After `rig.meshes` took the pieces of split meshes (`splits`: each split mesh's name and its
// number of pieces, named as splitMesh names them): a split mesh's morph weight tracks become one
// per piece (the pieces keep every target), and every track is bound again to its mesh, since the
// mesh indices moved.
void followSplitMeshes(Rig& rig, const std::vector<std::pair<std::string, size_t>>& splits);

// The most a vertex of `mesh` moves, in the mesh's units, when its morph targets are dropped: the
// sum over targets of the longest position delta times the largest weight the target takes (its
// default or any key of `animations` on that mesh).
float morphLossBound(const Mesh& mesh, size_t meshIndex, const std::vector<Animation>& animations);

// Whether fitToLimits() leaves `mesh` as it is (at most moves it to another place in memory): no
// rider to bind to its bone (skinnedMeshesOnly), no influences to reduce, no split, no morph
// targets to drop. Each clause is the condition of one of fitToLimits()' steps on a mesh; a caller
// that keeps its rig lends such meshes to the rig it fits instead of copying them (pipeline/encode.cpp).
bool fitLeavesMesh(const Mesh& mesh, const WriteLimits& limits);

// Changes `rig` to fit `limits`; each loss is a warning in rig.provenance naming the mesh or clip
// and what went. `format` names the target in messages.
Status fitToLimits(Rig& rig, const WriteLimits& limits, std::string_view format);

}  // namespace rigport
