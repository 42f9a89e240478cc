// Blender's import then its own glTF export (tools/blender_reexport.py): what a modder's edited file
// looks like when it comes back from Blender 3.4 (format note gltf_ecosystem.md §2.3).
#pragma once

#include <string>

namespace rigport::test {

struct ReexportRun {
  bool ok = false;
  std::string output;  // Blender's console output, or why it could not run
};

// Imports `inPath` and exports `outPath` (.glb). A missing Blender is a failure saying so, never a skip.
ReexportRun reexportWithBlender(const std::string& inPath, const std::string& outPath);

}  // namespace rigport::test
