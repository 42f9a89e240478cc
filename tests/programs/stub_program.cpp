// A stand-in for a program rigport starts (platform::runProgram): the tests copy it under the name
// they need (`node` on PATH for `rigport demo`'s validator) or run it by its path. It writes the
// arguments it received, one per line, into the file beside itself named like it plus ".args",
// prints "stub: rejected" and exits with status 3, so a test sees exactly which words arrived.
// The arguments are read as rigport reads its own (platform::startProgram: on Windows from the
// wide command line, as UTF-8).
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "platform/process.hpp"

int main(int argc, char** argv) {
  const rigport::platform::ProgramArguments args = rigport::platform::startProgram(argc, argv, true);
  const std::string self = rigport::platform::executablePath();
  const std::string record = self + ".args";
  std::ofstream out(std::filesystem::path(std::u8string(record.begin(), record.end())), std::ios::binary);
  for (int i = 1; i < args.argc(); ++i) out << args.utf8[static_cast<size_t>(i)] << '\n';
  fmt::print("stub: rejected\n");
  return 3;
}
