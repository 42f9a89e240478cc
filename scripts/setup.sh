#!/usr/bin/env bash
# Installs every dependency rigport needs on a fresh Debian 12 machine: apt packages, then npm packages
# from the committed package.json + package-lock.json. Safe to run more than once.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  g++ clang cmake ninja-build pkg-config time
  libfmt-dev libcli11-dev nlohmann-json3-dev libtinygltf-dev libglm-dev rapidjson-dev
  libsquish-dev libpng-dev zlib1g-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  blender python3-numpy libclang-rt-14-dev gltfpack
  pybind11-dev python3-dev
  chromium hyperfine
  # the Windows build under Wine (scripts/windows.sh; CTest's windows_wine): MinGW-w64, Wine, zlib
  # for MinGW, and dpkg-dev for `apt-get source` of libpng and libsquish (scripts/windows_deps.sh)
  g++-mingw-w64-x86-64-posix wine wine64 libz-mingw-w64-dev dpkg-dev
)
# Node.js: some images ship NodeSource's nodejs (which bundles npm and conflicts with Debian's npm
# package); only a machine without npm gets Debian's nodejs + npm.
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(nodejs npm)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -d node_modules/gltf-validator ] || [ ! -d node_modules/esbuild ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
