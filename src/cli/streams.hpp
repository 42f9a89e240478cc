// What the CLI prints: messages (errors, warnings, progress, a batch's summary) on stderr, results
// (`info`, `dump`, `hash`, `compare`, `formats`, JSON reports) on stdout.
// fmt::print throws when a write fails, and a closed or full stderr (a daemon's, `2>&-`, a console
// that went away) ended a batch with SIGABRT in the middle of its work (on Windows: exit 3 with a
// temporary file left behind). A message that cannot be written is dropped, since stderr is where
// it would be reported, and the work goes on. A result that cannot be written (`info > /dev/full`)
// is lost work, so the command ends with exit 3 then, as `cat` does (finishResults).
#pragma once

#include <string_view>

#include <fmt/format.h>

namespace rigport::cli {

void writeMessage(std::string_view text);
void writeResult(std::string_view text);

template <typename... T>
void message(fmt::format_string<T...> format, T&&... args) {
  writeMessage(fmt::vformat(format, fmt::make_format_args(args...)));
}

template <typename... T>
void result(fmt::format_string<T...> format, T&&... args) {
  writeResult(fmt::vformat(format, fmt::make_format_args(args...)));
}

// Flushes stdout. Returns `exitCode`, or kExitOutputFailed (with a message) when `exitCode` is
// kExitOk and a result was not written whole.
int finishResults(int exitCode);

}  // namespace rigport::cli
