// Materials (issue 13, "black model in three.js"): the DFF material list becomes rig materials
// (linear colour from the file's 8-bit sRGB, texture names) and mesh parts from the triangles'
// material ids; the writer writes them back; the glTF has one material per source material with
// metallic 0 and roughness 1 and one primitive per part sharing the vertex accessors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "demo/character.hpp"
#include "export/gltf.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/renderware/rw_materials.hpp"
#include "support/gltf_validator.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

// sRGB byte to linear (IEC 61966-2-1), written out here independently of the reader.
double linear(uint8_t byte) {
  const double s = byte / 255.0;
  return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
}

// The demo character with two materials: its first half of triangles textured and red, the rest
// blue and untextured.
Rig twoMaterialCharacter() {
  Rig rig = makeDemoCharacter();
  Material skin;
  skin.name = "ped_skin";
  skin.baseColor = {0.8f, 0.1f, 0.1f, 1.0f};
  skin.textures = {"ped_skin"};
  skin.extras = {{"maskTexture", "ped_skin_a"}};
  Material cloth;
  cloth.name = "cloth";
  cloth.baseColor = {0.05f, 0.1f, 0.7f, 1.0f};
  rig.materials = {skin, cloth};
  Mesh& mesh = rig.meshes.at(0);
  const auto half = static_cast<uint32_t>(mesh.indices.size() / 6 * 3);
  mesh.parts = {MeshPart{0, 0, half}, MeshPart{1, half, static_cast<uint32_t>(mesh.indices.size()) - half}};
  return rig;
}

nlohmann::json exportJson(const Rig& rig, const std::string& name) {
  auto files = exportGltf(rig, name + ".bin");
  EXPECT_TRUE(files.ok()) << (files.ok() ? "" : files.error().describe());
  if (!files.ok()) return {};
  const std::string dir = test::scratchDir(name);
  std::ofstream(dir + "/" + name + ".gltf") << files->json;
  std::ofstream(dir + "/" + name + ".bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(files->bin.data()), static_cast<std::streamsize>(files->bin.size()));
  const test::ValidatorRun run = test::validateGltfFile(dir + "/" + name + ".gltf");
  EXPECT_TRUE(run.ok) << run.output;
  return nlohmann::json::parse(files->json);
}

TEST(RenderwareMaterial, SampleMaterialColourIsReadAsLinear) {
  const std::vector<uint8_t> bytes = test::readBytes(test::sample("renderware/synthetic_skin_rw36003.dff"));
  auto rig = renderware::readDff(bytes);
  ASSERT_TRUE(rig.ok()) << rig.error().describe();
  ASSERT_EQ(rig->materials.size(), 1u);
  ASSERT_EQ(rig->meshes.at(0).parts.size(), 1u);
  EXPECT_EQ(rig->meshes[0].parts[0].indexCount, rig->meshes[0].indices.size());
  // The sample's one material is (200, 180, 160, 255); the file must hold those bytes.
  const uint8_t rgba[] = {200, 180, 160, 255};
  ASSERT_NE(std::search(bytes.begin(), bytes.end(), rgba, rgba + 4), bytes.end());
  const glm::vec4& c = rig->materials[0].baseColor;
  EXPECT_NEAR(c.r, linear(200), 1e-6);
  EXPECT_NEAR(c.g, linear(180), 1e-6);
  EXPECT_NEAR(c.b, linear(160), 1e-6);
  EXPECT_EQ(c.a, 1.0f);
  EXPECT_TRUE(rig->materials[0].textures.empty());
}

TEST(RenderwareMaterial, MaterialsAndPartsSurviveTheDffWriter) {
  const Rig rig = twoMaterialCharacter();
  auto bytes = renderware::writeDff(rig);
  ASSERT_TRUE(bytes.ok()) << bytes.error().describe();
  auto back = renderware::readDff(*bytes);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  ASSERT_EQ(back->materials.size(), 2u);
  for (size_t m = 0; m < 2; ++m) {
    EXPECT_EQ(back->materials[m].textures, rig.materials[m].textures) << m;
    // 8-bit sRGB keeps a linear value within half a byte step: below 0.005 in linear terms.
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(back->materials[m].baseColor[k], rig.materials[m].baseColor[k], 5e-3) << m << "," << k;
  }
  EXPECT_EQ(back->materials[0].name, "ped_skin");
  EXPECT_EQ(back->materials[0].extras["maskTexture"], "ped_skin_a");
  const Mesh& a = rig.meshes[0];
  const Mesh& b = back->meshes.at(0);
  EXPECT_EQ(b.indices, a.indices);
  ASSERT_EQ(b.parts.size(), a.parts.size());
  for (size_t p = 0; p < a.parts.size(); ++p) {
    EXPECT_EQ(b.parts[p].material, a.parts[p].material);
    EXPECT_EQ(b.parts[p].firstIndex, a.parts[p].firstIndex);
    EXPECT_EQ(b.parts[p].indexCount, a.parts[p].indexCount);
  }
}

TEST(RenderwareMaterial, GltfHasOneMaterialPerSourceMaterialAndOnePrimitivePerPart) {
  const Rig rig = twoMaterialCharacter();
  const nlohmann::json j = exportJson(rig, "materials");
  ASSERT_EQ(j["materials"].size(), 2u);
  for (size_t m = 0; m < 2; ++m) {
    const auto& pbr = j["materials"][m]["pbrMetallicRoughness"];
    EXPECT_EQ(pbr["metallicFactor"], 0.0);
    EXPECT_EQ(pbr["roughnessFactor"], 1.0);
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(pbr["baseColorFactor"][k].get<double>(), rig.materials[m].baseColor[k], 1e-6);
  }
  EXPECT_EQ(j["materials"][0]["extras"]["textures"], nlohmann::json::array({"ped_skin"}));
  EXPECT_EQ(j["materials"][0]["extras"]["maskTexture"], "ped_skin_a");
  const auto& primitives = j["meshes"][0]["primitives"];
  ASSERT_EQ(primitives.size(), 2u);
  for (size_t p = 0; p < 2; ++p) {
    EXPECT_EQ(primitives[p]["material"], p);
    EXPECT_EQ(primitives[p]["attributes"], primitives[0]["attributes"]) << "parts share the vertex accessors";
    EXPECT_EQ(j["accessors"][primitives[p]["indices"].get<size_t>()]["count"], rig.meshes[0].parts[p].indexCount);
  }
}

TEST(RenderwareMaterial, MeshWithoutPartsGetsANonMetallicDefaultMaterial) {
  const Rig rig = makeDemoCharacter();
  ASSERT_TRUE(rig.materials.empty());
  const nlohmann::json j = exportJson(rig, "default_material");
  ASSERT_EQ(j["materials"].size(), 1u);
  EXPECT_EQ(j["meshes"][0]["primitives"][0]["material"], 0);
  EXPECT_EQ(j["materials"][0]["pbrMetallicRoughness"]["metallicFactor"], 0.0);
  EXPECT_EQ(j["materials"][0]["pbrMetallicRoughness"]["roughnessFactor"], 1.0);
}

}  // namespace

