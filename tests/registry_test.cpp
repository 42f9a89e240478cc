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

TEST(Registry, LoadAssetFillsProvenanceAndNamesUnnamedClipsAfterTheFile) {
  const std::string dir = test::scratchDir("registry-load");
  const std::string path = writeTemp(dir, "walk.anm", rwSample("synthetic_skin_rw36003.anm"));
  auto asset = loadAsset(path);
  ASSERT_TRUE(asset) << asset.error().describe();
  EXPECT_TRUE(asset->rigs.empty()) << ".anm carries no skeleton";
  ASSERT_EQ(asset->clips.size(), 1u);
  const ClipSet& clips = asset->clips[0];
  EXPECT_EQ(asset->provenance.format, "renderware-anm");
  EXPECT_EQ(clips.provenance.format, "renderware-anm");
  EXPECT_EQ(clips.provenance.file, path);
  EXPECT_EQ(clips.name, "walk");
  ASSERT_EQ(clips.animations.size(), 1u);
  EXPECT_EQ(clips.animations[0].name, "walk");

  // Two chunks: "<stem>_0", "<stem>_1". IFP clips keep their own names.
  auto anm = rwSample("synthetic_skin_rw36003.anm");
  std::vector<uint8_t> twice = anm;
  twice.insert(twice.end(), anm.begin(), anm.end());
  auto two = loadAsset(writeTemp(dir, "run.anm", twice));
  ASSERT_TRUE(two) << two.error().describe();
  ASSERT_EQ(two->clips.at(0).animations.size(), 2u);
  EXPECT_EQ(two->clips[0].animations[0].name, "run_0");
  EXPECT_EQ(two->clips[0].animations[1].name, "run_1");
  auto ifp = loadAsset(writeTemp(dir, "pack.ifp", rwSample("synthetic_anims_anpk.ifp")));
  ASSERT_TRUE(ifp);
  EXPECT_EQ(ifp->clips.at(0).animations.at(0).name, "rot_only");

  auto dff = loadAsset(writeTemp(dir, "ped.dff", rwSample("synthetic_skin_rw36003.dff")));
  ASSERT_TRUE(dff) << dff.error().describe();
  ASSERT_EQ(dff->rigs.size(), 1u);
  EXPECT_TRUE(dff->clips.empty());
  EXPECT_EQ(dff->rigs[0].provenance.format, "renderware-dff");
}

TEST(Registry, ListNamesTheItemsOfAFile) {
  const std::string dir = test::scratchDir("registry-list");
  auto ifp = listItems(writeTemp(dir, "pack.ifp", rwSample("synthetic_anims_anp3.ifp")));
  ASSERT_TRUE(ifp) << ifp.error().describe();
  ASSERT_EQ(ifp->size(), 2u);
  EXPECT_EQ((*ifp)[0].kind, "clip");
  EXPECT_EQ((*ifp)[0].name, "walk_c");
  EXPECT_EQ((*ifp)[1].name, "wave_c");
  EXPECT_EQ((*ifp)[1].id, "1");
  const auto dffBytes = rwSample("synthetic_skin_rw36003.dff");
  auto dff = listItems(writeTemp(dir, "ped.dff", dffBytes));
  ASSERT_TRUE(dff) << dff.error().describe();
  ASSERT_EQ(dff->size(), 1u);
  EXPECT_EQ((*dff)[0].kind, "rig");
  EXPECT_EQ((*dff)[0].name, "ped");
  EXPECT_EQ((*dff)[0].bytes, dffBytes.size());
}

TEST(Registry, CarriesSaysWhatEachFormatHolds) {
  const FormatInfo* dff = findFormat("renderware-dff");
  const FormatInfo* anm = findFormat("renderware-anm");
  ASSERT_NE(dff, nullptr);
  ASSERT_NE(anm, nullptr);
  EXPECT_EQ(carriesText(dff->carries), "skeleton, skin, meshes");
  EXPECT_FALSE(dff->animationOnly());
  EXPECT_EQ(carriesText(anm->carries), "animations");
  EXPECT_TRUE(anm->animationOnly());
  for (const FormatInfo& f : formats()) EXPECT_NE(f.list, nullptr) << f.name;
}

TEST(Registry, LoadAssetErrorsNameTheFile) {
  const std::string dir = test::scratchDir("registry-errors");
  auto missing = loadAsset(dir + "/absent.dff");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::Io);
  EXPECT_NE(missing.error().describe().find("absent.dff"), std::string::npos);

  const std::string text = writeTemp(dir, "notes.txt", {'h', 'e', 'l', 'l', 'o'});
  auto unknown = loadAsset(text);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::Unsupported);
  EXPECT_NE(unknown.error().describe().find("notes.txt"), std::string::npos);

  auto dff = rwSample("synthetic_skin_rw36003.dff");
  dff.resize(dff.size() / 2);
  auto truncated = loadAsset(writeTemp(dir, "half.dff", dff));
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().file, dir + "/half.dff");
  EXPECT_TRUE(truncated.error().offset.has_value());

  // A text file named .dff: the reader's error keeps its offset although the message prints hex.
  auto named = loadAsset(writeTemp(dir, "hello.dff", {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '!', '!'}));
  ASSERT_FALSE(named);
  const std::string text2 = named.error().describe();
  EXPECT_NE(text2.find("0x6C6C6568"), std::string::npos) << text2;
  EXPECT_NE(text2.find("(at 0x0)"), std::string::npos) << text2;
}
