#!/usr/bin/env bash
# Whole-process batch conversion: N hard links to the demo character's DFF (347 KB, 3,978
# vertices) converted by one `rigport convert DIR` with -j 1 and -j 2, REPS times each. Prints
# GNU time's wall, user and system seconds, minor page faults and peak RSS per run, and a cat of
# the same bytes (the whole-process ceiling: reading every input once). BENCHMARKS.md, batch rows.
# Usage: bash scripts/bench_batch.sh [N=1000] [REPS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
reps=${2:-3}
cmake --build build --target rigport_cli >/dev/null
work=build/bench/batch
rm -rf "$work"
mkdir -p "$work/in"
build/rigport demo "$work/demo" --no-validate >/dev/null
for i in $(seq 1 "$n"); do ln "$work/demo/demo_character.dff" "$work/in/c$i.dff"; done
echo "$n files, $(du -sb --apparent-size "$work/demo/demo_character.dff" | cut -f1) bytes each"
for r in $(seq 1 "$reps"); do
  /usr/bin/time -f "cat (ceiling): %e s wall" sh -c "cat $work/in/*.dff > /dev/null"
  for j in 1 2; do
    rm -rf "$work/out"
    /usr/bin/time -f "-j $j: %e s wall, %U s user, %S s sys, %R faults, %M KiB peak" \
      build/rigport convert "$work/in" -o "$work/out" -j "$j" -q
  done
done
