// The rigport binary (RIGPORT_CLI) as a user meets it: help and version, the formats table, one-line
// errors naming the bad file with nothing left behind, batch conversion that goes on past a bad
// file, the exit codes, and JSON output that parses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "platform/files.hpp"
#include "demo/character.hpp"
#include "formats/registry.hpp"
#include "support/gltf_validator.hpp"
#include "support/stub_program.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using test::Capture;
using test::CliRun;
using test::quote;
namespace fs = std::filesystem;

namespace {

// Bytes that no reader accepts: a fixed pseudo-random pattern that cannot start with a chunk id.
std::string writeGarbage(const std::string& dir, const std::string& name) {
  std::vector<uint8_t> bytes(512);
  uint32_t x = 0x12345678u;
  for (uint8_t& b : bytes) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(x >> 24);
  }
  bytes[0] = 0xFF;
  const std::string path = dir + "/" + name;
  EXPECT_TRUE(platform::writeFileAtomic(path, bytes).ok()) << path;
  return path;
}

// A model file written by the registry's own writer for `format` from the demo character.
std::string writeWithRegistry(const std::string& format, const std::string& path) {
  const FormatInfo* f = findFormat(format);
  if (f == nullptr || f->write == nullptr) return {};
  auto bytes = f->write(makeDemoCharacter());
  if (!bytes) {
    ADD_FAILURE() << format << " writer: " << bytes.error().describe();
    return {};
  }
  EXPECT_TRUE(platform::writeFileAtomic(path, *bytes).ok()) << path;
  return path;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

}  // namespace

