#!/usr/bin/env bash
# Installs dependencies, builds the rigport CLI and runs the main job: `rigport demo` into
# ${1:-out/demo}, which writes the procedural character in every format, reads each back,
# converts each to .glb, validates them and prints the table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)" --target rigport_cli
./build/rigport demo "${1:-out/demo}"
