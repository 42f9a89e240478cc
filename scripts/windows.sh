#!/usr/bin/env bash
# The Windows build, checked under Wine: `bash scripts/windows.sh` (installs what it needs with apt).
#  1. Cross-compiles the library and the CLI for 64-bit Windows with MinGW-w64 (cmake/mingw-w64.cmake)
#     into build-windows/rigport.exe (static: no MinGW DLL needed), with zlib from Debian's MinGW
#     package and libpng, libsquish and GoogleTest cross-built from Debian's sources by
#     scripts/windows_deps.sh into build-windows/deps (kept between runs).
#  2. Under Wine, converts every sample of tests/data/samples one by one and fails unless each run's
#     exit status and output bytes equal the Linux CLI's (build/rigport, or $RIGPORT_LINUX).
#  3. scripts/windows_tests.sh: cross-builds the GoogleTest programs and runs them under Wine
#     (WINDOWS_TESTS=0 leaves this step out).
# `--ci` is CI's run (CTest's windows_wine, tests/windows_wine.cmake): the same three steps in
# build-windows-ci, compiled at -O1 with assertions on (cold, the library and CLI took 711
# CPU-seconds against 823 at Release's -O3; -O0 is no faster).
# Not built here: the benchmarks and fuzz targets.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

need=()
# wine: the `wine` and `wineboot` commands; googletest: its sources; dpkg-dev: `apt-get source`
for p in g++-mingw-w64-x86-64-posix wine wine64 libz-mingw-w64-dev googletest dpkg-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

BUILD=$ROOT/build-windows
FLAGS=(-DCMAKE_BUILD_TYPE=Release)
if [ "${1:-}" = --ci ]; then
  BUILD=$ROOT/build-windows-ci
  # No build type: neither Release's -O3 nor NDEBUG.
  FLAGS=(-DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O1)
fi
export WINDOWS_BUILD=$BUILD
DEPS=$ROOT/build-windows/deps  # one set for both builds
JOBS=${JOBS:-$(nproc)}
export JOBS
bash scripts/windows_deps.sh "$DEPS"
LAUNCHER=()
command -v ccache >/dev/null 2>&1 && LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/mingw-w64.cmake" \
      -DRIGPORT_MINGW_PREFIX="$DEPS" "${FLAGS[@]}" -DRIGPORT_BUILD_BENCH=OFF "${LAUNCHER[@]}"
cmake --build "$BUILD" --target rigport_cli -j"$JOBS"

LINUX=${RIGPORT_LINUX:-$ROOT/build/rigport}
if [ ! -x "$LINUX" ]; then
  echo "windows.sh: no Linux CLI at $LINUX to compare with (build it, or set RIGPORT_LINUX)" >&2
  exit 1
fi

# A throwaway Wine prefix in the build dir; wineboot makes it once.
export WINEPREFIX=$BUILD/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
[ -d "$WINEPREFIX" ] || wineboot --init >/dev/null 2>&1
# One wineserver for the whole run, stopped at the end: an idle server shuts down between two
# programs, and a program that started as it did ended at once with "wine client error:0: recvmsg:
# Connection reset by peer" (one program of 62, once). `-p` refuses (exit 2) while another server
# runs for the prefix, as wineboot's still does: that one is stopped first.
wineserver -k 2>/dev/null || true
wineserver -p
trap 'wineserver -k 2>/dev/null || true' EXIT

# Every file of a format rigport reads (notes, dumps and expected-value files are not inputs). Each
# is converted alone, so a clip that needs --skeleton must fail the same way on both sides.
OUT=$BUILD/identity
rm -rf "$OUT"
failed=0 compared=0
while IFS= read -r sample; do
  rel=${sample#tests/data/samples/}
  mkdir -p "$OUT/linux/$rel" "$OUT/wine/$rel"
  set +e
  "$LINUX" convert -q -j1 "$sample" -o "$OUT/linux/$rel" >/dev/null 2>&1; linux_rc=$?
  wine "$BUILD/rigport.exe" convert -q -j1 "$sample" -o "${OUT#"$ROOT"/}/wine/$rel" >/dev/null 2>&1; wine_rc=$?
  set -e
  if [ "$linux_rc" != "$wine_rc" ]; then
    echo "DIFFERENT: $rel: exit status $linux_rc on Linux, $wine_rc under Wine"; failed=1; continue
  fi
  if ! diff -r "$OUT/linux/$rel" "$OUT/wine/$rel" >/dev/null; then
    echo "DIFFERENT: $rel:"; { diff -rq "$OUT/linux/$rel" "$OUT/wine/$rel" || true; } | sed 's/^/  /'; failed=1; continue
  fi
  compared=$((compared + 1))
  echo "same: $rel (exit $linux_rc, $(find "$OUT/linux/$rel" -type f | wc -l) file(s))"
done < <(find tests/data/samples -type f ! -name '*.md' ! -name '*.txt' ! -name '*.json' ! -name '*.py' | sort)

if [ "$failed" != 0 ]; then
  echo "windows.sh: rigport.exe under Wine wrote different output (above)" >&2
  exit 1
fi
echo "windows.sh: $compared samples, identical exit status and output bytes on Linux and under Wine"

[ "${WINDOWS_TESTS:-1}" = 0 ] || bash scripts/windows_tests.sh