TEST(Cli, HelpExitsZeroListingSubcommandsAndExitCodes) {
  const CliRun r = test::runCli("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* sub : {"info", "convert", "dump", "formats", "demo"}) EXPECT_NE(r.text.find(sub), std::string::npos) << sub;
  EXPECT_NE(r.text.find("Exit codes"), std::string::npos);
  EXPECT_NE(r.text.find("4  validation failed"), std::string::npos);
}

TEST(Cli, VersionPrintsTheProjectVersion) {
  const CliRun r = test::runCli("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.text.find(RIGPORT_VERSION), std::string::npos) << r.text;
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(test::runCli("").code, 2);
  EXPECT_EQ(test::runCli("convert").code, 2);
  EXPECT_EQ(test::runCli("convert x.dff --no-such-option").code, 2);
  EXPECT_EQ(test::runCli("convert x.dff --memory-limit lots").code, 2);
  EXPECT_EQ(test::runCli("dump").code, 2);
}

TEST(Cli, UnknownCommandIsNamedWithTheClosestOne) {
  const CliRun r = test::runCli("convrt x.dff", Capture::StderrOnly);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("unknown command 'convrt'; did you mean 'convert'?"), std::string::npos) << r.text;
  EXPECT_NE(test::runCli("inf x.dff", Capture::StderrOnly).text.find("did you mean 'info'?"), std::string::npos);
}

TEST(Cli, FormatsListsEveryRegistryFormatWithItsCapabilities) {
  const CliRun r = test::runCli("formats");
  ASSERT_EQ(r.code, 0);
  for (const FormatInfo& f : formats()) {
    const size_t at = r.text.find(std::string(f.name) + " ");
    ASSERT_NE(at, std::string::npos) << f.name;
    const std::string line = r.text.substr(at, r.text.find('\n', at) - at);
    EXPECT_NE(line.find(std::string(f.extensions)), std::string::npos) << line;
    EXPECT_NE(line.find(f.write != nullptr ? "yes   yes" : "yes   no"), std::string::npos) << line;
    // Columns stay aligned however long a name or extension list is (".clip,.animation" shifted them).
    const size_t readColumn = r.text.find("read");
    EXPECT_EQ(line.substr(readColumn, 4), "yes ") << line;
  }
}

TEST(Cli, MissingOrGarbageInputFailsWithOneLineNamingTheFileAndWritesNothing) {
  const std::string dir = test::scratchDir("cli_bad_input");
  const std::string out = dir + "/out";
  fs::create_directories(out);
  const std::string missing = dir + "/no_such_file.dff";
  const std::vector<std::string> bad{missing, writeGarbage(dir, "garbage.dff"), writeGarbage(dir, "garbage.bin")};
  for (const std::string& file : bad) {
    for (const std::string& args : {"info " + quote(file), "convert -o " + quote(out) + " " + quote(file), "dump --json " + quote(file)}) {
      const CliRun r = test::runCli(args, Capture::StderrOnly);
      EXPECT_EQ(r.code, 1) << args << "\n" << r.text;
      const std::string first = r.text.substr(0, r.text.find('\n'));
      EXPECT_EQ(first.rfind("rigport: error: " + file, 0), 0u) << args << "\n" << r.text;
    }
  }
  EXPECT_TRUE(entries(out).empty()) << "left behind: " << entries(out).front();
}

TEST(Cli, UnwritableOutputDirectoryExitsThree) {
  const std::string dir = test::scratchDir("cli_unwritable");
  const std::string good = writeWithRegistry("renderware-dff", dir + "/good.dff");
  ASSERT_FALSE(good.empty());
  const CliRun r = test::runCli("convert -o /dev/null/out " + quote(good), Capture::StderrOnly);
  EXPECT_EQ(r.code, 3) << r.text;
  EXPECT_NE(r.text.find("rigport: error: /dev/null/out/good.glb"), std::string::npos) << r.text;
}

// The error names the user's path and the system's reason, not the temporary file rigport writes first.
TEST(Cli, OutputFolderErrorNamesTheUsersPathAndTheRealCause) {
  const std::string dir = test::scratchDir("cli_proc");
  const std::string good = writeWithRegistry("renderware-dff", dir + "/good.dff");
  ASSERT_FALSE(good.empty());
  const CliRun r = test::runCli("convert -o /proc/rigport_out " + quote(good), Capture::StderrOnly);
  EXPECT_EQ(r.code, 3) << r.text;
  EXPECT_NE(r.text.find("/proc/rigport_out/good.glb: cannot create the folder /proc/rigport_out: "), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find(".tmp"), std::string::npos) << r.text;
}

TEST(Cli, BatchConvertGoesOnPastABadFileAndExitsOne) {
  const std::string dir = test::scratchDir("cli_batch");
  const std::string good = writeWithRegistry("renderware-dff", dir + "/good.dff");
  ASSERT_FALSE(good.empty());
  const std::string bad = writeGarbage(dir, "bad.dff");
  const std::string out = dir + "/out";
  const CliRun r = test::runCli("convert -o " + quote(out) + " " + quote(bad) + " " + quote(good), Capture::StderrOnly);
  EXPECT_EQ(r.code, 1) << r.text;
  EXPECT_NE(r.text.find("rigport: error: " + bad), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("rigport: error: " + good), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("converted 1 of 2 files, 1 failed"), std::string::npos) << r.text;
  EXPECT_EQ(entries(out), std::vector<std::string>{"good.glb"});
  const test::ValidatorRun v = test::validateGltfFile(out + "/good.glb");
  EXPECT_TRUE(v.ok) << v.output;
}

TEST(Cli, ConvertGltfWritesAGltfAndItsBin) {
  const std::string dir = test::scratchDir("cli_gltf");
  const std::string good = writeWithRegistry("renderware-dff", dir + "/model.dff");
  ASSERT_FALSE(good.empty());
  const CliRun r = test::runCli("convert --gltf -o " + quote(dir + "/out") + " " + quote(good));
  ASSERT_EQ(r.code, 0) << r.text;
  std::vector<std::string> files = entries(dir + "/out");
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"model.bin", "model.gltf"}));
  const test::ValidatorRun v = test::validateGltfFile(dir + "/out/model.gltf");
  EXPECT_TRUE(v.ok) << v.output;
}

