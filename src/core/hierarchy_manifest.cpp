#include "core/hierarchy_manifest.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rigport {

Result<BoneParentMap> parseHierarchyManifest(std::string_view json, const std::string& file) {
  auto fail = [&](std::string message) {
    Error e = makeError(ErrorCode::BadValue, std::move(message));
    e.file = file;
    e.path = "hierarchy manifest";
    return e;
  };
  const nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return fail("not valid JSON");
  if (!doc.is_object()) return fail("expected a JSON object mapping each bone name to its parent's name (or null)");
  BoneParentMap parents;
  for (const auto& [bone, parent] : doc.items()) {
    if (parent.is_null()) {
      parents[bone] = "";
    } else if (parent.is_string()) {
      const std::string p = parent.get<std::string>();
      if (p == bone) return fail(fmt::format("bone '{}' names itself as its parent", bone));
      parents[bone] = p;
    } else {
      return fail(fmt::format("bone '{}': the parent must be a name or null, not {}", bone, parent.type_name()));
    }
  }
  return parents;
}

Result<std::shared_ptr<const BoneParentMap>> loadHierarchyManifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ioError(path, "cannot open the hierarchy manifest");
  std::ostringstream text;
  text << in.rdbuf();
  RP_ASSIGN(BoneParentMap parents, parseHierarchyManifest(text.str(), path));
  return std::make_shared<const BoneParentMap>(std::move(parents));
}

}  // namespace rigport
