#!/usr/bin/env bash
# Builds and runs every benchmark program (bench/*_bench.cpp) and prints, per program, the Google
# Benchmark table and the peak resident memory of the whole process (GNU time's %M, which includes
# generating the synthetic input). The figures in BENCHMARKS.md come from this script.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
for b in build/bench/*_bench; do
  echo "== $(basename "$b")"
  /usr/bin/time -f "peak RSS: %M KiB" "$b" --benchmark_min_time=1 --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true "$@"
done
