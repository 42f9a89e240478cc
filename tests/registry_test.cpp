// The format registry: detection by magic first, the extension as tie-breaker and fallback, and
// loadFile()'s provenance, naming and error reporting.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "formats/registry.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

std::vector<uint8_t> rwSample(const std::string& name) { return test::readBytes(test::sample("renderware/" + name)); }

std::string writeTemp(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

}  // namespace

TEST(Registry, EveryFormatHasANameExtensionReaderAndUniqueName) {
  ASSERT_FALSE(formats().empty());
  for (const FormatInfo& f : formats()) {
    EXPECT_FALSE(f.name.empty());
    EXPECT_EQ(f.extensions.front(), '.') << f.name;
    EXPECT_NE(f.read, nullptr) << f.name;
    EXPECT_EQ(findFormat(f.name), &f);
  }
  EXPECT_EQ(findFormat("no-such-format"), nullptr);
}

TEST(Registry, MagicDecidesWhateverTheExtension) {
  const auto dff = rwSample("synthetic_skin_rw36003.dff");
  const auto anm = rwSample("synthetic_skin_rw36003.anm");
  const auto ifp = rwSample("synthetic_anims_anp3.ifp");
  EXPECT_EQ(detectFormat(dff, "x.dff")->name, "renderware-dff");
  EXPECT_EQ(detectFormat(dff, "renamed.bin")->name, "renderware-dff");
  EXPECT_EQ(detectFormat(anm, "clip.dff")->name, "renderware-anm") << "magic beats a misleading extension";
  EXPECT_EQ(detectFormat(ifp, "PED.IFP")->name, "gta-ifp");
}

TEST(Registry, ExtensionAloneRoutesUnrecognisedBytesToThatReader) {
  const std::vector<uint8_t> junk = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  EXPECT_EQ(detectFormat(junk, "broken.DFF")->name, "renderware-dff");
  EXPECT_EQ(detectFormat(junk, "broken.txt"), nullptr);
}

TEST(Registry, LoadFileFillsProvenanceAndNamesUnnamedClipsAfterTheFile) {
  const std::string dir = test::scratchDir("registry-load");
  const std::string path = writeTemp(dir, "walk.anm", rwSample("synthetic_skin_rw36003.anm"));
  auto rig = loadFile(path);
  ASSERT_TRUE(rig) << rig.error().describe();
  EXPECT_EQ(rig->provenance.format, "renderware-anm");
  EXPECT_EQ(rig->provenance.file, path);
  EXPECT_EQ(rig->name, "walk");
  ASSERT_EQ(rig->animations.size(), 1u);
  EXPECT_EQ(rig->animations[0].name, "walk");

  // Two chunks: "<stem>_0", "<stem>_1". IFP clips keep their own names.
  auto anm = rwSample("synthetic_skin_rw36003.anm");
  std::vector<uint8_t> twice = anm;
  twice.insert(twice.end(), anm.begin(), anm.end());
  auto two = loadFile(writeTemp(dir, "run.anm", twice));
  ASSERT_TRUE(two) << two.error().describe();
  ASSERT_EQ(two->animations.size(), 2u);
  EXPECT_EQ(two->animations[0].name, "run_0");
  EXPECT_EQ(two->animations[1].name, "run_1");
  auto ifp = loadFile(writeTemp(dir, "pack.ifp", rwSample("synthetic_anims_anpk.ifp")));
  ASSERT_TRUE(ifp);
  EXPECT_EQ(ifp->animations[0].name, "rot_only");
}

TEST(Registry, LoadFileErrorsNameTheFile) {
  const std::string dir = test::scratchDir("registry-errors");
  auto missing = loadFile(dir + "/absent.dff");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::Io);
  EXPECT_NE(missing.error().describe().find("absent.dff"), std::string::npos);

  const std::string text = writeTemp(dir, "notes.txt", {'h', 'e', 'l', 'l', 'o'});
  auto unknown = loadFile(text);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::Unsupported);
  EXPECT_NE(unknown.error().describe().find("notes.txt"), std::string::npos);

  auto dff = rwSample("synthetic_skin_rw36003.dff");
  dff.resize(dff.size() / 2);
  auto truncated = loadFile(writeTemp(dir, "half.dff", dff));
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().file, dir + "/half.dff");
  EXPECT_TRUE(truncated.error().offset.has_value());
}
