#include "core/read_context.hpp"

#include <fmt/format.h>

namespace rigport {

Result<Asset> ReadContext::readNested(const Source& inner, std::string_view format, ErrorFrame frame) const {
  Error e;
  if (formatReader == nullptr) {
    e = makeError(ErrorCode::Usage, "this read does not allow reading inner resources");
  } else if (depth + 1 > options.maxDepth) {
    e = makeError(ErrorCode::TooLarge, fmt::format("containers nest deeper than {} levels", options.maxDepth));
  } else {
    ReadContext child = nested();
    auto asset = formatReader(inner, child, format);
    if (asset) return asset;
    e = std::move(asset.error());
    e.file.clear();  // the outer file names it
  }
  e.within(std::move(frame));
  return e;
}

}  // namespace rigport
