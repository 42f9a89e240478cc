// Batches at scale: folders walked recursively with their tree kept under -o, existing outputs
// never replaced silently, the same output and report for any -j, a 1,000-file folder with
// corrupted files, two processes writing one output, and Ctrl-C leaving no partial or temporary
// file. All run on Windows too (under Wine, scripts/windows_tests.sh) but the tests of SIGTERM,
// SIGHUP and SIGPIPE, POSIX signals that Windows does not have; Ctrl-C has a Windows twin.
#include <gtest/gtest.h>

#ifndef _WIN32
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#else
#include "platform/windows_api.hpp"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "cli/batch.hpp"
#include "cli/glob.hpp"
#include "platform/files.hpp"
#include "demo/character.hpp"
#include "formats/registry.hpp"
#include "support/test_support.hpp"

using namespace rigport;
using test::Capture;
using test::CliRun;
using test::quote;
namespace fs = std::filesystem;

namespace {

const std::string kGood = "renderware/synthetic_skin_rw36003.dff";

void copy(const std::string& from, const std::string& to) {
  fs::create_directories(fs::path(to).parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

void writeBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  fs::create_directories(fs::path(path).parent_path());
  ASSERT_TRUE(platform::writeFileAtomic(path, bytes).ok()) << path;
}

// Every regular file below `dir`, relative, sorted.
// Also polled while a batch runs, renaming its temporary files: an entry may be gone by the time
// it is looked at, so nothing here throws, and paths are made relative without touching the disk.
std::vector<std::string> tree(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code gone;
    if (it->is_regular_file(gone)) out.push_back(it->path().lexically_relative(dir).generic_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool isTemporary(const std::string& relative) {
  const std::string name = fs::path(relative).filename().string();
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0;
}

// A .glb is whole when the length its header states is the file's size.
bool completeGlb(const std::string& path) {
  const std::vector<uint8_t> b = test::readBytes(path);
  if (b.size() < 12 || b[0] != 'g' || b[1] != 'l' || b[2] != 'T' || b[3] != 'F') return false;
  const uint32_t length = b[8] | (b[9] << 8) | (b[10] << 16) | (static_cast<uint32_t>(b[11]) << 24);
  return length == b.size();
}

// Three kinds of damage that no reader repairs (each fails on its own in CliBatch.CorruptionsFail).
std::vector<uint8_t> corrupted(std::vector<uint8_t> good, int kind) {
  switch (kind % 3) {
    case 0: good.resize(40); break;                        // truncated inside the clump
    case 1: good[4] = good[5] = good[6] = 0xFF; break;     // clump size past the end
    default: good[0] = 0x77; break;                        // not a clump at all
  }
  return good;
}

std::string batchOfCharacters(const std::string& name, int files) {
  const std::string dir = test::scratchDir(name);
  auto bytes = findFormat("renderware-dff")->write(makeDemoCharacter());
  EXPECT_TRUE(bytes.ok());
  writeBytes(dir + "/character.dff", *bytes);
  fs::create_directories(dir + "/in");
  for (int i = 0; i < files; ++i) fs::create_hard_link(dir + "/character.dff", fmt::format("{}/in/c{:04}.dff", dir, i));
  return dir;
}

void expectOnlyWholeGlbs(const std::string& out) {
  for (const std::string& f : tree(out)) {
    EXPECT_FALSE(isTemporary(f)) << f;
    EXPECT_TRUE(completeGlb(out + "/" + f)) << f;
  }
}

}  // namespace

TEST(CliBatch, FolderIsWalkedAndItsTreeKeptBelowTheOutput) {
  const std::string dir = test::scratchDir("batch-tree");
  copy(test::sample(kGood), dir + "/in/a.dff");
  copy(test::sample(kGood), dir + "/in/chars/b.DFF");
  copy(test::sample(kGood), dir + "/in/chars/deep/c.dff");
  copy(test::sample(kGood), dir + "/in/.cache/hidden.dff");  // hidden: skipped
  std::ofstream(dir + "/in/chars/notes.txt") << "not a model\n";   // no format claims .txt: skipped
  const CliRun r = test::runCli("convert " + quote(dir + "/in") + " -o " + quote(dir + "/out"), Capture::StderrOnly);
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_EQ(tree(dir + "/out"), (std::vector<std::string>{"a.glb", "chars/b.glb", "chars/deep/c.glb"})) << r.text;
  EXPECT_NE(r.text.find("converted 3 of 3 files"), std::string::npos) << r.text;
  // -q: the same batch, every file converted, prints nothing.
  const CliRun quiet = test::runCli("convert " + quote(dir + "/in") + " -o " + quote(dir + "/out") + " --overwrite -q", Capture::StderrOnly);
  EXPECT_EQ(quiet.code, 0) << quiet.text;
  EXPECT_EQ(quiet.text, "");
}

TEST(CliBatch, IncludeGlobsPickFilesByNameOrByPath) {
  const std::string dir = test::scratchDir("batch-include");
  copy(test::sample(kGood), dir + "/in/ped/a.dff");
  copy(test::sample(kGood), dir + "/in/car/b.dff");
  copy(test::sample(kGood), dir + "/in/c.model");  // an extension no format claims, picked by --include
  CliRun r = test::runCli("convert " + quote(dir + "/in") + " --include " + quote("ped/*") + " -o " + quote(dir + "/out1"), Capture::StderrOnly);
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_EQ(tree(dir + "/out1"), std::vector<std::string>{"ped/a.glb"});
  r = test::runCli("convert " + quote(dir + "/in") + " --include " + quote("*.model") + " --include " + quote("b.*") + " -o " + quote(dir + "/out2"), Capture::StderrOnly);
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_EQ(tree(dir + "/out2"), (std::vector<std::string>{"c.glb", "car/b.glb"}));
  r = test::runCli("convert " + quote(dir + "/in") + " --include " + quote("*.nothing") + " -o " + quote(dir + "/out3"), Capture::StderrOnly);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.text.find("no input files"), std::string::npos) << r.text;
}

TEST(CliBatch, ExistingOutputsAreAnErrorUnlessSkippedOrOverwritten) {
  const std::string dir = test::scratchDir("batch-existing");
  copy(test::sample(kGood), dir + "/in/a.dff");
  const std::string out = dir + "/out/a.glb";
  const std::string convert = "convert " + quote(dir + "/in") + " -o " + quote(dir + "/out");
  ASSERT_EQ(test::runCli(convert).code, 0);
  writeBytes(out, {'k', 'e', 'e', 'p'});  // stands for a file the user edited since

  CliRun r = test::runCli(convert, Capture::StderrOnly);
  EXPECT_EQ(r.code, 3) << r.text;
  EXPECT_NE(test::slashes(r.text).find(test::slashes(out) + ": exists; --overwrite replaces it"), std::string::npos) << r.text;
  EXPECT_EQ(test::readBytes(out).size(), 4u);

  r = test::runCli(convert + " --skip-existing", Capture::StderrOnly);
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("1 skipped (output exists)"), std::string::npos) << r.text;
  EXPECT_EQ(test::readBytes(out).size(), 4u);

  r = test::runCli(convert + " --overwrite", Capture::StderrOnly);
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_TRUE(completeGlb(out));

  EXPECT_EQ(test::runCli(convert + " --overwrite --skip-existing").code, 2);
}

TEST(CliBatch, CorruptionsFail) {
  const std::string dir = test::scratchDir("batch-corruptions");
  const std::vector<uint8_t> good = test::readBytes(test::sample(kGood));
  for (int kind = 0; kind < 3; ++kind) {
    const std::string path = dir + "/bad" + std::to_string(kind) + ".dff";
    writeBytes(path, corrupted(good, kind));
    const CliRun r = test::runCli("convert " + quote(path) + " -o " + quote(dir + "/out"), Capture::StderrOnly);
    EXPECT_EQ(r.code, 1) << kind << r.text;
  }
  EXPECT_TRUE(tree(dir + "/out").empty());
}

// Inputs are handed out to threads but reported in order: stderr, --json and every output byte
// are the same for -j 1 and -j 2.
TEST(CliBatch, ParallelOutputIsIdenticalToOneJob) {
  const std::string dir = test::scratchDir("batch-parallel");
  const std::vector<uint8_t> good = test::readBytes(test::sample(kGood));
  for (int i = 0; i < 40; ++i) {
    const std::string name = fmt::format("{}/in/{}/f{:02}.dff", dir, i % 3, i);
    if (i % 7 == 3) {
      writeBytes(name, corrupted(good, i));
    } else {
      copy(test::sample(i % 2 ? kGood : "renderware/synthetic_skin_rw33002.dff"), name);
    }
  }
  std::string reports[2], jsons[2];
  for (int jobs : {1, 2}) {
    const std::string args = fmt::format("convert {} -j {} -o {}", quote(dir + "/in"), jobs, quote(fmt::format("{}/out{}", dir, jobs)));
    const CliRun err = test::runCli(args, Capture::StderrOnly);
    EXPECT_EQ(err.code, 1) << err.text;
    reports[jobs - 1] = err.text;
    const CliRun json = test::runCli(args + " --json --overwrite", Capture::StdoutOnly);
    jsons[jobs - 1] = test::slashes(json.text);
  }
  // Paths differ only in out1/out2.
  std::string second = jsons[1];
  for (size_t at = second.find("/out2/"); at != std::string::npos; at = second.find("/out2/", at)) second.replace(at, 6, "/out1/");
  EXPECT_EQ(reports[0], reports[1]);
  EXPECT_EQ(jsons[0], second);
  const std::vector<std::string> files = tree(dir + "/out1");
  ASSERT_EQ(files, tree(dir + "/out2"));
  EXPECT_EQ(files.size(), 34u);
  for (const std::string& f : files) EXPECT_EQ(test::readBytes(dir + "/out1/" + f), test::readBytes(dir + "/out2/" + f)) << f;
}

TEST(CliBatch, ThousandFilesWithTenPercentCorruptedConvertEveryGoodOne) {
  const std::string dir = test::scratchDir("batch-thousand");
  const std::vector<uint8_t> good = test::readBytes(test::sample(kGood));
  std::vector<std::string> bad;
  for (int i = 0; i < 1000; ++i) {
    const std::string relative = fmt::format("{:02}/m{:04}.dff", i / 100, i);
    const std::string path = dir + "/in/" + relative;
    if (i % 10 == 7) {
      writeBytes(path, corrupted(good, i));
      bad.push_back(path);
    } else {
      fs::create_directories(fs::path(path).parent_path());
      fs::create_hard_link(test::sample(kGood), path);
    }
  }
  const CliRun r = test::runCli("convert " + quote(dir + "/in") + " -o " + quote(dir + "/out"), Capture::StderrOnly);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.text.find("converted 900 of 1000 files, 100 failed"), std::string::npos) << r.text.substr(0, 2000);
  // Every bad file is named with an offset, in input order.
  const std::string text = test::slashes(r.text);
  size_t last = 0;
  for (const std::string& path : bad) {
    const size_t at = text.find("rigport: error: " + test::slashes(path) + ": ");
    ASSERT_NE(at, std::string::npos) << path;
    EXPECT_GT(at + 1, last) << path << " reported out of order";
    last = at + 1;
    EXPECT_NE(text.find("(at 0x", at), std::string::npos) << path;
  }
  const std::vector<std::string> written = tree(dir + "/out");
  EXPECT_EQ(written.size(), 900u);
  for (const std::string& f : written) {
    ASSERT_FALSE(isTemporary(f)) << f;
    ASSERT_TRUE(completeGlb(dir + "/out/" + f)) << f;
  }
}

