#include "cli/batch.hpp"

#include <filesystem>
#include <set>

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
    // A texture file in a folder is what the models beside it take (a TXD by a DFF's name); given
    // by name, it is written as PNG files.
    if ((f.carries & (kCarriesSkeleton | kCarriesMesh | kCarriesAnimations)) == 0) continue;
    const std::string_view list = f.extensions;
    for (size_t start = 0; start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      if (list.substr(start, comma - start) == ext) return true;
      start = comma + 1;
    }
  }
  return false;
}

// One folder given on the command line, walked depth first. `entered` holds the real path of every
// folder entered, so a link back to one of them is reported instead of walked again.
class FolderWalk {
 public:
  FolderWalk(fs::path root, const BatchSelection& selection, BatchInputs& out) : root_(std::move(root)), selection_(selection), out_(out) {}

  std::vector<fs::path> run() {
    enter(root_);
    std::sort(found_.begin(), found_.end());
    return std::move(found_);
  }

 private:
  void enter(const fs::path& folder) {
    std::error_code ec;
    const fs::path real = fs::canonical(folder, ec);
    if (!ec && !entered_.insert(real).second) {
      out_.skipped.push_back(ioError(folder.string(), fmt::format("a symbolic link to {}, a folder already walked; not followed", real.string())));
      return;
    }
    fs::directory_iterator it(folder, ec);
    if (ec) {
      out_.unreadable.push_back(ioError(folder.string(), fmt::format("cannot list the folder: {}; its files are not converted", ec.message())));
      return;
    }
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) see(it->path());
    if (ec) out_.unreadable.push_back(ioError(folder.string(), fmt::format("cannot list the whole folder: {}", ec.message())));
  }

  void see(const fs::path& path) {
    const fs::path relative = path.lexically_relative(root_);
    if (hidden(relative)) return;
    std::error_code ec;
    const fs::file_status target = fs::status(path, ec);  // through links
    if (ec || !fs::exists(target)) {
      // A link whose target is missing, a chain of links that never ends (ELOOP), or an entry the
      // system will not describe.
      const std::string what = ec == std::errc::too_many_symbolic_link_levels ? "a loop of symbolic links"
                               : !ec || ec == std::errc::no_such_file_or_directory ? "a symbolic link to nothing"
                                                                                   : fmt::format("cannot be read: {}", ec.message());
      out_.skipped.push_back(ioError(path.string(), fmt::format("{}; skipped", what)));
      return;
    }
    if (fs::is_directory(target)) return enter(path);
    if (fs::is_regular_file(target) && included(relative, selection_)) found_.push_back(relative);
  }

  const fs::path root_;
  const BatchSelection& selection_;
  BatchInputs& out_;
  std::set<fs::path> entered_;
  std::vector<fs::path> found_;
};

}  // namespace

BatchInputs expandInputs(const std::vector<std::string>& arguments, const BatchSelection& selection) {
  BatchInputs inputs;
  for (const std::string& argument : arguments) {
    std::error_code ec;
    if (!fs::is_directory(argument, ec)) {
      inputs.files.push_back(BatchInput{argument, ""});
      continue;
    }
    for (const fs::path& relative : FolderWalk(argument, selection, inputs).run()) {
      inputs.files.push_back(BatchInput{(fs::path(argument) / relative).string(), relative.parent_path().string()});
    }
  }
  return inputs;
}

unsigned defaultJobs() { return platform::availableCores(); }

}  // namespace rigport::cli
