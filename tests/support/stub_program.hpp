// The stand-in for the programs rigport starts (tests/programs/stub_program.cpp), put where a test
// needs it. A header of its own, so that the test programs that do not use it do not depend on it.
#pragma once

#include <string>
#include <vector>

namespace rigport::test {

// The stub copied into the folder `dir` as `name` (name.exe on Windows); returns the copy's path.
// Run, it prints "stub: rejected", writes the arguments it got into that path + ".args" and exits
// with status 3.
std::string installStubProgram(const std::string& dir, const std::string& name);
// The arguments the stub at `path` received when it last ran.
std::vector<std::string> stubArguments(const std::string& path);
// This process's PATH with the folder `dir` searched first (for runCliWith("PATH", ...)).
std::string searchPathWithFirst(const std::string& dir);

}  // namespace rigport::test