// Ctrl-C: once, the batch stops starting files and finishes those in flight; twice, it stops at
// once. Either way: exit 130, no temporary file, every .glb written whole. On POSIX the test sends
// SIGINT; on Windows it presses Ctrl-C in the batch's own console (tests/programs/send_ctrl_c.cpp),
// which the CLI's console handler sees (src/platform/process_windows.cpp).
#ifndef _WIN32
extern char** environ;
#endif

namespace {

#ifndef _WIN32

// A `rigport convert` batch started in the background, its stderr into the file `log`.
class BackgroundBatch {
 public:
  BackgroundBatch(std::vector<std::string> args, const std::string& log) {
    args.insert(args.begin(), RIGPORT_CLI);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    started_ = posix_spawn(&pid_, RIGPORT_CLI, &actions, nullptr, argv.data(), environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
  }
  bool started() const { return started_; }
  void pressCtrlC(int times) {
    for (int i = 0; i < times; ++i) ::kill(pid_, SIGINT);
  }
  // The exit status, or -1 when the process did not exit (a signal ended it).
  int wait() {
    int status = 0;
    if (::waitpid(pid_, &status, 0) != pid_ || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
  }

 private:
  pid_t pid_ = 0;
  bool started_ = false;
};
#else
// The same on Windows. The batch gets a console of its own, as when a user starts it in a window,
// where Ctrl-C can be pressed; its stdout and stderr go to `log` all the same (under Wine, without a
// display, the new console's own output handles could not be written).
class BackgroundBatch {
 public:
  BackgroundBatch(const std::vector<std::string>& args, const std::string& log) {
    std::wstring line = L"\"" + fs::path(RIGPORT_CLI).wstring() + L"\"";
    for (const std::string& a : args) line += L" \"" + fs::path(std::u8string(a.begin(), a.end())).wstring() + L"\"";
    SECURITY_ATTRIBUTES inherited{sizeof inherited, nullptr, TRUE};
    log_ = CreateFileW(fs::path(log).wstring().c_str(), GENERIC_WRITE, FILE_SHARE_READ, &inherited, CREATE_ALWAYS, 0, nullptr);
    STARTUPINFOW startup{};
    startup.cb = sizeof startup;
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdOutput = log_;
    startup.hStdError = log_;
    started_ = log_ != INVALID_HANDLE_VALUE && CreateProcessW(nullptr, line.data(), nullptr, nullptr, TRUE, CREATE_NEW_CONSOLE,
                                                              nullptr, nullptr, &startup, &process_) != 0;
  }
  ~BackgroundBatch() {
    if (log_ != INVALID_HANDLE_VALUE) CloseHandle(log_);
    if (!started_) return;
    CloseHandle(process_.hThread);
    CloseHandle(process_.hProcess);
  }
  BackgroundBatch(const BackgroundBatch&) = delete;
  BackgroundBatch& operator=(const BackgroundBatch&) = delete;
  bool started() const { return started_; }
  void pressCtrlC(int times) {
    std::string said;
    const int sent = test::runCommand(fmt::format("{} {} {}", quote(RIGPORT_SEND_CTRL_C), process_.dwProcessId, times), &said);
    EXPECT_EQ(sent, 0) << said;
  }
  int wait() {
    DWORD code = 0;
    if (WaitForSingleObject(process_.hProcess, 120000) != WAIT_OBJECT_0 || !GetExitCodeProcess(process_.hProcess, &code)) return -1;
    return static_cast<int>(code);
  }

 private:
  HANDLE log_ = INVALID_HANDLE_VALUE;
  PROCESS_INFORMATION process_{};
  bool started_ = false;
};
#endif

}  // namespace

TEST(CliBatch, InterruptLeavesNoPartialOrTemporaryFile) {
  constexpr int kFiles = 3000;
  const std::string dir = batchOfCharacters("batch-sigint", kFiles);
  for (int presses : {1, 2}) {
    const std::string out = fmt::format("{}/out{}", dir, presses);
    const std::string log = out + ".log";
    BackgroundBatch batch({"convert", dir + "/in", "-j", "2", "-q", "-o", out}, log);
    ASSERT_TRUE(batch.started());
    // Interrupt once the first files are written.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (tree(out).size() < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    batch.pressCtrlC(presses);
    const int code = batch.wait();
    const std::vector<uint8_t> said = test::readBytes(log);
    EXPECT_EQ(code, 130) << presses << " Ctrl-C; the batch said: " << std::string(said.begin(), said.end());
    const std::vector<std::string> written = tree(out);
    EXPECT_GT(written.size(), 0u);
    EXPECT_LT(written.size(), static_cast<size_t>(kFiles)) << "the batch ended before the interrupt";
    expectOnlyWholeGlbs(out);
  }
}

#ifndef _WIN32
namespace {

// Starts `rigport convert IN -v -o OUT` (every file listed, so that it writes a lot) with its
// stdout and stderr on the write end of a pipe the test holds; returns the pid.
pid_t spawnVerboseBatch(const std::string& in, const std::string& out, int pipeWrite) {
  std::vector<std::string> args{RIGPORT_CLI, "convert", in, "-j", "2", "-v", "-o", out};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipeWrite, 1);
  posix_spawn_file_actions_adddup2(&actions, pipeWrite, 2);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, RIGPORT_CLI, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

}  // namespace

// SIGTERM (and SIGHUP) while the batch is blocked writing to a full stderr: the write was
// interrupted and fmt threw ("cannot write to file: Interrupted system call", SIGABRT) instead of
// exit 130 (issue 25). Now the write goes on once the reader drains the pipe, and the batch stops
// cleanly with 130.
TEST(CliBatch, ATerminateSignalWhileStderrIsBlockedStopsCleanlyWith130) {
  const std::string dir = batchOfCharacters("batch-blocked-stderr", 2000);
  for (int signal : {SIGTERM, SIGHUP}) {
    const std::string out = fmt::format("{}/out{}", dir, signal);
    int fds[2];
    ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);  // the child gets only the write end, on 1 and 2
    const pid_t pid = spawnVerboseBatch(dir + "/in", out, fds[1]);
    ::close(fds[1]);
    // Nobody reads: the pipe fills (64 KiB, about 700 listed files) and the batch blocks in write.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    size_t before = 0;
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      const size_t now = tree(out).size();
      if ((now > 0 && now == before) || std::chrono::steady_clock::now() > deadline) break;
      before = now;
    }
    ::kill(pid, signal);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    char buffer[1 << 16];
    while (::read(fds[0], buffer, sizeof buffer) > 0) {
    }
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "signal " << signal << ": ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 130) << "signal " << signal;
    EXPECT_LT(tree(out).size(), 2000u) << "the batch ended before the signal";
    expectOnlyWholeGlbs(out);
  }
}

