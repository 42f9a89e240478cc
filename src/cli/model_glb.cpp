#include "cli/model_glb.hpp"

#include <fmt/format.h>

#include "cli/inputs.hpp"
#include "formats/registry.hpp"

namespace rigport::cli {

Result<Rig> loadConvertibleModel(const std::string& path, const std::vector<Rig>& animationRigs) {
  auto rig = loadModel(path, animationRigs);
  if (!rig) {
    Error e = rig.error();
    if (e.file.empty()) e.file = path;
    return e;
  }
  const FormatInfo* format = findFormat(rig->provenance.format);
  if (format != nullptr && format->animationOnly) {
    Error e = makeError(ErrorCode::Usage, fmt::format("{} files carry only animations; pass this one with --anim next to a model",
                                                      format->name));
    e.file = path;
    return e;
  }
  return rig;
}

size_t warningCount(const Rig& rig) {
  size_t n = 0;
  for (const Warning& w : rig.provenance.warnings) n += w.count;
  return n;
}

}  // namespace rigport::cli
