// platform/process.hpp on Windows.
#if defined(_WIN32)

#include "platform/windows_api.hpp"
#include <io.h>
#include <process.h>
#include <shellapi.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

#include "platform/allocator_policy.hpp"
#include "platform/files.hpp"
#include "platform/files_os.hpp"
#include "platform/process.hpp"

namespace rigport::platform {
namespace {

std::atomic<int> signalsSeen{0};
std::atomic<int> interruptedExitCode{130};

// Runs on a thread of its own (not in a signal context), so it may do ordinary work.
BOOL WINAPI onConsoleEvent(DWORD event) {
  if (event == CTRL_CLOSE_EVENT || event == CTRL_LOGOFF_EVENT || event == CTRL_SHUTDOWN_EVENT) {
    removeTemporaryFilesInFlight();
    return FALSE;  // the system ends the process
  }
  if (signalsSeen.fetch_add(1) == 0) return TRUE;
  removeTemporaryFilesInFlight();
  ExitProcess(static_cast<UINT>(interruptedExitCode.load()));
}

std::string utf8(const wchar_t* wide) {
  const int n = WideCharToMultiByte(CP_UTF8, 0, wide, -1, nullptr, 0, nullptr, nullptr);
  if (n <= 1) return {};
  std::string out(static_cast<size_t>(n - 1), '\0');
  WideCharToMultiByte(CP_UTF8, 0, wide, -1, out.data(), n, nullptr, nullptr);
  return out;
}

}  // namespace

ProgramArguments startProgram(int argc, char** argv, bool libraryDefaults) {
  if (!libraryDefaults) useReadAllocatorPolicy();
  enableMappingFaultGuard();
  SetConsoleOutputCP(CP_UTF8);
  ProgramArguments args;
  int wideCount = 0;
  if (LPWSTR* wide = CommandLineToArgvW(GetCommandLineW(), &wideCount); wide != nullptr) {
    for (int i = 0; i < wideCount; ++i) args.utf8.push_back(utf8(wide[i]));
    LocalFree(wide);
  } else {
    args.utf8.assign(argv, argv + argc);
  }
  for (std::string& a : args.utf8) args.argv.push_back(a.data());
  args.argv.push_back(nullptr);
  return args;
}

void installInterruptHandlers(int exitCode) {
  interruptedExitCode.store(exitCode);
  SetConsoleCtrlHandler(onConsoleEvent, TRUE);
}

void restoreInterruptHandlers() { SetConsoleCtrlHandler(onConsoleEvent, FALSE); }

bool interruptRequested() { return signalsSeen.load() > 0; }

bool stderrIsTerminal() { return _isatty(_fileno(stderr)) != 0; }

unsigned availableCores() { return std::max(1u, std::thread::hardware_concurrency()); }

std::string executablePath() {
  wchar_t path[32768];
  const DWORD n = GetModuleFileNameW(nullptr, path, 32768);
  if (n == 0 || n >= 32768) return {};
  return utf8(path);
}

namespace {

// `arg` as one word of a command line that CommandLineToArgvW (and the C runtime's parser of a
// program's argv) splits back into `arg`: quoted when it is empty or holds a space, tab or quote;
// a quote inside is escaped with a backslash, and the backslashes before a quote (or before the
// closing quote) are doubled, as only those are escapes. Others pass as they are: C:\a b\c.
std::wstring commandLineWord(const std::wstring& arg) {
  if (!arg.empty() && arg.find_first_of(L" \t\n\v\"") == std::wstring::npos) return arg;
  std::wstring out = L"\"";
  size_t backslashes = 0;
  for (const wchar_t c : arg) {
    if (c == L'\\') {
      ++backslashes;
      continue;
    }
    out.append(c == L'"' ? backslashes * 2 + 1 : backslashes, L'\\');
    out += c;
    backslashes = 0;
  }
  out.append(backslashes * 2, L'\\');
  out += L'"';
  return out;
}

}  // namespace

// _wspawnvp finds the program on PATH (trying .com, .exe, .bat and .cmd) but makes its command line
// by joining the arguments with spaces, quoting none: "C:\my files\a.glb" arrived as two words.
// Each argument is made one command-line word first. (A .bat or .cmd found so is run by cmd.exe,
// which reads `%` and `^` by rules of its own; the programs rigport starts, node, are .exe.)
std::optional<int> runProgram(const std::vector<std::string>& args) {
  if (args.empty()) return std::nullopt;
  const std::wstring program = pathFromUtf8(args[0]).wstring();
  std::vector<std::wstring> wide;
  for (const std::string& a : args) wide.push_back(commandLineWord(pathFromUtf8(a).wstring()));
  std::vector<const wchar_t*> argv;
  for (const std::wstring& w : wide) argv.push_back(w.c_str());
  argv.push_back(nullptr);
  const intptr_t status = _wspawnvp(_P_WAIT, program.c_str(), argv.data());
  if (status == -1) return std::nullopt;
  return static_cast<int>(status);
}

std::string openWithShell(const std::string& path) {
  const std::wstring wide = pathFromUtf8(path).wstring();
  const auto result = reinterpret_cast<intptr_t>(ShellExecuteW(nullptr, L"open", wide.c_str(), nullptr, nullptr, SW_SHOWNORMAL));
  return result > 32 ? std::string() : std::string("the Windows shell could not open it");
}

}  // namespace rigport::platform

#endif