// `-o model.gltf` without --gltf wrote a .glb's bytes under a .gltf name, which no glTF reader takes
// for what its name says.
TEST(Cli, ConvertToAFileNamedGltfWritesAGltfAndItsBin) {
  const std::string dir = test::scratchDir("cli_gltf_named");
  const std::string good = writeWithRegistry("renderware-dff", dir + "/model.dff");
  ASSERT_FALSE(good.empty());
  const CliRun r = test::runCli("convert -o " + quote(dir + "/out/named.gltf") + " " + quote(good));
  ASSERT_EQ(r.code, 0) << r.text;
  std::vector<std::string> files = entries(dir + "/out");
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"named.bin", "named.gltf"}));
  std::ifstream in(dir + "/out/named.gltf", std::ios::binary);
  EXPECT_EQ(in.get(), '{') << "JSON text, not a .glb";
  const test::ValidatorRun v = test::validateGltfFile(dir + "/out/named.gltf");
  EXPECT_TRUE(v.ok) << v.output;
}

TEST(Cli, ConvertBindsAnimationFilesToEachModel) {
  const std::string dir = test::scratchDir("cli_anim");
  const std::string model = writeWithRegistry("renderware-dff", dir + "/model.dff");
  const std::string anim = writeWithRegistry("renderware-anm", dir + "/walk.anm");
  ASSERT_FALSE(model.empty());
  ASSERT_FALSE(anim.empty());
  const CliRun r = test::runCli("convert -o " + quote(dir) + " " + quote(model) + " --anim " + quote(anim));
  ASSERT_EQ(r.code, 0) << r.text;
  tinygltf::Model gltf;
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromFile(&gltf, &err, &warn, dir + "/model.glb")) << err;
  ASSERT_EQ(gltf.animations.size(), 1u);
  // Every bone the walk moves has a rotation channel on the node of that name.
  std::set<std::string> rotated;
  for (const tinygltf::AnimationChannel& c : gltf.animations[0].channels) {
    if (c.target_path == "rotation") rotated.insert(gltf.nodes[static_cast<size_t>(c.target_node)].name);
  }
  const Rig character = makeDemoCharacter();
  for (const BoneTrack& t : character.animations[0].tracks) {
    EXPECT_TRUE(rotated.count(character.skeleton.bones[static_cast<size_t>(t.bone)].name)) << t.target.name;
  }
  EXPECT_EQ(gltf.skins.size(), 1u);
}

TEST(Cli, AnimationOnlyFileAsAModelInputIsRejected) {
  const std::string dir = test::scratchDir("cli_anim_only");
  const std::string anim = writeWithRegistry("renderware-anm", dir + "/walk.anm");
  ASSERT_FALSE(anim.empty());
  const CliRun r = test::runCli("convert -o " + quote(dir + "/out") + " " + quote(anim), Capture::StderrOnly);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.text.find("--anim"), std::string::npos) << r.text;
  EXPECT_TRUE(entries(dir + "/out").empty());
}

