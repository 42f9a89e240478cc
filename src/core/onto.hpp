// What the writers that write an edit into a copy of its original (`convert --to F --base ORIGINAL`)
// share: their refusals, the rig's bone for each of the original's, and the size a length's
// rounding is taken in proportion to. A format gives only what is its own (BoneStore).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport {

// A refusal (ErrorCode::Usage): the original cannot hold the edit; `path` names the structure and
// field of the original at fault.
Error refuse(std::string path, std::string message);

// How an original keeps its bones, in the format's own words: what matchBones' refusals name.
struct BoneStore {
  std::string countPath;               // the field that fixes the bone count ("ACT/boneCount")
  std::string records;                 // what --base writes each bone onto ("bone records")
  std::string newFile;                 // what convert without --base makes instead ("block")
  std::string hierarchy;               // what keeps the parents ("the bone records' DSBranch links")
  std::vector<std::string> bonePaths;  // each of the original's bones' place ("ACT/bone[3]")
  std::string nameField;               // after a bone's place, its name's ("/name"; "" where none)
  // Why the original cannot take a bone's new name ("a block stores no bone names of its own"),
  // "" where the writer writes renames (checking the room the format gives a name itself).
  std::string noRenames;
};

// The rig's bone for each of the original's. A name both sides hold once matches by name; the
// bones left (a renamed bone, or names that repeat) pair among themselves, each with the rig's bone
// left under its parent's match that is nearest its rest translation (renamed siblings that Blender
// lists in another order still find their own), else by position. --base writes onto the original's bones, so refused are: another bone count, a
// bone under another parent (a bone replaced, not renamed, shows so), a rename giving two bones one
// name, and any rename where the store says it keeps none. A renamed bone is one whose match
// bears another name: the writer writes it.
Result<std::vector<uint32_t>> matchBones(const Skeleton& base, const Skeleton& rig, const BoneStore& store);

// The largest coordinate of a bone origin or vertex (at least 1). Rigid meshes lie in their bones'
// spaces, so this, not a bounding box, sizes the model: lengths round in proportion to it.
float largestCoordinate(const Rig& rig);

}  // namespace rigport
