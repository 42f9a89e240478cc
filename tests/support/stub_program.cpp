#include "support/stub_program.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace rigport::test {

namespace {
#ifdef _WIN32
constexpr const char* kExecutableSuffix = ".exe";
constexpr char kSearchPathSeparator = ';';
#else
constexpr const char* kExecutableSuffix = "";
constexpr char kSearchPathSeparator = ':';
#endif
}  // namespace

std::string installStubProgram(const std::string& dir, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path copy = fs::path(dir) / (name + kExecutableSuffix);
  fs::copy_file(RIGPORT_STUB_PROGRAM, copy, fs::copy_options::overwrite_existing);  // keeps its mode
  return copy.string();
}

std::vector<std::string> stubArguments(const std::string& path) {
  std::ifstream in(path + ".args", std::ios::binary);
  std::vector<std::string> args;
  for (std::string line; std::getline(in, line);) args.push_back(line);
  return args;
}

std::string searchPathWithFirst(const std::string& dir) {
  const char* path = std::getenv("PATH");
  return path == nullptr ? dir : dir + kSearchPathSeparator + path;
}

}  // namespace rigport::test
