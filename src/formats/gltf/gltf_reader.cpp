// readGltf: the document (gltf_load.cpp), then skeletons, meshes and animations (gltf_reader.hpp).
#include <cstring>

#include <fmt/format.h>

#include "formats/gltf/gltf.hpp"
#include "formats/gltf/gltf_reader.hpp"

namespace rigport::gltf_in {

bool probeGlb(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), "glTF", 4) != 0) return false;
  return bytes[4] == 2 && bytes[5] == 0 && bytes[6] == 0 && bytes[7] == 0;
}

Result<Asset> readGltf(const Source& source, ReadContext& ctx) {
  RP_ASSIGN(const Document doc, loadDocument(source, ctx));
  Asset asset;
  asset.provenance.format = "gltf";  // glTF's axes: AxisSystem{} (Y up, right-handed, metres)
  std::vector<Rig> rigs;
  RP_ASSIGN(Layout layout, readSkeletons(doc, ctx, rigs));
  RP_CHECK(readMeshes(doc, ctx, layout, rigs, asset.provenance));
  RP_CHECK(readAnimations(doc, ctx, layout, rigs, asset.provenance));
  const auto& scenes = doc.model.scenes;
  const size_t scene = doc.model.defaultScene >= 0 ? static_cast<size_t>(doc.model.defaultScene) : 0;
  nlohmann::json sceneExtras = scene < scenes.size() ? extrasOf(scenes[scene].extras_json_string) : nlohmann::json();
  for (size_t r = 0; r < rigs.size(); ++r) {
    Rig& rig = rigs[r];
    rig.provenance.format = "gltf";
    // rigport writes one rig per file, and the scene's extras are that rig's.
    if (rigs.size() == 1 && sceneExtras.is_object() && !sceneExtras.empty()) rig.extras = sceneExtras;
    asset.rigs.push_back(std::move(rig));
  }
  return asset;
}

Result<std::vector<ItemInfo>> listGltf(const Source& source, ReadContext& ctx) {
  RP_ASSIGN(const Asset asset, readGltf(source, ctx));
  std::vector<ItemInfo> items;
  for (size_t r = 0; r < asset.rigs.size(); ++r) {
    items.push_back(ItemInfo{std::to_string(r), "rig", asset.rigs[r].name, 0});
  }
  return items;
}

}  // namespace rigport::gltf_in
