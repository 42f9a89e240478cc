#!/usr/bin/env bash
# Installs dependencies, builds everything and runs every test (unit, format, glTF-Validator,
# Blender import, CLI, fuzz smoke) through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
