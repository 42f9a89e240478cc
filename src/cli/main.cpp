// rigport: converts game skeletons, skins and animations to glTF 2.0.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/streams.hpp"
#include "platform/process.hpp"

namespace {

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// CLI11 says only "A subcommand is required" for `rigport convrt x.dff`: name the word and the
// closest command instead. True when `word` was such a typo (and has been reported).
bool reportUnknownCommand(CLI::App& app, const std::string& word) {
  if (word.empty() || word[0] == '-') return false;
  std::string best;
  size_t bestDistance = 0;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == word) return false;
    const size_t d = editDistance(word, sub->get_name());
    if (best.empty() || d < bestDistance) {
      best = sub->get_name();
      bestDistance = d;
    }
  }
  rigport::cli::message("rigport: error: unknown command '{}'; did you mean '{}'? (`rigport --help` lists the commands)\n",
             word, best);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rigport::cli;
  // The process-wide choices only a program makes: the allocator policy, the fault guard that lets
  // files be mapped, UTF-8 arguments (platform/process.hpp).
  rigport::platform::ProgramArguments args = rigport::platform::startProgram(argc, argv);
  CLI::App app{"rigport: converts game skeletons, skins and animations to glTF 2.0"};
  app.set_version_flag("--version", std::string("rigport ") + RIGPORT_VERSION);
  app.footer(kExitCodeHelp);
  app.require_subcommand(1);
  // CLI11 reads a word starting with '/' as an option on Windows (`/help`), by default and before
  // any subcommand is added (each copies it): a path from the drive's root such as /dev/null/out
  // or /work/ped.dff then failed with "The following argument was not expected". Options are
  // spelled `--name` on every system, and a word starting with '/' is a path.
  app.allow_windows_style_options(false);

  int exitCode = kExitOk;
  constexpr std::pair<std::string_view, void (*)(CLI::App&, int&)> kCommands[] = {
      {"info", addInfoCommand}, {"convert", addConvertCommand}, {"dump", addDumpCommand},
      {"formats", addFormatsCommand}, {"demo", addDemoCommand}, {"view", addViewCommand},
      {"hash", addHashCommand}, {"compare", addCompareCommand},
  };
  // Only the command named is built when one is: CLI11 builds an option in about 10,000
  // instructions (each checked against every other), and building all eight commands' options
  // cost a small file's conversion a third of its time. Anything else (--help, --version, a typo)
  // gets every command, to list them or find the nearest.
  const auto named = args.argc() > 1 ? std::find_if(std::begin(kCommands), std::end(kCommands),
                                                    [&](const auto& c) { return c.first == args.utf8[1]; })
                                     : std::end(kCommands);
  if (named != std::end(kCommands)) {
    named->second(app, exitCode);
  } else {
    for (const auto& [name, add] : kCommands) add(app, exitCode);
  }

  if (args.argc() > 1 && reportUnknownCommand(app, args.utf8[1])) return kExitUsage;
  try {
    app.parse(args.argc(), args.argv.data());
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, with exit code 0.
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  return finishResults(exitCode);
}
