// comparePoses(): how far apart two rigs are as a client sees them (`rigport compare`, issue 27 §1),
// for a rig and the game file written from it, or a rig and its .glb. Both are posed in glTF's
// axes (core/axes.hpp, as the exporter converts them) by core/pose.hpp, each by the rules its model
// carries (interpolation per channel, tracks relative to the bind pose made absolute), and measured:
//   rest joints     joint world matrices at the rest pose
//   bind vertices   every vertex at the rest pose (skinned through the inverse bind matrices)
//   clip joints     joint world matrices at each sample time of every clip both rigs have
//   clip vertices   every vertex at those times
// Distances are in metres. A joint's is the farthest the two world matrices put its origin or the
// tips of its axes at a lever of kJointLeverOfSize × the model size (so a turn of θ radians counts
// about θ × lever). Clips are sampled at the union of both sides' key times, a grid of
// `rate` per second from 0 to the later end, and the midpoint of every gap between those times (so
// that keys on the grid still show how each side interpolates between them).
//
// Matching: bones by name, else bone id, else name hash (as stored, or a stored hash against the
// other side's names hashed the same way); meshes by index, vertices by index; clips by name, or the
// only clip of each side whatever its name (a note says so). What has no partner is listed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/rig.hpp"

namespace rigport {

inline constexpr double kJointLeverOfSize = 0.1;
// The default tolerance of the library call: this fraction of the model size (the precision of
// float32 values; `rigport compare` takes the coarsest stated precision of the formats it read).
inline constexpr double kDefaultToleranceOfSize = 1e-4;

struct CompareOptions {
  float rate = 30.0f;  // samples per second between key times (> 0)
  // Most grid samples per clip pair; a longer clip is sampled more coarsely, with a note.
  size_t maxGridSamples = 100000;
  // Most vertex posings (sample times × vertices) of "clip vertices" per clip pair; 0: no limit.
  // Beyond it the vertices are posed at budget / vertices times (at least 2), half those where the
  // joints differ most between the two sides (a key's loss moves the vertices with its joints), half
  // those where the joints move farthest from rest (where a weight's loss shows), with a note; the
  // joints are measured at every time. `convert --to`'s own check sets it to stay cheap.
  size_t maxClipVertexPoses = 0;
};

// Where a measure's worst error is: the first place (bones parent first, meshes and vertices in
// order, times increasing) within a relative 1e-4 of the worst, so that a moved joint is named
// rather than one of the children it carries along.
struct Where {
  std::string clip;            // the first rig's clip name; empty for the rest pose
  std::optional<float> time;   // seconds, in clips
  std::string bone;            // joint measures: the first rig's bone name
  std::optional<size_t> mesh;  // vertex measures
  std::optional<size_t> vertex;
};

// "clip 'walk' at 0.4167 s, bone 'thigh_r'", "mesh 0 vertex 12"; "-" for nowhere.
std::string describeWhere(const Where& where);

struct Measure {
  std::string name;    // "rest joints", "bind vertices", "clip joints", "clip vertices"
  double worst = 0.0;  // metres; NaN when a side poses to NaN
  size_t compared = 0; // joint or vertex evaluations
  Where where;
};

// Something one rig has and the other does not.
struct Unmatched {
  enum class Kind { Bone, Mesh, Vertices, Clip };
  Kind kind = Kind::Bone;
  bool inFirst = true;   // the rig that has it
  std::string name;      // bone, mesh or clip name
  size_t index = 0;      // its index in the rig that has it (the mesh's, for Vertices)
  size_t count = 1;      // Vertices: how many vertices beyond the other mesh's count
};
const char* unmatchedKindName(Unmatched::Kind kind);

struct ClipPair {
  std::string first, second;
  bool byName = true;   // false: the only clip of each side, names differing
  size_t samples = 0;
};

struct Comparison {
  double modelSize = 0.0;          // metres: the larger bind-pose bounding-box diagonal (vertices, else joints)
  std::vector<Measure> measures;   // the four above, in that order
  std::vector<Unmatched> unmatched;
  std::vector<ClipPair> clips;
  std::vector<std::string> notes;
  size_t bones = 0;                // matched
  size_t meshes = 0;
  size_t vertices = 0;
  // ofSize × modelSize (× 1 m for a model without extent).
  double tolerance(double ofSize) const;
  double defaultTolerance() const { return tolerance(kDefaultToleranceOfSize); }
};

// `first` and `second` as assembled for export (clips bound to their skeletons, repaired); each is
// posed in glTF axes with absolute tracks: a copy is converted unless it is so already.
Comparison comparePoses(const Rig& first, const Rig& second, const CompareOptions& options = {});

// Whether comparePoses(first, second) finds every measure within `ofSize` × its model size
// (Comparison::tolerance(ofSize)), shown without posing a vertex; false where that is not shown, and
// only comparePoses() can tell. Shown for two rigs without clips (or shape keys, or unskinned meshes)
// whose meshes have the same positions and influences, bit for bit (a rig and the file written from
// it, read back): each vertex then poses to within a bound of the other's, set by how far apart the
// two skeletons' skin matrices are, and of its position, set by how far each is from the identity;
// that bound, the rest joints' distances and the rounding of the float posing, all taken at their
// largest, must be within the tolerance taken at its smallest. For the read-back check, which only
// asks whether anything is beyond its precision, so that a write that is within it is not posed.
bool provablyWithin(const Rig& first, const Rig& second, double ofSize);

// Converts `rig` in place to what comparePoses poses (glTF axes, every bound track absolute), so that
// a caller that owns a rig spares comparePoses the copy. `normals` false leaves the meshes' normals
// in the rig's own axes (comparePoses never looks at them), for a caller that drops the rig after.
void makePosable(Rig& rig, bool normals = true);

}  // namespace rigport
