// The subcommands, one file each (cli_<name>.cpp). Each adds itself to the app; its callback
// fills a settings struct from the command line, calls the library and stores its exit code.
#pragma once

#include <CLI/CLI.hpp>

namespace rigport::cli {

void addInfoCommand(CLI::App& app, int& exitCode);
void addConvertCommand(CLI::App& app, int& exitCode);
void addDumpCommand(CLI::App& app, int& exitCode);
void addFormatsCommand(CLI::App& app, int& exitCode);
void addDemoCommand(CLI::App& app, int& exitCode);
void addViewCommand(CLI::App& app, int& exitCode);
void addHashCommand(CLI::App& app, int& exitCode);
void addCompareCommand(CLI::App& app, int& exitCode);

}  // namespace rigport::cli
