#include "support/test_support.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace rigport::test {

std::string sample(const std::string& relative) { return std::string(RIGPORT_SAMPLES_DIR) + "/" + relative; }

std::vector<uint8_t> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string scratchDir(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("rigport-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

int runCommand(const std::string& command, std::string* output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) text.append(buf, n);
  const int status = ::pclose(pipe);
  if (output != nullptr) *output = std::move(text);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

CliRun runCli(const std::string& args, Capture capture) {
  std::string command = std::string("'") + RIGPORT_CLI + "' " + args;
  // runCommand appends 2>&1 to the whole group; the redirections inside pick what reaches it.
  if (capture == Capture::StdoutOnly) command = "{ " + command + " 2>/dev/null; }";
  if (capture == Capture::StderrOnly) command = "{ " + command + " 2>&1 >/dev/null; }";
  CliRun r;
  r.code = runCommand(command, &r.text);
  return r;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace rigport::test
