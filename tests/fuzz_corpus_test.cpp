// Replays every saved fuzzer finding (tests/data/fuzz/<target>/) through the same path as the
// DFF fuzz target: read, export, JSON report, then the writer round trip, which must read back with
// the same bones. Each file once crashed or broke an invariant; this keeps them fixed without a
// fuzzer. The findings listed in FindingsThatReadConvertOnceRepaired read, but held keys, rest
// poses or skins glTF cannot carry: they must convert once repairRig() has mended them
// (fuzz/downstream.hpp asks that of every rig read).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "core/validate.hpp"
#include "../fuzz/downstream.hpp"
#include "core/bind.hpp"
#include "core/repair.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/sluggers/sluggers.hpp"
#include "formats/sims3/sims3.hpp"
#include "support/test_support.hpp"

using namespace rigport;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> corpus(const std::string& target) {
  std::vector<std::string> files;
  const fs::path dir = fs::path(RIGPORT_SOURCE_DIR) / "tests/data/fuzz" / target;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST(FuzzCorpus, DffFindingsReadExportAndRoundTrip) {
  const auto files = corpus("renderware_dff");
  ASSERT_FALSE(files.empty()) << "the DFF corpus holds at least the id-overflow finding";
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    auto rig = renderware::readDff(test::readBytes(path));
    if (!rig) continue;
    const Status valid = validate(*rig);  // the reader checks only its meshes' structure
    EXPECT_TRUE(valid) << valid.error().describe();
    fuzz::exerciseDownstream(*rig);
    auto bytes = renderware::writeDff(*rig);
    if (!bytes) continue;
    auto again = renderware::readDff(*bytes);
    ASSERT_TRUE(again) << again.error().describe();
    EXPECT_EQ(again->skeleton.bones.size(), rig->skeleton.bones.size());
  }
}

namespace {

// The rig `convert` would export: clips bound onto the fuzz targets' fixed skeleton, as they do.
Result<Rig> rigOf(Result<ClipSet> clips) {
  if (!clips) return clips.error();
  Rig bound = fuzz::sampleSkeleton();
  RP_CHECK(bindAnimations(bound, clips->animations, BindOptions{.positionAcrossCounts = true}));
  return bound;
}

bool warned(const Rig& rig, const std::string& code) {
  return std::any_of(rig.provenance.warnings.begin(), rig.provenance.warnings.end(), [&](const Warning& w) { return w.code == code; });
}

}  // namespace

TEST(FuzzCorpus, FindingsThatReadConvertOnceRepaired) {
  struct Finding {
    std::string file, repair;
    std::function<Result<Rig>(const std::vector<uint8_t>&)> read;
  };
  auto sims3Rig = [](const std::vector<uint8_t>& b) -> Result<Rig> {
    ReadContext ctx;
    return sims3::readRig(b, ctx);
  };
  auto dff = [](const std::vector<uint8_t>& b) { return renderware::readDff(b); };
  const std::vector<Finding> findings = {
      {"battleforge_ska/key-time-not-finite.ska", "repaired-key", [](const auto& b) { return rigOf(battleforge::readSka(b)); }},
      {"gta_ifp/key-not-finite.ifp", "repaired-key", [](const auto& b) { return rigOf(renderware::readIfp(b)); }},
      {"renderware_anm/key-not-finite.anm", "repaired-key", [](const auto& b) { return rigOf(renderware::readAnm(b)); }},
      {"renderware_anm/rotation-beyond-float-range.anm", "repaired-key", [](const auto& b) { return rigOf(renderware::readAnm(b)); }},
      {"renderware_anm/shift-beyond-float-range.anm", "repaired-key", [](const auto& b) { return rigOf(renderware::readAnm(b)); }},
      {"sims3/rig-rotation-nan.rig", "repaired-bone", sims3Rig},
      {"renderware_dff/joint-bind-pose-not-invertible.dff", "repaired-bone", dff},
      {"renderware_dff/bind-pose-inverse-overflows-float.dff", "", dff},  // derived in double: nothing to repair
      {"battleforge_drs/empty-skin-without-bones.drs", "repaired-skin", [](const auto& b) { return battleforge::readDrs(b); }},
      {"sluggers_model/empty-skin-without-bones.sluggers", "repaired-skin", [](const auto& b) { return sluggers::readModel(b); }},
  };
  for (const Finding& f : findings) {
    SCOPED_TRACE(f.file);
    const auto rig = f.read(test::readBytes((fs::path(RIGPORT_SOURCE_DIR) / "tests/data/fuzz" / f.file).string()));
    ASSERT_TRUE(rig) << rig.error().describe();
    Rig repaired = *rig;
    ASSERT_TRUE(repairRig(repaired));
    if (!f.repair.empty()) EXPECT_TRUE(warned(repaired, f.repair)) << "the finding holds the damage " << f.repair << " mends";
    const Status valid = validate(repaired);
    EXPECT_TRUE(valid) << valid.error().describe();
    const auto glb = exportGlb(repaired);
    EXPECT_TRUE(glb) << glb.error().describe();
    fuzz::exerciseDownstream(*rig);
  }
}
