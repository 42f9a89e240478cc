// Replays every saved fuzzer finding (tests/data/fuzz/<target>/) through the same path as the
// DFF fuzz target: read, export, JSON report, then the writer round trip, which must read back with
// the same bones. Each file once crashed or broke an invariant; this keeps them fixed without a
// fuzzer. The clip and RIG findings read, but held keys or rest poses glTF cannot carry: they must
// convert once repairRig() has mended them (fuzz/downstream.hpp asks that of every rig read).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "core/validate.hpp"
#include "../fuzz/downstream.hpp"
#include "core/bind.hpp"
#include "core/repair.hpp"
#include "formats/battleforge/drs_io.hpp"
#include "formats/renderware/anim_io.hpp"
#include "formats/renderware/dff_io.hpp"
#include "formats/sims3/sims3_io.hpp"
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

TEST(FuzzCorpus, ClipAndRigFindingsConvertOnceRepaired) {
  struct Finding {
    std::string target, repair;
    std::function<Result<Rig>(const std::vector<uint8_t>&)> read;
  };
  const std::vector<Finding> findings = {
      {"battleforge_ska", "repaired-key", [](const auto& b) { return rigOf(battleforge::readSka(b)); }},
      {"gta_ifp", "repaired-key", [](const auto& b) { return rigOf(renderware::readIfp(b)); }},
      {"renderware_anm", "repaired-key", [](const auto& b) { return rigOf(renderware::readAnm(b)); }},
      {"sims3", "repaired-bone", [](const auto& b) -> Result<Rig> {
         ReadContext ctx;
         return sims3::readRig(b, ctx);
       }},
  };
  for (const Finding& f : findings) {
    size_t read = 0;
    for (const std::string& path : corpus(f.target)) {
      SCOPED_TRACE(path);
      auto rig = f.read(test::readBytes(path));
      if (!rig) continue;  // the other findings of the target (a package, for sims3)
      ++read;
      Rig repaired = *rig;
      ASSERT_TRUE(repairRig(repaired));
      EXPECT_TRUE(warned(repaired, f.repair)) << "the finding holds the damage " << f.repair << " mends";
      const Status valid = validate(repaired);
      EXPECT_TRUE(valid) << valid.error().describe();
      const auto glb = exportGlb(repaired);
      EXPECT_TRUE(glb) << glb.error().describe();
      fuzz::exerciseDownstream(*rig);
    }
    EXPECT_GE(read, 1u) << f.target << ": the finding no longer reads";
  }
}
