#include "formats/renderware/material_list.hpp"

#include <fmt/format.h>

namespace rigport::renderware {
namespace {

constexpr uint32_t kSurfacePropsAfter = 0x30400;  // librw Material::streamRead

// Texture 0x06: Struct (filtering and addressing), String name, String mask, Extension.
Status readTexture(ByteReader& r, RwMaterial& material) {
  RP_CHECK(readChunk(r, kStruct, "Struct"));
  RP_ASSIGN(ByteReader name, readChunk(r, kString, "name"));
  RP_ASSIGN(material.texture, name.fixedString(name.size(), "name"));
  RP_ASSIGN(ByteReader mask, readChunk(r, kString, "mask"));
  RP_ASSIGN(material.mask, mask.fixedString(mask.size(), "mask"));
  return Ok{};
}

Result<RwMaterial> readMaterial(ByteReader& r) {
  RwMaterial material;
  RP_ASSIGN(ByteReader st, readChunk(r, kStruct, "Struct"));
  RP_CHECK(st.u32("flags"));
  for (uint8_t& c : material.colour) { RP_ASSIGN(c, st.u8("colour")); }
  RP_CHECK(st.u32("unused"));
  RP_ASSIGN(const uint32_t textured, st.u32("textured"));
  // Surface properties follow in newer files; nothing of them reaches a rig.
  if (textured != 0) {
    RP_ASSIGN(ByteReader tex, readChunk(r, kTexture, "Texture"));
    auto scope = tex.scope("Texture");
    RP_CHECK(readTexture(tex, material));
  }
  return material;
}

}  // namespace

Result<std::vector<RwMaterial>> readMaterialList(ByteReader& r) {
  RP_ASSIGN(ByteReader st, readChunk(r, kStruct, "Struct"));
  RP_ASSIGN(const uint32_t numMaterials, st.u32("numMaterials"));
  RP_ASSIGN(const size_t n, st.count(numMaterials, 4, "index"));
  std::vector<int32_t> index(n);
  for (size_t i = 0; i < n; ++i) { RP_ASSIGN(index[i], st.s32(Field("index", static_cast<int64_t>(i)))); }
  std::vector<RwMaterial> materials;
  materials.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (index[i] < 0) {
      RP_ASSIGN(ByteReader m, readChunk(r, kMaterial, Field("Material", static_cast<int64_t>(i))));
      auto scope = m.scope(Field("Material", static_cast<int64_t>(i)));
      RP_ASSIGN(materials.emplace_back(), readMaterial(m));
    } else if (static_cast<size_t>(index[i]) < i) {
      materials.push_back(materials[static_cast<size_t>(index[i])]);
    } else {
      return st.errorAt(4 + 4 * i, ErrorCode::BadValue,
                        fmt::format("material {} instances material {}, which does not precede it", i, index[i]),
                        Field("index", static_cast<int64_t>(i)));
    }
  }
  return materials;
}

void writeMaterialList(ByteWriter& w, const std::vector<RwMaterial>& materials, uint32_t version, uint32_t libraryId) {
  const std::vector<RwMaterial> list = materials.empty() ? std::vector<RwMaterial>(1) : materials;
  const size_t at = beginChunk(w, kMaterialList, libraryId);
  const size_t st = beginChunk(w, kStruct, libraryId);
  w.u32(static_cast<uint32_t>(list.size()));
  for (size_t i = 0; i < list.size(); ++i) w.s32(-1);
  endChunk(w, st);
  for (const RwMaterial& m : list) {
    const size_t mat = beginChunk(w, kMaterial, libraryId);
    const size_t mst = beginChunk(w, kStruct, libraryId);
    w.u32(0);
    for (uint8_t c : m.colour) w.u8(c);
    w.u32(0);
    w.u32(m.texture.empty() ? 0 : 1);
    if (version > kSurfacePropsAfter) {
      for (int i = 0; i < 3; ++i) w.f32(1.0f);  // ambient, specular, diffuse
    }
    endChunk(w, mst);
    if (!m.texture.empty()) {
      const size_t tex = beginChunk(w, kTexture, libraryId);
      const size_t tst = beginChunk(w, kStruct, libraryId);
      w.u32(0x1106);  // filter 6 (linear, mip-mapped linear), addressing 1 (wrap) in u and v; never read back
      endChunk(w, tst);
      for (const std::string* s : {&m.texture, &m.mask}) {
        const size_t str = beginChunk(w, kString, libraryId);
        // NUL-terminated and padded to 4 bytes, as librw writes strings.
        const size_t padded = (s->size() + 4) & ~size_t{3};
        for (size_t i = 0; i < padded; ++i) w.u8(i < s->size() ? static_cast<uint8_t>((*s)[i]) : 0);
        endChunk(w, str);
      }
      endChunk(w, beginChunk(w, kExtension, libraryId));
      endChunk(w, tex);
    }
    endChunk(w, beginChunk(w, kExtension, libraryId));
    endChunk(w, mat);
  }
  endChunk(w, at);
}

}  // namespace rigport::renderware
