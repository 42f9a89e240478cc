// Textures (glTF 2.0 §3.8): each rig texture's level 0 as a PNG in a bufferView of the one buffer
// (mimeType image/png), the same in a .glb and beside a .gltf (in its .bin), with the source's
// sampler: glTF has no border colour, so a clamped-to-border texture clamps to its edge.
#include "export/gltf_document.hpp"
#include "image/png.hpp"

namespace rigport::gltf {
namespace {

// WebGL enums (§5.26 sampler).
constexpr uint32_t kNearest = 9728, kLinear = 9729;
constexpr uint32_t kNearestMipmapNearest = 9984, kLinearMipmapNearest = 9985, kNearestMipmapLinear = 9986, kLinearMipmapLinear = 9987;
constexpr uint32_t kClampToEdge = 33071, kMirroredRepeat = 33648, kRepeat = 10497;

uint32_t minifyFilter(const Sampler& s) {
  const bool linear = s.minify == TextureFilter::Linear;
  switch (s.mip) {
    case MipFilter::None: return linear ? kLinear : kNearest;
    case MipFilter::Nearest: return linear ? kLinearMipmapNearest : kNearestMipmapNearest;
    case MipFilter::Linear: return linear ? kLinearMipmapLinear : kNearestMipmapLinear;
  }
  return kLinear;
}

uint32_t wrapMode(TextureWrap w) { return w == TextureWrap::Clamp ? kClampToEdge : w == TextureWrap::Mirror ? kMirroredRepeat : kRepeat; }

Json samplerJson(const Sampler& s) {
  return Json{{"magFilter", s.magnify == TextureFilter::Linear ? kLinear : kNearest},
              {"minFilter", minifyFilter(s)},
              {"wrapS", wrapMode(s.wrapU)},
              {"wrapT", wrapMode(s.wrapV)}};
}

// The index of `sampler` among the document's samplers, added if new.
uint32_t samplerIndex(Document& doc, Json sampler) {
  for (size_t i = 0; i < doc.samplers.size(); ++i)
    if (doc.samplers[i] == sampler) return static_cast<uint32_t>(i);
  doc.samplers.push_back(std::move(sampler));
  return static_cast<uint32_t>(doc.samplers.size() - 1);
}

}  // namespace

Status addTextures(Document& doc, const Rig& rig, const GltfOptions& options) {
  // All encoded first (on options.imageThreads), then added in the rig's order.
  std::vector<const ImageLevel*> levels;
  for (const Texture& t : rig.textures) levels.push_back(&t.image.levels.front());
  std::vector<Result<std::vector<uint8_t>>> pngs = image::encodePngs(levels, options.png, options.imageThreads);
  for (size_t i = 0; i < rig.textures.size(); ++i) {
    const Texture& t = rig.textures[i];
    if (!pngs[i]) return pngs[i].error();
    const uint32_t view = doc.buffer.copyView(*pngs[i]);
    Json image{{"bufferView", view}, {"mimeType", "image/png"}};
    if (!t.name.empty()) image["name"] = t.name;
    doc.images.push_back(std::move(image));
    Json texture{{"sampler", samplerIndex(doc, samplerJson(t.sampler))}, {"source", doc.images.size() - 1}};
    if (!t.name.empty()) texture["name"] = t.name;
    doc.textures.push_back(std::move(texture));
  }
  return Ok{};
}

}  // namespace rigport::gltf