// `rigport convert ... 2>&1 | head`: the reader goes away and the next write raises SIGPIPE, which
// left hidden .tmp files in the output folder (issue 25). Now the files in flight are removed and
// the process ends as the signal would (128 + SIGPIPE), every file it wrote whole.
TEST(CliBatch, ABrokenPipeLeavesNoTemporaryFile) {
  const std::string dir = batchOfCharacters("batch-broken-pipe", 600);
  const std::string out = dir + "/out";
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);  // the child gets only the write end, on 1 and 2
  const pid_t pid = spawnVerboseBatch(dir + "/in", out, fds[1]);
  ::close(fds[1]);
  char buffer[256];
  ASSERT_GT(::read(fds[0], buffer, sizeof buffer), 0);  // as `head -c 256` would
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGPIPE);
  EXPECT_LT(tree(out).size(), 600u);
  expectOnlyWholeGlbs(out);
}
#endif  // POSIX: signals

// Two processes writing one output without --overwrite: the "output exists" check was not atomic,
// and both exited 0 in 28 of 100 runs, one replacing the other's file (issue 25). Now the write
// itself refuses an existing file: in every round exactly one succeeds, the other exits 3 naming it.
TEST(CliBatch, OfTwoProcessesWritingOneOutputExactlyOneSucceeds) {
  const std::string dir = batchOfCharacters("batch-two-writers", 0);
  const std::string input = dir + "/character.dff";
  for (int round = 0; round < 20; ++round) {
    const std::string out = fmt::format("{}/out{}.glb", dir, round);
    // Started together from two threads, each through the shell as a user would.
    CliRun runs[2];
    {
      std::jthread first([&] { runs[0] = test::runCli("convert " + quote(input) + " -q -o " + quote(out)); });
      runs[1] = test::runCli("convert " + quote(input) + " -q -o " + quote(out));
    }
    int succeeded = 0, refused = 0;
    for (const CliRun& run : runs) {
      if (run.code == 0) ++succeeded;
      if (run.code == 3) ++refused;
    }
    EXPECT_EQ(succeeded, 1) << "round " << round << ": " << runs[0].text << runs[1].text;
    EXPECT_EQ(refused, 1) << "round " << round << ": " << runs[0].text << runs[1].text;
    EXPECT_TRUE(completeGlb(out));
  }
  for (const std::string& f : tree(dir)) EXPECT_FALSE(isTemporary(f)) << f;
}

