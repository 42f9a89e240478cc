#!/usr/bin/env bash
# Size and load time of the `rigport view` page for the export benchmark's rig (the demo character
# at 1,000,000 vertices, 4 influences, 256 bones, 10,000 keys, as bench/gltf_export_bench.cpp builds
# it) in headless Chromium. The figures in BENCHMARKS.md ("rigport view page") come from this script.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target rigport_cli >/dev/null
mkdir -p build/bench
/usr/bin/time -f "rigport view: %e s, peak RSS %M KiB" build/rigport view --demo --demo-vertices 1000000 \
  --demo-bones 256 --demo-keys 10000 -o build/bench/view_1m.html
node tools/view_load_time.mjs build/bench/view_1m.html "${1:-3}"
