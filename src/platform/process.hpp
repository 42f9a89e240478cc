// The process and the programs around it: interrupts, the terminal, cores, other programs, and
// what a program (never the library) sets up for the whole process when it starts. POSIX in
// process_posix.cpp, Windows in process_windows.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rigport::platform {

// main()'s arguments as UTF-8 (Windows hands a program its arguments in the ANSI code page; the
// wide command line is converted), with a char* array for parsers that want argc/argv.
struct ProgramArguments {
  std::vector<std::string> utf8;
  std::vector<char*> argv;  // utf8's strings, then nullptr
  int argc() const { return static_cast<int>(utf8.size()); }
};

// What a program calls first thing in main(): UTF-8 console output (Windows), the fault guard of
// mapped files (platform/files.hpp) and, unless `libraryDefaults`, the read allocator policy
// (platform/allocator_policy.hpp). Returns the arguments as UTF-8.
ProgramArguments startProgram(int argc, char** argv, bool libraryDefaults = false);

// Interrupts: Ctrl-C and SIGTERM (POSIX; Ctrl-C, Ctrl-Break and closing the console on Windows)
// and SIGHUP. The first asks the work to stop (interruptRequested()); a second removes the
// temporary files in flight and ends the process with `exitCode`. System calls interrupted by the
// first are restarted, so a program blocked writing to a full stderr goes on instead of failing.
// SIGPIPE (a reader of our output went away) removes the temporary files in flight and ends the
// process as the signal would. restoreInterruptHandlers puts back what was there.
void installInterruptHandlers(int exitCode);
void restoreInterruptHandlers();
bool interruptRequested();

bool stderrIsTerminal();
// The cores this process may run on (its affinity where the system has one).
unsigned availableCores();
// The running executable's path; empty when the system does not say.
std::string executablePath();

// Runs a program found on PATH, its output on ours, and waits; its exit status, or nothing when it
// could not be started (not installed).
std::optional<int> runProgram(const std::vector<std::string>& args);
// Opens a file with the desktop's handler (xdg-open, the Windows shell). Returns an empty string,
// or why it failed. Does not wait for a program that opens a window in the foreground: after a
// few seconds it is left running.
std::string openWithShell(const std::string& path);

}  // namespace rigport::platform
