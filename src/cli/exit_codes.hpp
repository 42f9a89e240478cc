// rigport's process exit codes; `rigport --help` lists them in its footer.
#pragma once

namespace rigport::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitInputFailed = 1,       // at least one input could not be read or converted
  kExitDiffers = 1,           // `rigport compare`: the rigs differ beyond --tolerance, or a part is in one only
  kExitUsage = 2,             // the command line itself is wrong
  kExitOutputFailed = 3,      // an output file, or the results on stdout, could not be written
  kExitValidationFailed = 4,  // `rigport demo`: the glTF validator rejected a written .glb
  kExitInterrupted = 130,     // Ctrl-C (SIGINT) or SIGTERM stopped a batch; the shells' 128 + 2
};

inline constexpr const char* kExitCodeHelp =
    "Exit codes:\n"
    "  0  success\n"
    "  1  some inputs could not be read or converted (the others were); compare: the rigs differ\n"
    "  2  usage error\n"
    "  3  an output file, or the results on stdout, could not be written\n"
    "  4  validation failed (rigport demo)\n"
    "  130  interrupted (Ctrl-C); every file written is complete, none is partial\n";

}  // namespace rigport::cli
