#include "formats/renderware/rw_materials.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

namespace rigport::renderware {
namespace {

// IEC 61966-2-1 transfer functions.
float toLinear(uint8_t c) {
  const float s = c / 255.0f;
  return s <= 0.04045f ? s / 12.92f : std::pow((s + 0.055f) / 1.055f, 2.4f);
}

uint8_t toSrgbByte(float linear) {
  const float l = std::clamp(std::isfinite(linear) ? linear : 0.0f, 0.0f, 1.0f);
  const float s = l <= 0.0031308f ? l * 12.92f : 1.055f * std::pow(l, 1.0f / 2.4f) - 0.055f;
  return static_cast<uint8_t>(std::lround(s * 255.0f));
}

// The end of the run of ids equal to ids[t] within [t, n): whole blocks are compared without an
// early exit, which vectorises (a mesh's triangles are mostly in a few long runs).
size_t runEnd(const uint16_t* ids, size_t t, size_t n) {
  constexpr size_t kBlock = 64;
  const uint16_t id = ids[t];
  while (t + kBlock <= n) {
    uint16_t differs = 0;
    for (size_t k = 0; k < kBlock; ++k) differs |= static_cast<uint16_t>(ids[t + k] ^ id);
    if (differs != 0) break;
    t += kBlock;
  }
  while (t < n && ids[t] == id) ++t;
  return t;
}

}  // namespace

Material toRigMaterial(const RwMaterial& m, const std::string& fallbackName) {
  Material out;
  out.name = m.texture.empty() ? fallbackName : m.texture;
  // Alpha is a coverage value, not a colour: it stays linear in the byte.
  out.baseColor = glm::vec4(toLinear(m.colour[0]), toLinear(m.colour[1]), toLinear(m.colour[2]), m.colour[3] / 255.0f);
  if (!m.texture.empty()) out.textures.push_back(m.texture);
  if (!m.mask.empty()) out.extras = {{"maskTexture", m.mask}};
  return out;
}

RwMaterial toRwMaterial(const Material& m) {
  RwMaterial out;
  out.colour = {toSrgbByte(m.baseColor.r), toSrgbByte(m.baseColor.g), toSrgbByte(m.baseColor.b),
                static_cast<uint8_t>(std::lround(std::clamp(m.baseColor.a, 0.0f, 1.0f) * 255.0f))};
  if (!m.textures.empty()) out.texture = m.textures.front();
  if (m.extras.is_object() && m.extras.contains("maskTexture") && m.extras["maskTexture"].is_string()) {
    out.mask = m.extras["maskTexture"].get<std::string>();
  }
  return out;
}

void addMeshMaterials(const RwGeometry& geo, size_t atomicIndex, Mesh& mesh, Rig& rig) {
  if (geo.materials.empty()) return;
  const auto base = static_cast<uint32_t>(rig.materials.size());
  for (size_t i = 0; i < geo.materials.size(); ++i) {
    rig.materials.push_back(toRigMaterial(geo.materials[i], fmt::format("{}_material_{}", mesh.name, i)));
  }
  const size_t triangles = mesh.indices.size() / 3;
  const size_t listed = std::min(triangles, geo.triangleMaterials.size());
  const size_t count = geo.materials.size();
  // A triangle's material: its id, or 0 when the id is out of range or the triangle has none.
  auto idOf = [&](size_t t) -> uint16_t {
    const uint16_t id = t < listed ? geo.triangleMaterials[t] : 0;
    return id < count ? id : 0;
  };
  // One pass over runs of equal ids: the parts of a list already grouped by material (the usual
  // case), and whether it is.
  size_t outOfRange = 0;
  bool grouped = true;
  auto addRun = [&](uint32_t material, size_t first, size_t length) {
    if (mesh.parts.empty() || mesh.parts.back().material != material) {
      grouped = grouped && (mesh.parts.empty() || material > mesh.parts.back().material);
      mesh.parts.push_back(MeshPart{material, static_cast<uint32_t>(3 * first), 0});
    }
    mesh.parts.back().indexCount += static_cast<uint32_t>(3 * length);
  };
  const uint16_t* ids = geo.triangleMaterials.data();
  for (size_t t = 0; t < listed;) {
    const uint16_t id = ids[t];
    const size_t end = runEnd(ids, t, listed);
    if (id >= count) outOfRange += end - t;
    addRun(base + (id < count ? id : 0u), t, end - t);
    t = end;
  }
  if (listed < triangles) addRun(base, listed, triangles - listed);  // triangles without an id: material 0
  if (outOfRange > 0) {
    rig.provenance.warn("material-id", fmt::format("atomic {}: {} triangle(s) name a material beyond the {} of the list; "
                                                   "material 0 is used", atomicIndex, outOfRange, geo.materials.size()));
  }
  if (grouped) return;
  // Interleaved: triangles grouped by material by one counting pass, keeping their order within a
  // material.
  std::vector<uint32_t> first(count + 1, 0);
  for (size_t t = 0; t < triangles; ++t) ++first[idOf(t) + 1u];
  for (size_t m = 1; m < first.size(); ++m) first[m] += first[m - 1];
  mesh.parts.clear();
  for (size_t m = 0; m < count; ++m) {
    if (first[m + 1] > first[m]) {
      mesh.parts.push_back(MeshPart{base + static_cast<uint32_t>(m), 3 * first[m], 3 * (first[m + 1] - first[m])});
    }
  }
  std::vector<uint32_t> regrouped(mesh.indices.size());
  for (size_t t = 0; t < triangles; ++t) {
    const uint32_t slot = first[idOf(t)]++;
    std::copy_n(mesh.indices.begin() + static_cast<std::ptrdiff_t>(3 * t), 3, regrouped.begin() + static_cast<std::ptrdiff_t>(3 * slot));
  }
  mesh.indices = std::move(regrouped);
}

void geometryMaterials(const Mesh& mesh, const Rig& rig, RwGeometry& geo) {
  std::vector<int64_t> local(rig.materials.size(), -1);
  geo.triangleMaterials.assign(mesh.indices.size() / 3, 0);
  for (const MeshPart& part : mesh.parts) {
    if (local[part.material] < 0) {
      local[part.material] = static_cast<int64_t>(geo.materials.size());
      geo.materials.push_back(toRwMaterial(rig.materials[part.material]));
    }
    for (uint32_t t = part.firstIndex / 3; t < (part.firstIndex + part.indexCount) / 3; ++t) {
      geo.triangleMaterials[t] = static_cast<uint16_t>(local[part.material]);
    }
  }
}

}  // namespace rigport::renderware
