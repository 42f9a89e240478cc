// Asset: everything one file holds. A DFF holds one rig; an IFP package a set of clips with no
// skeleton; a Sims 3 package many clips and rigs; an RW4 arena or a Sluggers archive several
// models. Readers return all of it; core/assemble.hpp turns the assets of every input into the
// rigs to export (choosing each clip set's skeleton and binding its tracks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/rig.hpp"
#include "core/texture.hpp"

namespace rigport {

// One entry of a file, as `rigport info` lists it without decoding it.
struct ItemInfo {
  std::string id;    // stable within the file: an index, a resource key, a dictionary row
  std::string kind;  // "rig", "skeleton", "mesh", "clip", "resource", ...
  std::string name;  // the name the file gives it, or empty
  uint64_t bytes = 0;
};

// The skeleton a clip set says it wants: a rig's name or item id in the same or another file.
struct SkeletonKey {
  std::string name;
  std::string item;
};

// Animations whose tracks name bones of a skeleton stored elsewhere (BoneRef; never trusted
// resolved indices). Keys are in `provenance.axes`.
struct ClipSet {
  std::string item;  // item id in its file
  std::string name;
  std::vector<Animation> animations;
  // Empty, or per animation the item id `info` lists for it alone (an arena's KeyframeAnim row):
  // `--item` with one of them keeps the set with those animations only.
  std::vector<std::string> animationItems;
  std::optional<SkeletonKey> wants;
  Provenance provenance;
};

struct Asset {
  std::vector<Rig> rigs;      // skeletons with their meshes and own animations
  std::vector<ClipSet> clips; // standalone animations
  std::vector<Texture> textures;  // a texture file's images (a RenderWare TXD), bound to rigs by name
  Provenance provenance;      // the file's format, name, axes and file-level warnings
};

}  // namespace rigport
