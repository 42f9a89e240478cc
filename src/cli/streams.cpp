#include "cli/streams.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/exit_codes.hpp"

namespace rigport::cli {
namespace {

int resultError = 0;  // errno of the first result not written whole; 0 while all were

}  // namespace

void writeMessage(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stderr) != text.size()) std::clearerr(stderr);
}

void writeResult(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() && resultError == 0) resultError = errno != 0 ? errno : EIO;
}

int finishResults(int exitCode) {
  if (std::fflush(stdout) != 0 && resultError == 0) resultError = errno != 0 ? errno : EIO;
  if (resultError == 0 || exitCode != kExitOk) return exitCode;
  message("rigport: error: cannot write the results to stdout: {}\n", std::strerror(resultError));
  return kExitOutputFailed;
}

}  // namespace rigport::cli
