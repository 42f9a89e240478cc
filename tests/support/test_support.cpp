#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
// The one OS-specific part of the tests' support: running a command line and naming this process.
// POSIX runs it with sh, Windows (scripts/windows_tests.sh, under Wine) with cmd.exe.
#ifdef _WIN32
#include <process.h>
#else
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace rigport::test {

namespace {

#ifdef _WIN32
int processId() { return _getpid(); }
FILE* openPipe(const std::string& command) {
  // cmd.exe /c drops the first and last quote of a command line that starts with one: give it a
  // pair to drop, so that a quoted program name keeps its own. Read in text mode: the console
  // text a program writes ends its lines with CR LF on Windows, and the tests expect LF.
  return ::_popen(("\"" + command + "\"").c_str(), "r");
}
int closePipe(FILE* pipe) { return ::_pclose(pipe); }  // the exit status itself
constexpr const char* kNullDevice = "NUL";
// cmd.exe's words for the start of a command line; /d changes the drive too (the scratch folders
// lie on C:, the build on Z:).
std::string inFolder(const std::string& dir) { return "cd /d \"" + dir + "\" && "; }
std::string withVariable(const std::string& name, const std::string& value) { return "set \"" + name + "=" + value + "\" && "; }
// The program as cmd.exe starts it: a Windows path (the build's is a Unix one, as Wine's Z: drive).
std::string cliProgram() { return std::filesystem::absolute(RIGPORT_CLI).make_preferred().string(); }
#else
int processId() { return static_cast<int>(::getpid()); }
FILE* openPipe(const std::string& command) { return ::popen(command.c_str(), "r"); }
int closePipe(FILE* pipe) {
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
constexpr const char* kNullDevice = "/dev/null";
std::string inFolder(const std::string& dir) { return "cd '" + dir + "' && "; }
std::string withVariable(const std::string& name, const std::string& value) { return name + "='" + value + "' "; }
std::string cliProgram() { return RIGPORT_CLI; }
#endif

// Runs `command`, its redirections included, and reads what reaches its standard output.
int runPiped(const std::string& command, std::string* output) {
  FILE* pipe = openPipe(command);
  if (pipe == nullptr) {
    // Nothing ran, so trying again is safe; said on stderr so that a log shows it. Under Wine a
    // writer_matrix_test run twice saw exit -1 and no output in about 2,000 commands, from _popen
    // or from _pclose (not known which: this message and the note below tell them apart).
    std::fprintf(stderr, "runPiped: cannot start the command (%s), trying once more: %s\n", std::strerror(errno), command.c_str());
    pipe = openPipe(command);
  }
  if (pipe == nullptr) {
    if (output != nullptr) *output = std::string("cannot start the command: ") + std::strerror(errno);
    return -1;
  }
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) text.append(buf, n);
  const int status = closePipe(pipe);
  // -1 is no exit status: a signal ended the command (POSIX), or the wait for it failed (Windows).
  if (status == -1) text += "\n(the command gave no exit status)";
  if (output != nullptr) *output = std::move(text);
  return status;
}

}  // namespace

void expectKeptSeed(const std::string& relative, const std::vector<uint8_t>& written) {
  const std::filesystem::path path = std::filesystem::path(RIGPORT_SOURCE_DIR) / "tests/data/fuzz" / relative;
  if (std::getenv("RIGPORT_WRITE_SEEDS") != nullptr) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(written.data()), static_cast<std::streamsize>(written.size()));
  }
  EXPECT_EQ(readBytes(path.string()), written) << path.string() << ": regenerate with RIGPORT_WRITE_SEEDS=1";
}

std::string sample(const std::string& relative) { return std::string(RIGPORT_SAMPLES_DIR) + "/" + relative; }

std::vector<uint8_t> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

namespace {

// The folder every scratchDir() of this process lies in.
std::filesystem::path scratchRoot() { return std::filesystem::temp_directory_path() / ("rigport-test-" + std::to_string(processId())); }

// A scratch folder may hold read-only files, which Windows refuses to delete: tinygltf's MinGW
// writer creates its files with _wopen and no permission argument, so read-only. Each is made
// writable first.
void removeScratch(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir, ec)) {
      fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add, ec);
    }
  }
  fs::remove_all(dir);
}

// When every test of the process passed, its scratch folders go (ctest runs each test in a process
// of its own: a day of runs left 24,000 of them, 69 GB, in /tmp and filled the disk); a failure's
// stay, to be looked at.
class ScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    if (::testing::UnitTest::GetInstance()->Passed()) removeScratch(scratchRoot());
  }
};
[[maybe_unused]] const ::testing::Environment* const kScratchCleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

}  // namespace

std::string scratchDir(const std::string& name) {
  // A folder of an earlier run whose process had this id (Wine reuses small ids) may still be there.
  const std::filesystem::path dir = scratchRoot() / name;
  removeScratch(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

int runCommand(const std::string& command, std::string* output) { return runPiped(command + " 2>&1", output); }

namespace {

// The CLI run with `args` after `prefix` (a change of folder or of the environment, in the shell's words).
CliRun runCliAfter(const std::string& prefix, const std::string& args, Capture capture) {
  // Both shells read redirections left to right: `2>&1 >null` sends stderr where stdout went.
  const std::string null = kNullDevice;
  const std::string redirections = capture == Capture::StdoutOnly   ? " 2>" + null
                                   : capture == Capture::StderrOnly ? " 2>&1 >" + null
                                                                    : " 2>&1";
  CliRun r;
  r.code = runPiped(prefix + quote(cliProgram()) + " " + args + redirections, &r.text);
  return r;
}

}  // namespace

CliRun runCli(const std::string& args, Capture capture) { return runCliAfter("", args, capture); }

CliRun runCliIn(const std::string& dir, const std::string& args, Capture capture) {
  return runCliAfter(inFolder(dir), args, capture);
}

CliRun runCliWith(const std::string& name, const std::string& value, const std::string& args, Capture capture) {
  return runCliAfter(withVariable(name, value), args, capture);
}

#ifdef _WIN32
std::string quote(const std::string& s) { return "\"" + s + "\""; }
std::string slashes(std::string text) {
  for (size_t at; (at = text.find("\\\\")) != std::string::npos;) text.replace(at, 2, "/");
  std::replace(text.begin(), text.end(), '\\', '/');
  return text;
}
#else
std::string quote(const std::string& s) { return "'" + s + "'"; }
std::string slashes(std::string text) { return text; }
#endif

#if defined(__linux__)
long childrenPeakKib() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return usage.ru_maxrss;
}
#endif

}  // namespace rigport::test
