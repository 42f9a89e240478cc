// Helpers shared by the test programs: sample paths, file loading, a scratch directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rigport::test {

// Absolute path of a file under tests/data/samples (copies of the shared samples), e.g. sample("renderware/x.dff").
std::string sample(const std::string& relative);
std::vector<uint8_t> readBytes(const std::string& path);
// A fresh, empty directory for this test's outputs (under the build tree's test scratch area).
std::string scratchDir(const std::string& name);
// The kept fuzz seed tests/data/fuzz/<relative> (replayed by fuzz_corpus_test and the fuzz smoke)
// is `written`, the tests' own writer's output: checked, and written there first when the
// environment sets RIGPORT_WRITE_SEEDS (to regenerate the seeds after a writer change).
void expectKeptSeed(const std::string& relative, const std::vector<uint8_t>& written);
// Runs a shell command; returns its exit code and fills `output` with stdout+stderr.
int runCommand(const std::string& command, std::string* output = nullptr);

// The rigport binary (RIGPORT_CLI) as a user runs it: `args` are shell words, quoted where needed.
enum class Capture { Both, StdoutOnly, StderrOnly };
struct CliRun {
  int code = -1;
  std::string text;
};
CliRun runCli(const std::string& args, Capture capture = Capture::Both);
// runCli() started in the folder `dir`, so that the paths in `args` may be relative to it.
CliRun runCliIn(const std::string& dir, const std::string& args, Capture capture = Capture::Both);
// runCli() with the environment variable `name` set to `value` for the CLI alone.
CliRun runCliWith(const std::string& name, const std::string& value, const std::string& args,
                  Capture capture = Capture::Both);
// `s` quoted for the shell: single quotes for sh, double for cmd.exe (paths here hold neither).
std::string quote(const std::string& s);
// `text` with Windows' path separator ('\', or "\\" as JSON escapes it) spelt '/', so that a test
// finds a path in the CLI's output however the CLI spelt it there; elsewhere `text` as it is.
std::string slashes(std::string text);

#if defined(__linux__)
// The most memory any program this test process ran (runCli, runCommand) held at once, in KiB.
long childrenPeakKib();
#endif

}  // namespace rigport::test
