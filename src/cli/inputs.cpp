#include "cli/inputs.hpp"

#include <fmt/format.h>

#include "core/axes.hpp"
#include "core/bind.hpp"
#include "formats/registry.hpp"

namespace rigport::cli {

void printError(const Error& error) { fmt::print(stderr, "rigport: error: {}\n", error.describe()); }

std::vector<Rig> loadAnimationFiles(const std::vector<std::string>& paths, size_t& failures) {
  std::vector<Rig> rigs;
  for (const std::string& path : paths) {
    auto rig = loadFile(path);
    if (!rig) {
      printError(rig.error());
      ++failures;
      continue;
    }
    rigs.push_back(std::move(*rig));
  }
  return rigs;
}

Result<Rig> loadModel(const std::string& path, const std::vector<Rig>& animationRigs) {
  Rig rig = RP_TRY(loadFile(path));
  for (const Rig& source : animationRigs) {
    Rig anims = source;
    convertAxes(anims, rig.provenance.axes);  // keys into the model's axes; a no-op when they agree
    bindAnimations(rig, std::move(anims.animations));
  }
  return rig;
}

}  // namespace rigport::cli