// --include's wildcards mean what fnmatch(3) made them mean on Linux, now on every system.
TEST(CliBatch, IncludePatternsMatchAsFnmatchDoes) {
  using cli::globMatch;
  EXPECT_TRUE(globMatch("*.dff", "ped.dff", false));
  EXPECT_FALSE(globMatch("*.dff", "ped.dff.bak", false));
  EXPECT_TRUE(globMatch("p?d.*", "ped.dff", false));
  EXPECT_TRUE(globMatch("[a-c]*.ifp", "b.ifp", false));
  EXPECT_FALSE(globMatch("[!a-c]*.ifp", "b.ifp", false));
  EXPECT_TRUE(globMatch("[!a-c]*.ifp", "ped.ifp", false));
  EXPECT_TRUE(globMatch("\\*x", "*x", false));
  EXPECT_FALSE(globMatch("\\*x", "ax", false));
  EXPECT_TRUE(globMatch("[x", "[x", false));  // no closing ']': a plain '['
  // Without a path, '*' crosses '/'; with one, wildcards never do.
  EXPECT_TRUE(globMatch("*.dff", "models/ped.dff", false));
  EXPECT_TRUE(globMatch("models/*.dff", "models/ped.dff", true));
  EXPECT_FALSE(globMatch("models/*.dff", "models/x/ped.dff", true));
  EXPECT_FALSE(globMatch("models?ped.dff", "models/ped.dff", true));
  EXPECT_TRUE(globMatch("*/*/*.dff", "a/b/c.dff", true));
  EXPECT_TRUE(globMatch("*", "", false));
  EXPECT_FALSE(globMatch("?", "", false));
}

