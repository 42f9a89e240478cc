// libFuzzer target for the RW4 arena reader (rw4_arena.md): any bytes → readArena returns an Asset
// or an Error; every rig read must survive export and the JSON report (downstream.hpp), and one the
// writer accepts must read back with the same bones (and, in Spore's mesh layout, the same meshes;
// with its materials, the same materials);
// every texture read (PS3 Texture, Spore Raster) must hold whole levels and encode as the PNG that
// `convert` writes. Each rig also goes through --base (writeArenaOnto): onto the arena it was read
// from it changes no byte; an edit is written or refused, never a crash, and the arena keeps its size.
// Seeds: tests/data/samples/rw4/*.psg, *.rw4 and tests/data/fuzz/rw4_arena/ (Spore's mesh objects, a
// Spore blend-shape mesh with its BlendShape and BlendFactor clip from rw4_spore_blend_shape_test,
// texture arenas of every format rw4_texture_test writes, a model with materials from rw4_material_test).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "downstream.hpp"
#include "formats/rw4/rw4.hpp"
#include "image/png.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto source = rigport::Source::fromBytes(std::vector<uint8_t>(data, data + size), "fuzz.psg");
  rigport::ReadContext ctx;
  auto asset = rigport::rw4::readArena(*source, ctx);
  if (!asset) return 0;
  for (const rigport::Texture& t : asset->textures) {
    for (const rigport::ImageLevel& l : t.image.levels) {
      if (l.rgba.size() != size_t{l.width} * l.height * 4) std::abort();
    }
    (void)rigport::image::encodePng(t.image.levels.front());
  }
  for (const rigport::Rig& rig : asset->rigs) {
    rigport::fuzz::exerciseDownstream(rig);
    {
      rigport::ReadContext same;
      auto onto = rigport::rw4::writeArenaOnto(rig, *source, same);
      if (!onto || onto->size() != size || !std::equal(onto->begin(), onto->end(), data)) std::abort();
      rigport::Rig edited = rig;
      if (!edited.skeleton.bones.empty()) edited.skeleton.bones[0].inverseBind = glm::mat4(0.8f);
      for (rigport::Mesh& m : edited.meshes) {
        if (!m.positions.empty()) m.positions[0] += glm::vec3(0.01f);
        if (m.skinned() && m.influenceOffsets[1] > m.influenceOffsets[0]) m.influences[m.influenceOffsets[0]].weight *= 0.5f;
      }
      rigport::ReadContext again;
      auto written = rigport::rw4::writeArenaOnto(edited, *source, again);
      if (written && written->size() != size) std::abort();
    }
    auto bytes = rigport::rw4::writeArena(rig);
    if (!bytes) continue;  // refused: what an arena cannot hold (no bones, unprintable names, ...)
    const auto again = rigport::Source::fromBytes(std::move(*bytes), "again.psg");
    rigport::ReadContext ctx2;
    auto back = rigport::rw4::readArena(*again, ctx2);
    if (!back || back->rigs.size() != 1) std::abort();  // our own output must read back
    if (back->rigs[0].skeleton.bones.size() != rig.skeleton.bones.size()) std::abort();
    // With its materials (docs/rw4_materials.md): the same materials read back.
    rigport::rw4::ArenaWriteOptions withMaterials;
    withMaterials.materials = true;
    auto materialBytes = rigport::rw4::writeArena(rig, withMaterials);
    if (!materialBytes) std::abort();  // the arena above was written: materials add no refusal
    const auto materialSource = rigport::Source::fromBytes(std::move(*materialBytes), "materials.psg");
    rigport::ReadContext ctx4;
    auto materialBack = rigport::rw4::readArena(*materialSource, ctx4);
    if (!materialBack || materialBack->rigs.size() != 1) std::abort();
    if (materialBack->rigs[0].materials.size() != rig.materials.size()) std::abort();
    // Spore's own mesh objects too (a PC arena's layout): what the writer accepts reads back with
    // the same bones and meshes.
    rigport::rw4::ArenaWriteOptions spore;
    spore.platform = rigport::rw4::Platform::Pc;
    spore.sporeMeshes = true;
    auto sporeBytes = rigport::rw4::writeArena(rig, spore);
    if (!sporeBytes) continue;
    const auto sporeSource = rigport::Source::fromBytes(std::move(*sporeBytes), "again.rw4");
    rigport::ReadContext ctx3;
    auto sporeBack = rigport::rw4::readArena(*sporeSource, ctx3);
    if (!sporeBack || sporeBack->rigs.size() != 1) std::abort();
    if (sporeBack->rigs[0].skeleton.bones.size() != rig.skeleton.bones.size()) std::abort();
    if (sporeBack->rigs[0].meshes.size() != rig.meshes.size()) std::abort();
  }
  return 0;
}
