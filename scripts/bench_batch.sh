#!/usr/bin/env bash
# Whole-process batch conversion: N hard links to the demo character's DFF (347 KB, 3,978
# vertices) converted by one `rigport convert DIR` with -j 1 and -j 2, timed by hyperfine (REPS
# runs each, the output folder removed before every run), then peak RSS and page faults from GNU
# time, and a cat of the same bytes (the whole-process ceiling: reading every input once). Inputs
# and outputs live on tmpfs (/dev/shm): on ext4, creating and deleting thousands of files in one
# folder costs more than converting them, and varies with the folder's history.
# BENCHMARKS.md, batch rows. Usage: bash scripts/bench_batch.sh [N=1000] [REPS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
reps=${2:-5}
command -v hyperfine >/dev/null || { echo "hyperfine is missing: run scripts/setup.sh" >&2; exit 1; }
cmake --build build --target rigport_cli >/dev/null
work=/dev/shm/rigport-bench-batch
rm -rf "$work"
mkdir -p "$work/in"
build/rigport demo "$work/demo" --no-validate >/dev/null
for i in $(seq 1 "$n"); do ln "$work/demo/demo_character.dff" "$work/in/c$i.dff"; done
echo "$n files, $(stat -c %s "$work/demo/demo_character.dff") bytes each"
hyperfine -N -w 1 -r "$reps" --prepare "rm -rf $work/out" \
  "build/rigport convert $work/in -o $work/out -j 1 -q" \
  "build/rigport convert $work/in -o $work/out -j 2 -q" 2>&1 | grep -E "Benchmark|Time|faster"
/usr/bin/time -f "cat (ceiling): %e s wall" sh -c "cat $work/in/*.dff > /dev/null"
for j in 1 2; do
  rm -rf "$work/out"
  /usr/bin/time -f "-j $j: %e s wall, %U s user, %S s sys, %R faults, %M KiB peak" \
    build/rigport convert "$work/in" -o "$work/out" -j "$j" -q
done
rm -rf "$work"
