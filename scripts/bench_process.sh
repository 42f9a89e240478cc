#!/usr/bin/env bash
# Whole-process figures (BENCHMARKS.md, "Whole process"): `rigport info` and `rigport convert` on the
# benchmarks' own inputs (bench_inputs: the 9.46 MB DFF, the 6.8 MB PS3 arena, the 6.2 MB Sluggers
# block), timed by hyperfine beside a `cat` of the same file and beside process_floor (bench/
# process_floor.cpp: a process that only maps the input, copies it once and writes a file of the
# output's size atomically), then each command's peak RSS and page faults from GNU time. Inputs and outputs live on tmpfs (/dev/shm) so that the figures are
# rigport's, not the disk's. Usage: bash scripts/bench_process.sh [RUNS=20]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
command -v hyperfine >/dev/null || { echo "hyperfine is missing: run scripts/setup.sh" >&2; exit 1; }
cmake --build build --target rigport_cli bench_inputs process_floor >/dev/null
dir=/dev/shm/rigport-bench-process
rm -rf "$dir"
mkdir -p "$dir/out"
build/bench/bench_inputs "$dir"
for f in skinned.dff skinned.psg block.sluggers; do
  in="$dir/$f"
  echo "== $f ($(stat -c %s "$in") bytes)"
  build/rigport convert "$in" -o "$dir/out/out.glb" --overwrite -q
  hyperfine -N -w 3 -r "$runs" \
    "cat $in" \
    "build/bench/process_floor $in $dir/out/floor.glb $(stat -c %s "$dir/out/out.glb")" \
    "build/rigport info $in" \
    "build/rigport convert $in -o $dir/out/out.glb --overwrite -q" 2>&1 | grep -E "Benchmark|Time"
  echo "output: $(stat -c %s "$dir/out/out.glb") bytes"
  /usr/bin/time -f "info: peak RSS %M KiB, %R minor faults" build/rigport info "$in" >/dev/null
  /usr/bin/time -f "convert: peak RSS %M KiB, %R minor faults" build/rigport convert "$in" -o "$dir/out/out.glb" --overwrite -q
done
/usr/bin/time -f "baseline (rigport formats): peak RSS %M KiB" build/rigport formats >/dev/null
rm -rf "$dir"