TEST(Cli, DumpJsonHoldsTheWholeModel) {
  const std::string dir = test::scratchDir("cli_dump");
  const std::string model = writeWithRegistry("renderware-dff", dir + "/model.dff");
  ASSERT_FALSE(model.empty());
  const CliRun r = test::runCli("dump --json " + quote(model), Capture::StdoutOnly);
  ASSERT_EQ(r.code, 0);
  const nlohmann::json j = nlohmann::json::parse(r.text, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.text.substr(0, 200);
  const Rig character = makeDemoCharacter();
  EXPECT_EQ(j["provenance"]["format"], "renderware-dff");
  EXPECT_EQ(j["provenance"]["axes"]["forward"], "+Y");
  ASSERT_EQ(j["skeleton"]["bones"].size(), character.skeleton.bones.size());
  EXPECT_EQ(j["skeleton"]["bones"][1]["name"], "pelvis");
  EXPECT_EQ(j["skeleton"]["bones"][1]["parent"], 0);
  EXPECT_EQ(j["skeleton"]["bones"][1]["rotation"].size(), 4u);
  EXPECT_EQ(j["skeleton"]["bones"][1]["inverseBind"].size(), 16u);
  ASSERT_EQ(j["meshes"].size(), 1u);
  EXPECT_EQ(j["meshes"][0]["positions"].size(), character.vertexCount());
  EXPECT_EQ(j["meshes"][0]["influences"].size(), character.vertexCount());
  EXPECT_EQ(j["meshes"][0]["indices"].size(), character.meshes[0].indices.size());
}

TEST(Cli, DumpWritesJsonWithoutTheFlag) {
  const std::string dir = test::scratchDir("cli_dump_default");
  const std::string model = writeWithRegistry("renderware-dff", dir + "/model.dff");
  ASSERT_FALSE(model.empty());
  const CliRun plain = test::runCli("dump " + quote(model), Capture::StdoutOnly);
  ASSERT_EQ(plain.code, 0);
  EXPECT_EQ(plain.text, test::runCli("dump --json " + quote(model), Capture::StdoutOnly).text);
  EXPECT_FALSE(nlohmann::json::parse(plain.text, nullptr, false).is_discarded());
}

TEST(Cli, InfoShowsTheRenderwareVersionAndPlatform) {
  const CliRun r = test::runCli("info " + quote(test::sample("renderware/synthetic_skin_rw36003_xbox_native.dff")), Capture::StdoutOnly);
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("renderware      3.6.0.3 (Xbox)"), std::string::npos) << r.text;
}

TEST(Cli, InfoJsonSummarisesEachFileAndReportsFailuresInline) {
  const std::string dir = test::scratchDir("cli_info");
  const std::string model = writeWithRegistry("renderware-dff", dir + "/model.dff");
  ASSERT_FALSE(model.empty());
  const std::string missing = dir + "/missing.dff";
  const CliRun r = test::runCli("info --json " + quote(model) + " " + quote(missing), Capture::StdoutOnly);
  EXPECT_EQ(r.code, 1);
  const nlohmann::json j = nlohmann::json::parse(r.text, nullptr, false);
  ASSERT_TRUE(j.is_array()) << r.text.substr(0, 200);
  ASSERT_EQ(j.size(), 2u);
  const Rig character = makeDemoCharacter();
  EXPECT_EQ(j[0]["format"], "renderware-dff");
  ASSERT_EQ(j[0]["items"].size(), 1u);
  EXPECT_EQ(j[0]["items"][0]["kind"], "rig");
  ASSERT_EQ(j[0]["rigs"].size(), 1u);
  EXPECT_EQ(j[0]["rigs"][0]["bones"], character.skeleton.bones.size());
  EXPECT_EQ(j[0]["rigs"][0]["vertices"], character.vertexCount());
  EXPECT_EQ(j[0]["rigs"][0]["maxInfluences"], 4);
  EXPECT_EQ(j[1]["file"], missing);
  // The error is structured: code, file, a trail, the message.
  ASSERT_TRUE(j[1]["error"].is_object()) << j[1].dump();
  EXPECT_EQ(j[1]["error"]["code"], "io");
  EXPECT_EQ(j[1]["error"]["file"], missing);
  EXPECT_TRUE(j[1]["error"]["trail"].is_array());
  EXPECT_FALSE(j[1]["error"]["message"].get<std::string>().empty());
}

