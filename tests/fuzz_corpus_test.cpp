// Replays every saved fuzzer finding (tests/data/fuzz/<target>/) through the same path as the
// DFF fuzz target: read, export, JSON report, then the writer round trip, which must read back with
// the same bones. Each file once crashed or broke an invariant; this keeps them fixed without a
// fuzzer. (The .anm and IFP targets have no findings to replay yet.)
#include <gtest/gtest.h>

#include <filesystem>

#include "core/validate.hpp"
#include "../fuzz/downstream.hpp"
#include "formats/renderware/dff_io.hpp"
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