// A file whose triangles alternate between materials: each part gathers its own triangles, in
// file order, and no triangle is lost or duplicated.
TEST(RenderwareMaterial, InterleavedMaterialIdsAreGroupedStably) {
  renderware::RwGeometry geo;
  geo.materials.resize(3);
  geo.triangleMaterials = {2, 0, 2, 1, 0, 7};  // 7: beyond the list, read as 0 with a warning
  Mesh mesh;
  mesh.name = "m";
  for (uint32_t t = 0; t < 6; ++t) mesh.indices.insert(mesh.indices.end(), {3 * t, 3 * t + 1, 3 * t + 2});
  Rig rig;
  renderware::addMeshMaterials(geo, 0, mesh, rig);
  ASSERT_EQ(rig.materials.size(), 3u);
  ASSERT_EQ(mesh.parts.size(), 3u);
  const std::vector<std::vector<uint32_t>> expected = {{1, 4, 5}, {3}, {0, 2}};  // source triangles per material
  for (uint32_t m = 0; m < 3; ++m) {
    const MeshPart& part = mesh.parts[m];
    EXPECT_EQ(part.material, m);
    ASSERT_EQ(part.indexCount, 3 * expected[m].size());
    for (size_t k = 0; k < expected[m].size(); ++k) EXPECT_EQ(mesh.indices[part.firstIndex + 3 * k], 3 * expected[m][k]) << m;
  }
  EXPECT_EQ(mesh.indices.size(), 18u);
  ASSERT_EQ(rig.provenance.warnings.size(), 1u);
  EXPECT_EQ(rig.provenance.warnings[0].code, "material-id");
}
