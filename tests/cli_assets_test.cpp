// The command line over the reader seam: items and clips of a package, --clip, --item, --skeleton
// for clips given alone, --anim that never swallows the model, positional binding refused across
// node counts, -o FILE, -v, --memory-limit, and convert --json with structured errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "platform/files.hpp"
#include "demo/character.hpp"
#include "formats/registry.hpp"
#include "support/gltf_pose.hpp"
#include "support/gltf_validator.hpp"
#include "support/ifp_builder.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using test::CliRun;
namespace fs = std::filesystem;

namespace {

std::string rw(const std::string& name) { return test::sample("renderware/" + name); }

std::vector<std::string> animationNames(const tinygltf::Model& gltf) {
  std::vector<std::string> names;
  for (const auto& a : gltf.animations) names.push_back(a.name);
  return names;
}

// The demo character written as DFF: 27 joints, unlike the 6 HAnim nodes of the .anm sample.
std::string demoDff(const std::string& dir) {
  const std::string path = dir + "/character.dff";
  auto bytes = findFormat("renderware-dff")->write(makeDemoCharacter());
  EXPECT_TRUE(bytes) << bytes.error().describe();
  EXPECT_TRUE(platform::writeFileAtomic(path, *bytes).ok());
  return path;
}

}  // namespace

TEST(CliAssets, InfoListsTheClipsOfAnIfpPackage) {
  const CliRun r = test::runCli("info " + test::quote(rw("synthetic_anims_anp3.ifp")));
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("items           2"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("walk_c"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("wave_c"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("bones"), std::string::npos) << "an animation file shows clips, not an empty skeleton\n" << r.text;

  const CliRun j = test::runCli("info --json " + test::quote(rw("synthetic_anims_anp3.ifp")), test::Capture::StdoutOnly);
  ASSERT_EQ(j.code, 0);
  const auto json = nlohmann::json::parse(j.text);
  ASSERT_EQ(json[0]["items"].size(), 2u);
  EXPECT_EQ(json[0]["items"][1]["name"], "wave_c");
  ASSERT_EQ(json[0]["clipSets"].size(), 1u);
  EXPECT_EQ(json[0]["clipSets"][0]["animations"].size(), 2u);
}

TEST(CliAssets, SkeletonBindsAnIfpGivenAloneAndClipPicksOne) {
  const std::string dir = test::scratchDir("cli-assets-skeleton");
  const std::string out = dir + "/wave.glb";
  const CliRun r = test::runCli("convert " + test::quote(rw("synthetic_anims_anp3.ifp")) + " --skeleton " + test::quote(rw("synthetic_skin_rw36003.dff")) +
                       " --clip wave_c -o " + test::quote(out) + " -v");
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("wrote " + out), std::string::npos) << r.text;
  const tinygltf::Model gltf = test::loadGlbModel(out);
  EXPECT_EQ(animationNames(gltf), std::vector<std::string>{"wave_c"});
  EXPECT_EQ(gltf.skins.size(), 1u);
  EXPECT_FALSE(gltf.meshes.empty()) << "the skeleton file's mesh comes along";
  const auto v = test::validateGltfFile(out);
  EXPECT_TRUE(v.ok) << v.output;

  const CliRun missing = test::runCli("convert " + test::quote(rw("synthetic_anims_anp3.ifp")) + " --skeleton " + test::quote(rw("synthetic_skin_rw36003.dff")) +
                             " --clip swim -o " + test::quote(dir));
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.text.find("no clip named swim"), std::string::npos) << missing.text;
}

TEST(CliAssets, AnimNeverSwallowsTheModelArgument) {
  const std::string dir = test::scratchDir("cli-assets-order");
  const CliRun r = test::runCli("convert --anim " + test::quote(rw("synthetic_skin_rw36003.anm")) + " " + test::quote(rw("synthetic_skin_rw36003.dff")) + " -o " + test::quote(dir));
  ASSERT_EQ(r.code, 0) << r.text;
  const tinygltf::Model gltf = test::loadGlbModel(dir + "/synthetic_skin_rw36003.glb");
  EXPECT_EQ(gltf.animations.size(), 1u);
}

// A 6-node .anm onto the 27-joint demo character: bound by position it would drive unrelated
// bones, so it fails naming both counts, unless --bind-by-position.
TEST(CliAssets, PositionalClipOntoAnotherNodeCountIsRefusedUnlessForced) {
  const std::string dir = test::scratchDir("cli-assets-position");
  const std::string model = demoDff(dir);
  const CliRun refused = test::runCli("convert " + test::quote(model) + " --anim " + test::quote(rw("synthetic_skin_rw36003.anm")) + " -o " + test::quote(dir + "/out"));
  EXPECT_EQ(refused.code, 1) << refused.text;
  EXPECT_NE(refused.text.find("made for 6 nodes"), std::string::npos) << refused.text;
  EXPECT_NE(refused.text.find("27 joints"), std::string::npos) << refused.text;
  EXPECT_FALSE(fs::exists(dir + "/out/character.glb"));

  const CliRun forced = test::runCli("convert " + test::quote(model) + " --anim " + test::quote(rw("synthetic_skin_rw36003.anm")) + " --bind-by-position -o " +
                            test::quote(dir + "/out") + " -v");
  EXPECT_EQ(forced.code, 0) << forced.text;
  EXPECT_NE(forced.text.find("6 of 6 tracks of 1 clip bound"), std::string::npos) << forced.text;
}

