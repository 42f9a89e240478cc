// TEMPORARY: placeholder until the glTF exporter lands; its author deletes this file.
#include "export/gltf.hpp"
namespace rigport {
Result<std::vector<uint8_t>> exportGlb(const Rig&, const GltfOptions&) { return makeError(ErrorCode::Unsupported, "not implemented yet"); }
Result<GltfFiles> exportGltf(const Rig&, const std::string&, const GltfOptions&) { return makeError(ErrorCode::Unsupported, "not implemented yet"); }
}  // namespace rigport
