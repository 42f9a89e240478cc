// `rigport` facing hostile or damaged inputs (issue 25, "Faults the platform room must survive"): a
// name holding a terminal escape is printed escaped; --strict refuses a file from which a damaged
// part was dropped; the folder walk reports what it cannot read (an unreadable folder, a dangling
// link, a link loop) instead of skipping it silently, and never loops; a glTF the JSON layer refuses
// is located. Fixtures come from the project's own package writer and glTF exporter (written out by
// tinygltf, then damaged) and the synthetic samples.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "demo/character.hpp"
#include "formats/sims3/package.hpp"
#include "platform/files.hpp"
#include "support/gltf_edit.hpp"
#include "support/sims3_resources.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using test::CliRun;
using test::quote;
namespace fs = std::filesystem;

namespace {

const std::string kGood = "renderware/synthetic_skin_rw36003.dff";
// The OSC sequence a hostile name would use to retitle (or worse) the terminal showing a message.
const std::string kInjection = "\x1b]0;pwned\x07";
const std::string kEscaped = "\\x1B]0;pwned\\x07";
constexpr uint32_t kTypeClip = 0x6B20C4F3;     // sims3_clip.md §4
constexpr uint32_t kTypeNameMap = 0x0166038C;  // NMAP

std::string writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  fs::create_directories(fs::path(path).parent_path());
  EXPECT_TRUE(platform::writeFileAtomic(path, bytes).ok()) << path;
  return path;
}

// --- Text from a file, printed -------------------------------------------------------------------

// A clip filed under a name that holds an ESC sequence (and whose clip key is not its instance, so
// a warning quotes the name): `info` lists the name and the warning without the raw bytes.
TEST(CliFaults, AClipNameHoldingATerminalEscapeIsPrintedEscaped) {
  const std::string dir = test::scratchDir("cli_faults_escape_name");
  const std::vector<uint8_t> clip = test::readBytes(test::sample("sims3/synthetic_a_synthetic_test_x.clip"));
  const std::vector<sims3::PackageResource> resources{
      sims3::PackageResource::make(kTypeNameMap, 0, 0, sims3::serializeNameMap({{0x1234, kInjection + "walk"}}), false),
      sims3::PackageResource::make(kTypeClip, 0, 0x1234, clip, true)};
  const std::string pkg = writeFile(dir + "/hostile.package", sims3::serializePackage(resources));
  const CliRun info = test::runCli("info " + quote(pkg));
  EXPECT_EQ(info.code, 0) << info.text;
  EXPECT_EQ(info.text.find('\x1b'), std::string::npos) << info.text;
  EXPECT_EQ(info.text.find('\x07'), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("[clip-key] clip '" + kEscaped + "walk'"), std::string::npos) << info.text;  // the warning
  EXPECT_NE(info.text.find("clips           " + kEscaped + "walk"), std::string::npos) << info.text;    // the listing
}

// --- --strict and dropped parts ------------------------------------------------------------------

// Issue 25: 103 damaged packages gave fewer clips than the clean one, and --strict exited 0 on all.
TEST(CliFaults, StrictRefusesAPackageFromWhichADamagedResourceWasDropped) {
  const std::string dir = test::scratchDir("cli_faults_strict_package");
  std::vector<sims3::PackageResource> resources = test::sims3SampleResources();
  std::vector<uint8_t> broken = test::readBytes(test::sample("sims3/synthetic_a_synthetic_test_x.clip"));
  broken.resize(100);  // cut inside its curves
  resources.push_back(sims3::PackageResource::make(kTypeClip, 0, 0xBAD, broken, true));
  const std::string pkg = writeFile(dir + "/damaged.package", sims3::serializePackage(resources));

  const CliRun lenient = test::runCli("convert " + quote(pkg) + " -o " + quote(dir + "/out"));
  EXPECT_EQ(lenient.code, 0) << lenient.text;
  EXPECT_FALSE(fs::is_empty(dir + "/out")) << lenient.text;

  const CliRun strict = test::runCli("convert --strict " + quote(pkg) + " -o " + quote(dir + "/strict"));
  EXPECT_EQ(strict.code, 1) << strict.text;
  EXPECT_NE(strict.text.find("resource-skipped"), std::string::npos) << strict.text;
  EXPECT_NE(strict.text.find("0000000000000BAD"), std::string::npos) << strict.text;  // which resource
  EXPECT_TRUE(!fs::exists(dir + "/strict") || fs::is_empty(dir + "/strict")) << strict.text;
  EXPECT_EQ(test::runCli("info --strict " + quote(pkg)).code, 1);
  EXPECT_EQ(test::runCli("info " + quote(pkg)).code, 0);
}