TEST(Cli, DumpWithoutJsonFlagStillPrintsJson) {
  const std::string dir = test::scratchDir("cli_dump_default");
  const std::string model = writeWithRegistry("renderware-dff", dir + "/model.dff");
  ASSERT_FALSE(model.empty());
  const CliRun r = test::runCli("dump " + quote(model), Capture::StdoutOnly);
  ASSERT_EQ(r.code, 0);
  const nlohmann::json j = nlohmann::json::parse(r.text, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.text.substr(0, 200);
  EXPECT_EQ(j["provenance"]["format"], "renderware-dff");
}

TEST(Cli, DemoPrintsARowPerWritableFormatAndValidates) {
  const std::string dir = test::scratchDir("cli_demo");
  const CliRun r = test::runCli("demo " + quote(dir));
  EXPECT_EQ(r.code, 0) << r.text;
  for (const FormatInfo& f : formats()) {
    if (f.write != nullptr) EXPECT_NE(r.text.find(std::string(f.name) + " "), std::string::npos) << f.name;
  }
  EXPECT_NE(r.text.find("validation passed"), std::string::npos) << r.text;
  EXPECT_TRUE(fs::is_regular_file(dir + "/demo_character.glb"));
}

TEST(Cli, DemoExitsFourWhenTheValidatorRejectsAFile) {
  const std::string dir = test::scratchDir("cli_demo_rejected");
  // A stand-in `node`, first on PATH, that rejects everything it is given (exit 3). It is a program
  // of the tests' own build, so that a Windows rigport.exe can start it too (a script run by the
  // real node could not be reached under Wine, where no Windows node is installed).
  fs::create_directories(dir + "/bin");
  const std::string node = test::installStubProgram(dir + "/bin", "node");
  const CliRun r = test::runCliWith("PATH", test::searchPathWithFirst((fs::path(dir) / "bin").string()), "demo " + quote(dir + "/out"));
  EXPECT_EQ(r.code, 4) << r.text;
  EXPECT_NE(r.text.find("stub: rejected"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("validation FAILED (validator exit status 3)"), std::string::npos) << r.text;
  // The validator script and every .glb of the demo, each one word.
  const std::vector<std::string> args = test::stubArguments(node);
  ASSERT_GE(args.size(), 2u) << r.text;
  EXPECT_EQ(fs::path(args[0]).filename(), "validate_gltf.mjs");
  for (size_t i = 1; i < args.size(); ++i) EXPECT_EQ(fs::path(args[i]).extension(), ".glb") << args[i];
}

// The files the demo names are in the folder as the user typed it: `/` between its parts and the
// file name on every system (std::filesystem put `\` there on Windows).
TEST(Cli, DemoNamesItsFilesInTheFolderAsTyped) {
  const std::string dir = test::scratchDir("cli_demo_spelling");
  const CliRun r = test::runCliIn(dir, "demo out/sub --no-validate");
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("wrote out/sub/demo_character.glb\n"), std::string::npos) << r.text;
  EXPECT_TRUE(fs::is_regular_file(fs::path(dir) / "out" / "sub" / "demo_character.glb"));
}

TEST(Cli, InputsWithTheSameNameNeverOverwriteEachOther) {
  const std::string dir = test::scratchDir("cli-same-name");
  fs::create_directories(dir + "/a");
  fs::create_directories(dir + "/b");
  const std::string first = writeWithRegistry("renderware-dff", dir + "/a/ped.dff");
  const std::string second = writeWithRegistry("renderware-dff", dir + "/b/ped.dff");
  ASSERT_FALSE(first.empty());
  const CliRun r = test::runCli("convert " + quote(first) + " " + quote(second) + " -o " + quote(dir + "/out"), Capture::StderrOnly);
  EXPECT_EQ(r.code, 1) << r.text;
  EXPECT_NE(r.text.find(second + ": would overwrite"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("already written for " + first), std::string::npos) << r.text;
  EXPECT_EQ(entries(dir + "/out"), std::vector<std::string>{"ped.glb"});
}

// Game files carry Latin-1 names; JSON output replaces invalid UTF-8 instead of aborting.
TEST(Cli, JsonOutputSurvivesNamesThatAreNotUtf8) {
  const std::string dir = test::scratchDir("cli-latin1");
  std::vector<uint8_t> bytes = test::readBytes(test::sample("renderware/synthetic_anims_anp3.ifp"));
  bytes.at(8) = 0xE9;  // first byte of the ANP3 package name (after "ANP3" and the u32 size)
  const std::string path = dir + "/latin1.ifp";
  ASSERT_TRUE(platform::writeFileAtomic(path, bytes).ok());
  for (const std::string& command : {"info --json ", "dump --json "}) {
    const CliRun r = test::runCli(command + quote(path), Capture::StdoutOnly);
    EXPECT_EQ(r.code, 0) << command << r.text;
    EXPECT_TRUE(nlohmann::json::accept(r.text)) << command << r.text;
  }
}
