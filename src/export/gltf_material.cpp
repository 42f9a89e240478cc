// Materials (format note gltf_ecosystem.md, three.js rendering note): metallic 0 and roughness 1 on every
// material, because the glTF default (metallic 1) renders black under ambient or hemisphere light
// in three.js; texture names go to extras, and a bound texture (Material::baseColorTexture) is the
// baseColorTexture, multiplied by the material colour as both glTF and RenderWare do; a bound normal
// map (Material::normalTexture, BattleForge's `_nor`) is the normalTexture, its tangents left to the
// viewer (glTF §3.7.2.1: MikkTSpace when a primitive has none).
#include "export/gltf_document.hpp"

namespace rigport::gltf {
namespace {

Json pbr(const glm::vec4& colour, std::optional<uint32_t> texture = std::nullopt) {
  Json out = Json::object();
  out["baseColorFactor"] = {colour.r, colour.g, colour.b, colour.a};
  if (texture) out["baseColorTexture"] = Json{{"index", *texture}};
  out["metallicFactor"] = 0.0;
  out["roughnessFactor"] = 1.0;
  return out;
}

}  // namespace

void addMaterials(Document& doc, const Rig& rig) {
  for (const Material& m : rig.materials) {
    Json material = Json::object();
    if (!m.name.empty()) material["name"] = m.name;
    // baseColorFactor is clamped to [0, 1] by the schema.
    material["pbrMetallicRoughness"] = pbr(glm::clamp(m.baseColor, glm::vec4(0.0f), glm::vec4(1.0f)), m.baseColorTexture);
    if (m.normalTexture) material["normalTexture"] = Json{{"index", *m.normalTexture}};
    // A translucent material colour blends whatever its texture; else the texture's pixels say
    // (a cut-out's 0/255 alpha is MASK at glTF's default cutoff 0.5).
    const AlphaMode textureAlpha = m.baseColorTexture ? rig.textures[*m.baseColorTexture].image.alpha : AlphaMode::Opaque;
    if (m.baseColor.a < 1.0f || textureAlpha == AlphaMode::Blend) {
      material["alphaMode"] = "BLEND";
    } else if (textureAlpha == AlphaMode::Mask) {
      material["alphaMode"] = "MASK";
    }
    Json extras = Json::object();
    if (!m.textures.empty()) extras["textures"] = m.textures;
    extras = withModelExtras(m.extras, std::move(extras));
    if (!extras.empty()) material["extras"] = std::move(extras);
    doc.materials.push_back(std::move(material));
  }
}

uint32_t defaultMaterial(Document& doc) {
  if (!doc.defaultMaterial) {
    doc.defaultMaterial = static_cast<uint32_t>(doc.materials.size());
    Json material = Json::object();
    material["name"] = "default";
    material["pbrMetallicRoughness"] = pbr(glm::vec4(1.0f));
    doc.materials.push_back(std::move(material));
  }
  return *doc.defaultMaterial;
}

}  // namespace rigport::gltf