// --- The folder walk -----------------------------------------------------------------------------

std::string goodFolder(const std::string& dir) {
  fs::create_directories(dir + "/in/sub");
  fs::copy_file(test::sample(kGood), dir + "/in/good.dff");
  return dir + "/in";
}

// Whether this user lists `folder` (mode 000) all the same: root does, without CAP_DAC_OVERRIDE
// dropped.
// What the Windows build (run under Wine by scripts/windows_tests.sh) cannot set up; Linux runs
// these tests. Symbolic links: MinGW-w64's libstdc++ does not implement
// std::filesystem::create_symlink ("Function not implemented"), and Windows makes them only with a
// privilege or in developer mode. An unreadable folder: a mode-000 folder and setpriv are POSIX;
// the Windows twin, a folder whose ACL denies listing, is not enforced by Wine.
#ifdef _WIN32
constexpr bool kPosixFolderMachinery = false;
#else
constexpr bool kPosixFolderMachinery = true;
#endif
constexpr const char* kWindowsSkip = "POSIX file modes, setpriv and symbolic links are not available to the Windows build";

bool listsAnyway(const std::string& folder) {
  std::error_code ec;
  fs::directory_iterator probe(folder, ec);
  return !ec;
}

// Issue 25: a sub-folder the walk could not read was skipped silently (its files never converted,
// exit 0). A privileged user reads a mode-000 folder, so then the CLI runs as nobody (setpriv).
TEST(CliFaults, AnUnreadableSubFolderFailsTheRunAndIsNamed) {
  if (!kPosixFolderMachinery) GTEST_SKIP() << kWindowsSkip;
  const std::string dir = test::scratchDir("cli_faults_unreadable");
  const std::string in = goodFolder(dir);
  fs::create_directories(in + "/locked");
  fs::copy_file(test::sample(kGood), in + "/locked/hidden_from_us.dff");
  fs::create_directories(dir + "/out");
  // nobody must reach the CLI and the folders wherever the clone lies and whatever the umask: a
  // copy of the CLI in the scratch folder, and the scratch folders open to all.
  const std::string cli = dir + "/rigport";
  fs::copy_file(RIGPORT_CLI, cli);
  const auto open = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec;
  for (const auto& e : fs::recursive_directory_iterator(dir)) fs::permissions(e.path(), open, fs::perm_options::add);
  for (fs::path p = dir; p.has_relative_path() && p != fs::temp_directory_path(); p = p.parent_path()) {
    fs::permissions(p, open, fs::perm_options::add);
  }
  fs::permissions(dir + "/out", fs::perms::all);  // nobody writes there too
  fs::permissions(in + "/locked", fs::perms::none);
  const std::string args = "convert " + quote(in) + " -o " + quote(dir + "/out");
  CliRun r;
  if (listsAnyway(in + "/locked")) {
    r.code = test::runCommand("setpriv --reuid=65534 --regid=65534 --clear-groups " + quote(cli) + " " + args, &r.text);
  } else {
    r = test::runCli(args);
  }
  fs::permissions(in + "/locked", fs::perms::owner_all);  // so the scratch folder can be removed
  EXPECT_EQ(r.code, 1) << r.text;
  EXPECT_NE(r.text.find("locked: cannot list the folder"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("converted 1 of 2 files"), std::string::npos) << r.text;
  EXPECT_TRUE(fs::exists(dir + "/out/good.glb")) << r.text;  // the readable files are converted
}

TEST(CliFaults, ADanglingLinkIsAWarningAndTheRestConverts) {
  if (!kPosixFolderMachinery) GTEST_SKIP() << kWindowsSkip;
  const std::string dir = test::scratchDir("cli_faults_dangling");
  const std::string in = goodFolder(dir);
  fs::create_symlink(dir + "/nowhere.dff", in + "/sub/gone.dff");
  const CliRun r = test::runCli("convert " + quote(in) + " -o " + quote(dir + "/out"));
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("gone.dff: a symbolic link to nothing; skipped"), std::string::npos) << r.text;
  EXPECT_TRUE(fs::exists(dir + "/out/good.glb")) << r.text;
}

