// rigport's process exit codes; `rigport --help` lists them in its footer.
#pragma once

namespace rigport::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitInputFailed = 1,       // at least one input could not be read or converted
  kExitUsage = 2,             // the command line itself is wrong
  kExitOutputFailed = 3,      // an output file could not be written
  kExitValidationFailed = 4,  // `rigport demo`: the glTF validator rejected a written .glb
};

inline constexpr const char* kExitCodeHelp =
    "Exit codes:\n"
    "  0  success\n"
    "  1  some inputs could not be read or converted (the others were)\n"
    "  2  usage error\n"
    "  3  an output file could not be written\n"
    "  4  validation failed (rigport demo)\n";

}  // namespace rigport::cli
