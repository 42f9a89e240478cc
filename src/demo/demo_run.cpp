#include "demo/demo_run.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "core/assemble.hpp"
#include "core/axes.hpp"
#include "platform/files.hpp"
#include "platform/paths.hpp"
#include "core/validate.hpp"
#include "demo/character.hpp"
#include "export/gltf.hpp"
#include "formats/registry.hpp"

namespace rigport {
namespace {

std::string firstExtension(const FormatInfo& f) {
  const std::string_view exts = f.extensions;
  return std::string(exts.substr(0, exts.find(',')));
}

Error withFile(Error e, const std::string& file) {
  if (e.file.empty()) e.file = file;
  return e;
}

// What the format's reader gives back, as a rig comparable with `character`: the file's one rig, or
// for an animation-only format its clips assembled onto the character's skeleton (as `convert
// --skeleton` does), taken into the file's axes so the rig reports them (an .anm is Z up).
Result<Rig> readBack(const FormatInfo& format, std::vector<uint8_t> bytes, const std::string& file, const Rig& character) {
  const auto source = Source::fromBytes(std::move(bytes), file);
  ReadContext ctx;
  RP_ASSIGN(Asset asset, readAsset(*source, ctx, &format));
  Rig skeleton = character;
  skeleton.animations.clear();
  const bool clipsOnly = format.animationOnly();
  if (clipsOnly && !asset.clips.empty()) convertAxes(skeleton, asset.clips.front().provenance.axes);
  RP_ASSIGN(std::vector<AssembledRig> rigs, assemble(std::move(asset), {}, clipsOnly ? &skeleton : nullptr, {}));
  if (rigs.size() != 1) return invalidModel("", fmt::format("read back {} rigs, wrote one", rigs.size()));
  // A format that carries a skeleton but no meshes (a Sims 3 package: RIG + CLIPs) is compared on
  // what it carries: the rig read back wears the character's meshes, matched to its bones by name.
  if ((format.carries & kCarriesMesh) == 0 && (format.carries & kCarriesSkeleton) != 0) {
    Rig& rig = rigs.front().rig;
    rig.meshes = character.meshes;
    rig.materials = character.materials;
    for (Mesh& mesh : rig.meshes) {
      for (Influence& i : mesh.influences) {
        const int32_t bone = rig.skeleton.find(character.skeleton.bones.at(i.bone).name);
        if (bone < 0) return invalidModel("", fmt::format("bone '{}' was not read back", character.skeleton.bones.at(i.bone).name));
        i.bone = static_cast<uint32_t>(bone);
      }
    }
  }
  return std::move(rigs.front().rig);
}

DemoRow roundTrip(const Rig& character, const FormatInfo& format, const std::filesystem::path& dir) {
  DemoRow row;
  row.format = std::string(format.name);
  row.file = platform::spelledLike(dir / ("demo_character" + firstExtension(format)), dir.string()).string();
  auto bytes = format.write(character);
  if (!bytes) {
    row.failure = withFile(bytes.error(), row.file);
    return row;
  }
  row.bytes = bytes->size();
  if (auto written = platform::writeFileAtomic(row.file, *bytes); !written) {
    row.failure = withFile(written.error(), row.file);
    return row;
  }
  auto back = readBack(format, std::move(*bytes), row.file, character);
  if (!back) {
    row.failure = withFile(back.error(), row.file);
    return row;
  }
  Rig& rig = *back;
  rig.provenance.format = row.format;
  rig.provenance.file = row.file;
  row.bones = rig.skeleton.bones.size();
  row.vertices = rig.vertexCount();
  for (const Animation& a : rig.animations) row.keys += a.keyCount();
  for (const Warning& w : rig.provenance.warnings) row.warnings += w.count;

  const std::string glbPath = platform::spelledLike(dir / ("demo_character_" + row.format + ".glb"), dir.string()).string();
  auto glb = exportGlb(rig);
  if (!glb) {
    row.failure = withFile(glb.error(), glbPath);
    return row;
  }
  if (auto written = platform::writeFileAtomic(glbPath, *glb); !written) {
    row.failure = withFile(written.error(), glbPath);
    return row;
  }
  row.glb = glbPath;

  toGltfAxes(rig);
  // A model-only format (a DFF) brings back no animations: it is measured on what it carries.
  Rig expected = character;
  if (rig.animations.empty()) expected.animations.clear();
  auto error = compareRigs(expected, rig);
  if (!error) {
    row.failure = withFile(error.error(), row.file);
    return row;
  }
  row.error = std::move(*error);
  return row;
}

}  // namespace

std::vector<std::string> DemoReport::glbFiles() const {
  std::vector<std::string> out{characterGlb};
  for (const DemoRow& r : rows)
    if (!r.glb.empty()) out.push_back(r.glb);
  return out;
}

Result<DemoReport> runDemo(const std::string& dir) {
  const Rig character = makeDemoCharacter();
  RP_CHECK(validate(character));
  DemoReport report;
  report.characterGlb = platform::spelledLike(std::filesystem::path(dir) / "demo_character.glb", dir).string();
  auto glb = exportGlb(character);
  if (!glb) return withFile(glb.error(), report.characterGlb);
  RP_CHECK(platform::writeFileAtomic(report.characterGlb, *glb));
  for (const FormatInfo& format : formats()) {
    if (format.write != nullptr) report.rows.push_back(roundTrip(character, format, dir));
  }
  return report;
}

}  // namespace rigport
