// rigport: converts game skeletons, skins and animations to glTF 2.0.
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"

int main(int argc, char** argv) {
  using namespace rigport::cli;
  CLI::App app{"rigport: converts game skeletons, skins and animations to glTF 2.0"};
  app.set_version_flag("--version", std::string("rigport ") + RIGPORT_VERSION);
  app.footer(kExitCodeHelp);
  app.require_subcommand(1);

  int exitCode = kExitOk;
  addInfoCommand(app, exitCode);
  addConvertCommand(app, exitCode);
  addDumpCommand(app, exitCode);
  addFormatsCommand(app, exitCode);
  addDemoCommand(app, exitCode);
  addViewCommand(app, exitCode);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here too, with exit code 0.
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  return exitCode;
}
