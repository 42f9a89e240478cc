// A hierarchy manifest: bone parents given by the user for formats that store none (RW4 arenas keep
// bone names and inverse bind matrices but no parents, rw4_arena.md §4.1). `--hierarchy FILE` on
// the command line; docs/hierarchy_manifest.md describes the JSON:
//   { "HIPS": "TRAJECTORY", "SPINE": "HIPS", "TRAJECTORY": null }
// each key a bone name, each value its parent's name, or null (or "") for a root.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"

namespace rigport {

// Bone name -> parent name; "" means a root.
using BoneParentMap = std::unordered_map<std::string, std::string>;

// Errors name `file` and, for a bad entry, the bone it is about.
Result<BoneParentMap> parseHierarchyManifest(std::string_view json, const std::string& file);
Result<std::shared_ptr<const BoneParentMap>> loadHierarchyManifest(const std::string& path);

}  // namespace rigport
