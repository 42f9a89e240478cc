#include "cli/batch.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "cli/glob.hpp"
#include "formats/registry.hpp"
#include "platform/process.hpp"

namespace rigport::cli {
namespace {

namespace fs = std::filesystem;

bool hidden(const fs::path& relative) {
  for (const fs::path& part : relative) {
    const std::string name = part.string();
    if (name.size() > 1 && name[0] == '.' && name != "..") return true;
  }
  return false;
}

bool included(const fs::path& relative, const BatchSelection& selection) {
  if (!selection.include.empty()) {
    for (const std::string& glob : selection.include) {
      const bool byPath = glob.find('/') != std::string::npos;
      const std::string subject = byPath ? relative.generic_string() : relative.filename().string();
      if (globMatch(glob, subject, byPath)) return true;
    }
    return false;
  }
  std::string ext = relative.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext.empty()) return false;
  for (const FormatInfo& f : formats()) {
    if (f.animationOnly() && !selection.animationFiles) continue;
    const std::string_view list = f.extensions;
    for (size_t start = 0; start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      if (list.substr(start, comma - start) == ext) return true;
      start = comma + 1;
    }
  }
  return false;
}

}  // namespace

Result<std::vector<BatchInput>> expandInputs(const std::vector<std::string>& arguments, const BatchSelection& selection) {
  std::vector<BatchInput> inputs;
  for (const std::string& argument : arguments) {
    std::error_code ec;
    if (!fs::is_directory(argument, ec)) {
      inputs.push_back(BatchInput{argument, ""});
      continue;
    }
    std::vector<fs::path> found;
    fs::recursive_directory_iterator it(argument, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const fs::path relative = it->path().lexically_relative(argument);
      if (hidden(relative)) {
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(ec) && included(relative, selection)) found.push_back(relative);
    }
    if (ec) return ioError(argument, fmt::format("cannot list the folder: {}", ec.message()));
    std::sort(found.begin(), found.end());
    for (const fs::path& relative : found) {
      inputs.push_back(BatchInput{(fs::path(argument) / relative).string(), relative.parent_path().string()});
    }
  }
  return inputs;
}

unsigned defaultJobs() { return platform::availableCores(); }

}  // namespace rigport::cli