TEST(CliFaults, LinkLoopsAreWarningsAndTheWalkEnds) {
  if (!kPosixFolderMachinery) GTEST_SKIP() << kWindowsSkip;
  const std::string dir = test::scratchDir("cli_faults_loops");
  const std::string in = goodFolder(dir);
  fs::create_directory_symlink(in, in + "/sub/back_to_top");  // a folder link to an ancestor
  fs::create_symlink(in + "/ping.dff", in + "/pong.dff");      // links to each other (ELOOP)
  fs::create_symlink(in + "/pong.dff", in + "/ping.dff");
  const CliRun r = test::runCli("convert " + quote(in) + " -o " + quote(dir + "/out"));
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("back_to_top: a symbolic link to "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("ping.dff: a loop of symbolic links; skipped"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("pong.dff: a loop of symbolic links; skipped"), std::string::npos) << r.text;
  EXPECT_TRUE(fs::exists(dir + "/out/good.glb")) << r.text;
  EXPECT_FALSE(fs::exists(dir + "/out/sub/back_to_top")) << r.text;  // the ancestor was not walked again
}

// A link to a folder outside the one given is followed, its files keeping their place below the link.
TEST(CliFaults, ALinkToAnotherFolderIsFollowed) {
  if (!kPosixFolderMachinery) GTEST_SKIP() << kWindowsSkip;
  const std::string dir = test::scratchDir("cli_faults_link_out");
  const std::string in = goodFolder(dir);
  fs::create_directories(dir + "/elsewhere");
  fs::copy_file(test::sample(kGood), dir + "/elsewhere/far.dff");
  fs::create_directory_symlink(dir + "/elsewhere", in + "/sub/there");
  const CliRun r = test::runCli("convert " + quote(in) + " -o " + quote(dir + "/out"));
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_TRUE(fs::exists(dir + "/out/sub/there/far.glb")) << r.text;
}

// --- glTF errors from the JSON layer -------------------------------------------------------------

// The demo character exported by rigport, written by tinygltf as one .gltf with its buffer in a
// data URI (as Blender's "glTF Embedded" writes it), parsed back as JSON text to be damaged.
nlohmann::json embeddedDemo(const std::string& dir) {
  tinygltf::Model model = test::exported(makeDemoCharacter());
  const std::string path = dir + "/embedded.gltf";
  EXPECT_TRUE(tinygltf::TinyGLTF().WriteGltfSceneToFile(&model, path, true, true, true, false));
  const std::vector<uint8_t> text = test::readBytes(path);
  return nlohmann::json::parse(text.begin(), text.end());
}

std::string writeText(const std::string& path, const std::string& text) {
  return writeFile(path, std::vector<uint8_t>(text.begin(), text.end()));
}

// Issue 25: "'count' property is missing in Accessor — which one?". The third accessor loses it,
// so an error naming the first would fail.
TEST(CliFaults, AGltfMissingPropertyNamesTheObjectItIsMissingFrom) {
  const std::string dir = test::scratchDir("cli_faults_gltf_missing");
  nlohmann::json doc = embeddedDemo(dir);
  ASSERT_GT(doc["accessors"].size(), 3u);
  doc["accessors"][2].erase("count");
  const std::string file = writeText(dir + "/no_count.gltf", doc.dump());
  const CliRun r = test::runCli("info " + quote(file), test::Capture::StderrOnly);
  EXPECT_EQ(r.code, 1) << r.text;
  EXPECT_NE(r.text.find("no_count.gltf: accessors[2]: 'count' property is missing in Accessor"), std::string::npos) << r.text;
}

// Issue 25: a data-URI error echoed the whole base64 payload. A payload cut to half its length (a
// file truncated by a tool that streams it) names its buffer and quotes only the URI's start.
TEST(CliFaults, ATruncatedDataUriNamesItsBufferWithoutEchoingThePayload) {
  const std::string dir = test::scratchDir("cli_faults_gltf_data_uri");
  nlohmann::json doc = embeddedDemo(dir);
  const std::string uri = doc["buffers"][0]["uri"].get<std::string>();
  ASSERT_GT(uri.size(), 1000u);
  doc["buffers"][0]["uri"] = uri.substr(0, uri.size() / 2);
  const std::string file = writeText(dir + "/cut.gltf", doc.dump());
  const CliRun r = test::runCli("info " + quote(file), test::Capture::StderrOnly);
  EXPECT_EQ(r.code, 1) << r.text;
  EXPECT_NE(r.text.find("cut.gltf: buffers[0].uri: Failed to decode"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(fmt::format("({} bytes)", uri.size() / 2)), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find(uri.substr(0, 100)), std::string::npos) << r.text;  // 64 characters at most
  EXPECT_LT(r.text.size(), 400u) << r.text;
}

// A hand-edited .gltf: tinygltf passes on nlohmann's line and column; the byte that breaks the
// syntax is also the error's offset, as every reader's place is. A key deep in the file, so an
// offset of 0 or of the document's start would fail.
TEST(CliFaults, AGltfSyntaxErrorGivesTheByteOffset) {
  const std::string dir = test::scratchDir("cli_faults_gltf_syntax");
  std::string text = embeddedDemo(dir).dump();
  const size_t at = text.find("\"buffers\"");
  ASSERT_NE(at, std::string::npos);
  text[at] = '#';  // a key that is not a string
  const std::string file = writeText(dir + "/broken.gltf", text);
  const CliRun r = test::runCli("info " + quote(file), test::Capture::StderrOnly);
  EXPECT_EQ(r.code, 1) << r.text;
  EXPECT_NE(r.text.find("broken.gltf: json: "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(fmt::format("expected string literal (at 0x{:X})\n", at)), std::string::npos) << r.text;
}


// A stderr that cannot be written (closed by a daemon or by `2>&-`, or full): fmt::print threw at
// the first message it could not write, and a batch ended with SIGABRT (exit 134) in the middle of
// its work (under Wine, whose console had gone: exit 3 and a temporary file left behind). Messages
// that cannot be written are now dropped (src/cli/streams.hpp): every file converts, exit 0.
TEST(CliFaults, ABatchWhoseStderrCannotBeWrittenConvertsEveryFile) {
  if (!kPosixFolderMachinery) GTEST_SKIP() << "/dev/full and `2>&-` are POSIX";
  const std::string dir = test::scratchDir("cli_faults_stderr");
  fs::create_directories(dir + "/in");
  for (int i = 0; i < 40; ++i) fs::copy_file(test::sample(kGood), fmt::format("{}/in/m{:02}.dff", dir, i), fs::copy_options::none);
  for (const char* stderrTo : {"2>/dev/full", "2>&-"}) {
    const std::string out = fmt::format("{}/out{}", dir, stderrTo[2] == '&' ? "-closed" : "-full");
    // -v writes a line for every file; the parentheses keep the runner's own 2>&1 off the CLI.
    std::string said;
    const int code = test::runCommand(fmt::format("({} convert {} -v -j 2 -o {} {})", quote(RIGPORT_CLI), quote(dir + "/in"), quote(out), stderrTo), &said);
    EXPECT_EQ(code, 0) << stderrTo << ": " << said;
    size_t written = 0;
    for (const fs::directory_entry& e : fs::directory_iterator(out)) {
      EXPECT_EQ(e.path().extension(), ".glb") << e.path();
      ++written;
    }
    EXPECT_EQ(written, 40u) << stderrTo;
  }
}

// `rigport info x.dff > /dev/full` lost its whole report and exited 0 (stdout was flushed at exit,
// its failure unseen). A result that is not written whole is lost work: exit 3, naming stdout.
TEST(CliFaults, AResultThatCannotBeWrittenFailsWithExit3) {
  if (!kPosixFolderMachinery) GTEST_SKIP() << "/dev/full is POSIX";
  for (const char* args : {"info", "info --json", "hash"}) {
    std::string said;
    const int code = test::runCommand(fmt::format("({} {} {} >/dev/full)", quote(RIGPORT_CLI), args, quote(test::sample(kGood))), &said);
    EXPECT_EQ(code, 3) << args << ": " << said;
    EXPECT_NE(said.find("rigport: error: cannot write the results to stdout: No space left on device"), std::string::npos) << args << ": " << said;
  }
}

}  // namespace
