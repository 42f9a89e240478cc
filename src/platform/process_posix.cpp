// platform/process.hpp on POSIX.
#if !defined(_WIN32)

#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "platform/allocator_policy.hpp"
#include "platform/files.hpp"
#include "platform/process.hpp"

extern char** environ;

namespace rigport::platform {
namespace {

std::atomic<int> signalsSeen{0};
int interruptedExitCode = 130;
struct sigaction previousInt, previousTerm, previousHup, previousPipe;

extern "C" void onInterrupt(int) {
  if (signalsSeen.fetch_add(1) == 0) return;
  removeTemporaryFilesInFlight();
  ::_exit(interruptedExitCode);
}

extern "C" void onBrokenPipe(int) {
  removeTemporaryFilesInFlight();
  ::_exit(128 + SIGPIPE);
}

}  // namespace

ProgramArguments startProgram(int argc, char** argv, bool libraryDefaults) {
  if (!libraryDefaults) useReadAllocatorPolicy();
  enableMappingFaultGuard();
  ProgramArguments args;
  args.utf8.assign(argv, argv + argc);
  for (std::string& a : args.utf8) args.argv.push_back(a.data());
  args.argv.push_back(nullptr);
  return args;
}

void installInterruptHandlers(int exitCode) {
  interruptedExitCode = exitCode;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previousInt);
  sigaction(SIGTERM, &action, &previousTerm);
  sigaction(SIGHUP, &action, &previousHup);
  struct sigaction pipe {};
  pipe.sa_handler = onBrokenPipe;
  sigemptyset(&pipe.sa_mask);
  sigaction(SIGPIPE, &pipe, &previousPipe);
}

void restoreInterruptHandlers() {
  sigaction(SIGINT, &previousInt, nullptr);
  sigaction(SIGTERM, &previousTerm, nullptr);
  sigaction(SIGHUP, &previousHup, nullptr);
  sigaction(SIGPIPE, &previousPipe, nullptr);
}

bool interruptRequested() { return signalsSeen.load() > 0; }

bool stderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

unsigned availableCores() {
#if defined(CPU_COUNT)
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

std::string executablePath() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

std::optional<int> runProgram(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return std::nullopt;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return std::nullopt;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// xdg-open usually returns at once, but where it falls back to running a browser in the
// foreground it would block until that browser closes.
std::string openWithShell(const std::string& path) {
  char* argv[] = {const_cast<char*>("xdg-open"), const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = 0;
  if (::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv, environ) != 0) return "could not start xdg-open";
  for (int waited = 0; waited < 5000; waited += 50) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == 0) {
      ::usleep(50'000);
      continue;
    }
    if (done < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return "xdg-open failed";
    return {};
  }
  return {};
}

}  // namespace rigport::platform

#endif