TEST(CliAssets, ConvertJsonSummarisesWrittenFilesAndStructuredErrors) {
  const std::string dir = test::scratchDir("cli-assets-json");
  auto bytes = test::readBytes(rw("synthetic_skin_rw36003.dff"));
  bytes.resize(bytes.size() / 2);
  const std::string half = dir + "/half.dff";
  ASSERT_TRUE(platform::writeFileAtomic(half, bytes).ok());
  const CliRun r = test::runCli("convert --json -o " + test::quote(dir) + " " + test::quote(rw("synthetic_skin_rw36003.dff")) + " " + test::quote(half), test::Capture::StdoutOnly);
  EXPECT_EQ(r.code, 1);
  const auto j = nlohmann::json::parse(r.text, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.text;
  EXPECT_EQ(j["converted"], 1);
  EXPECT_EQ(j["failed"], 1);
  ASSERT_EQ(j["files"].size(), 2u);
  // As paths: the folder given is spelt with `\` on Windows (a temporary folder), and the file
  // written in it is joined with `\` too.
  EXPECT_EQ(fs::path(j["files"][0]["written"][0].get<std::string>()), fs::path(dir) / "synthetic_skin_rw36003.glb");
  EXPECT_TRUE(j["files"][0]["error"].is_null());
  const auto& e = j["files"][1]["error"];
  EXPECT_EQ(e["code"], "truncated");
  EXPECT_EQ(e["file"], half);
  ASSERT_FALSE(e["trail"].empty());
  EXPECT_TRUE(e["trail"].back()["offset"].is_number()) << e.dump();
  EXPECT_FALSE(e["trail"].back()["where"].get<std::string>().empty());
}

TEST(CliAssets, MemoryLimitIsAReadableErrorNamingTheField) {
  const CliRun r = test::runCli("info --memory-limit 64 " + test::quote(rw("synthetic_skin_rw36003.dff")));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.text.find("budget"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("(at 0x"), std::string::npos) << r.text;
}

TEST(CliAssets, AnErrorInAnAnimFileSaysItIsTheAnimFile) {
  const std::string dir = test::scratchDir("cli-assets-animerr");
  auto bytes = test::readBytes(rw("synthetic_skin_rw36003.anm"));
  bytes.resize(40);
  const std::string bad = dir + "/bad.anm";
  ASSERT_TRUE(platform::writeFileAtomic(bad, bytes).ok());
  const CliRun r = test::runCli("convert " + test::quote(rw("synthetic_skin_rw36003.dff")) + " --anim " + test::quote(bad) + " -o " + test::quote(dir));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.text.find(bad + ": --anim > "), std::string::npos) << r.text;
}

// Long clip names widen the name column; the numbers stay under their headings.
TEST(CliAssets, InfoColumnsStayAlignedWithLongClipNames) {
  const std::string dir = test::scratchDir("cli-assets-columns");
  const std::string longName = "a_clip_name_much_longer";  // ANP3 names hold 23 characters
  const std::string path = dir + "/long.ifp";
  ASSERT_TRUE(platform::writeFileAtomic(path, test::buildAnp3("pack", {{longName, {{"Root", -1, {0, 30}}}}, {"idle", {{"Root", -1, {0}}}}})).ok());
  const CliRun r = test::runCli("info " + test::quote(path), test::Capture::StdoutOnly);
  ASSERT_EQ(r.code, 0) << r.text;
  std::vector<std::string> lines;
  for (size_t at = 0, next; at < r.text.size(); at = next + 1) {
    next = r.text.find('\n', at);
    if (next == std::string::npos) next = r.text.size();
    lines.push_back(r.text.substr(at, next - at));
  }
  const auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.find("seconds") != std::string::npos; });
  ASSERT_NE(header, lines.end()) << r.text;
  const size_t secondsEnd = header->find("seconds") + std::string("seconds").size();
  size_t rows = 0;
  for (const std::string& l : lines) {
    // Clip rows start with the name; the items table above starts its rows with the item id.
    if (l.rfind("    " + longName, 0) != 0 && l.rfind("    idle ", 0) != 0) continue;
    ++rows;
    ASSERT_GT(l.size(), secondsEnd) << l;
    EXPECT_NE(l[secondsEnd - 1], ' ') << "a number ends under 'seconds':\n" << *header << "\n" << l;
    EXPECT_EQ(l[secondsEnd], ' ') << *header << "\n" << l;
  }
  EXPECT_EQ(rows, 2u) << r.text;
}

// A device is refused at once, naming what it is: /dev/zero was buffered up to the memory limit
// (1 GiB, 2.7 s) before it was refused (issue 25).
TEST(CliAssets, ADeviceIsRefusedAtOnceNamingWhatItIs) {
  const CliRun r = test::runCli("info /dev/zero");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.text.find("/dev/zero: is a character device; rigport reads regular files"), std::string::npos) << r.text;
}
