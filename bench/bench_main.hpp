// main() of every benchmark program: the CLI's start (platform/process.hpp: the allocator policy,
// files mapped as the CLI maps them), so an
// in-process read measures what `rigport` does, unless RIGPORT_BENCH_GLIBC_DEFAULTS=1 asks for
// glibc's defaults (BENCHMARKS.md gives both). Also the loops' check of each read and export.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>

#include "platform/process.hpp"

namespace rigport::bench {

// True, the benchmark skipped with the error's text, when `result` (a Result or Status) failed.
template <class R>
bool skippedOnError(benchmark::State& state, const R& result) {
  if (result) return false;
  state.SkipWithError(result.error().describe().c_str());
  return true;
}

}  // namespace rigport::bench

#define RIGPORT_BENCHMARK_MAIN()                                                  \
  int main(int argc, char** argv) {                                               \
    const char* defaults = std::getenv("RIGPORT_BENCH_GLIBC_DEFAULTS");           \
    const bool glibcDefaults = defaults != nullptr && std::strcmp(defaults, "1") == 0; \
    rigport::platform::startProgram(argc, argv, glibcDefaults);                   \
    ::benchmark::AddCustomContext("allocator", glibcDefaults ? "glibc defaults" : "rigport CLI policy"); \
    ::benchmark::Initialize(&argc, argv);                                         \
    if (::benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;           \
    ::benchmark::RunSpecifiedBenchmarks();                                        \
    ::benchmark::Shutdown();                                                      \
    return 0;                                                                     \
  }
