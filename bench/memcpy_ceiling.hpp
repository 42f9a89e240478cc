// The ceiling every throughput in BENCHMARKS.md is compared with: memcpy of the same bytes into a
// buffer allocated once, in the same run (machines here are noisy; the ratio is what is reported).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace rigport::bench {

inline void memcpyCeiling(benchmark::State& state, const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> destination(bytes.size());
  for (auto _ : state) {
    std::memcpy(destination.data(), bytes.data(), bytes.size());
    benchmark::DoNotOptimize(destination.data());
    benchmark::ClobberMemory();
  }
  const double iterations = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes.size() * state.iterations()));
  state.counters["MB/s"] = benchmark::Counter(static_cast<double>(bytes.size()) * iterations / 1e6, benchmark::Counter::kIsRate);
}

}  // namespace rigport::bench
