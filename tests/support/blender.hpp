// Imports a glTF file into headless Blender (tools/blender_inspect.py) and returns what Blender
// built: armatures and bones, mesh vertex groups and weights, actions and fcurves (format note
// gltf_ecosystem.md §2.3). One Blender run takes about 1-2 s.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace rigport::test {

struct BlenderRun {
  bool ok = false;
  std::string output;       // Blender's console output, or why it could not run
  nlohmann::json report;    // tools/blender_inspect.py's JSON when ok
};

// `gltfPath` is a .glb or .gltf; the report is written to `reportPath`. When blender is not on PATH,
// ok is false and `output` says to run scripts/setup.sh: a missing Blender fails a test, never skips it.
BlenderRun inspectWithBlender(const std::string& gltfPath, const std::string& reportPath);

}  // namespace rigport::test