// The worker pool itself: results in order whatever the threads' speed; stop() ends it early with
// every started item handed over.
TEST(CliBatch, RunInOrderHandsResultsOverInOrder) {
  std::mt19937 random(7);
  std::vector<int> delays(500);
  for (int& d : delays) d = static_cast<int>(random() % 200);
  std::vector<size_t> order;
  std::atomic<size_t> handedCount{0};  // stop() runs on the workers: it may not read `order`
  const std::function<size_t(size_t)> work = [&](size_t i) {
    std::this_thread::sleep_for(std::chrono::microseconds(delays[i]));
    return i * 3;
  };
  const std::function<void(size_t, size_t&&)> done = [&](size_t i, size_t&& r) {
    EXPECT_EQ(r, i * 3);
    order.push_back(i);
    ++handedCount;
  };
  EXPECT_EQ(cli::runInOrder<size_t>(delays.size(), 4, work, done, [] { return false; }), delays.size());
  ASSERT_EQ(order.size(), delays.size());
  for (size_t i = 0; i < order.size(); ++i) ASSERT_EQ(order[i], i);

  order.clear();
  handedCount = 0;
  std::atomic<size_t> started{0};
  const std::function<size_t(size_t)> counting = [&](size_t i) {
    ++started;
    return work(i);
  };
  const size_t handed = cli::runInOrder<size_t>(delays.size(), 3, counting, done, [&] { return handedCount.load() >= 100; });
  EXPECT_GE(handed, 100u);
  EXPECT_LT(handed, delays.size());
  EXPECT_EQ(handed, started.load()) << "every started item is handed over";
  for (size_t i = 0; i < order.size(); ++i) ASSERT_EQ(order[i], i);
}
