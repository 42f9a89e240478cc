// The options every subcommand shares about its inputs (--anim, --skeleton, --item, --clip,
// --bind-by-position, --memory-limit, --strict, --hierarchy, --txd, --no-textures): pipeline/inputs.hpp's LoadOptions, as
// flags.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "pipeline/inputs.hpp"

namespace rigport::cli {

struct InputOptions : LoadOptions {
  std::string memoryLimitText;  // --memory-limit, e.g. "1G"
};

// Adds the input options to a subcommand.
void addInputOptions(CLI::App& cmd, InputOptions& options);
// pipeline's loadSharedInputs() with --memory-limit's size.
Result<SharedInputs> loadSharedInputs(const InputOptions& options);
// Prints "rigport: error: <Error::describe()>" on stderr.
void printError(const Error& error);

}  // namespace rigport::cli
