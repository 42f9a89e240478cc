#!/usr/bin/env bash
# Builds every libFuzzer target (fuzz/*_fuzz.cpp) with clang + ASan/UBSan and runs each one,
# seeded with the samples, for SECONDS seconds (default 20). Any crash, leak, timeout or
# out-of-memory fails the script and leaves the reproducer in build-fuzz/artifacts/.
# FUZZ_SEED=N fixes libFuzzer's random seed (0, the default, draws one): the test suite's smoke run
# uses a fixed one, so that a CI result can be reproduced; exploring is what unseeded runs are for.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-20}"
SAMPLES="tests/data/samples"
# The same clang build is the ISO C++ check: the library is compiled with -pedantic-errors -Werror.
# -O1 with line tables only: symbolised reports at a fifth less compile time than -O2 -g.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DRIGPORT_FUZZ=ON -DRIGPORT_PEDANTIC=ON -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build build-fuzz -j"$(nproc)"
mkdir -p build-fuzz/artifacts
shopt -s nullglob
# UBSan findings are recoverable by default and would only be printed: make every one fatal.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
status=0
for target in build-fuzz/fuzz/*_fuzz; do
  name="$(basename "$target")"
  corpus="build-fuzz/corpus/$name"
  mkdir -p "$corpus"
  # Seed with every sample (each target rejects what is not its format quickly).
  find "$SAMPLES" -type f ! -name '*.json' ! -name '*.txt' ! -name '*.md' ! -name '*.py' -exec cp -n {} "$corpus/" \;
  # Saved findings of this target (tests/data/fuzz/<target>/, replayed by tests/fuzz_corpus_test.cpp).
  [ -d "tests/data/fuzz/${name%_fuzz}" ] && cp -n "tests/data/fuzz/${name%_fuzz}"/* "$corpus/"
  echo "fuzz: $name for ${SECONDS_PER_TARGET}s"
  if ! "$target" "$corpus" -max_total_time="$SECONDS_PER_TARGET" -seed="${FUZZ_SEED:-0}" -rss_limit_mb=2048 -malloc_limit_mb=512 \
      -timeout=10 -artifact_prefix="build-fuzz/artifacts/$name-" -print_final_stats=0 2>"build-fuzz/$name.log"; then
    echo "fuzz: $name FAILED (see build-fuzz/$name.log)"; tail -40 "build-fuzz/$name.log"; status=1
  fi
done
exit $status
