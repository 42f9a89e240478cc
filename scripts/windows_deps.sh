#!/usr/bin/env bash
# The Windows cross build's compiled dependencies, built with MinGW-w64 into PREFIX (scripts/windows.sh
# passes build-windows/deps) and kept there: a library whose archive is already there is not rebuilt.
#   zlib        Debian's libz-mingw-w64-dev (scripts/windows.sh installs it)
#   libpng      Debian's source package libpng1.6, cross-built with its own CMake build
#   libsquish   Debian's source package libsquish, likewise
#   GoogleTest  Debian's googletest package (/usr/src/googletest), for the test programs
# Debian has no MinGW build of libpng or libsquish, so their sources come through apt from the
# archive the host installs from (deb-src lines for bookworm in a private apt state under PREFIX;
# the host's apt configuration is not touched). The version taken is the one the Linux build links
# (its -dev package), so PNGs compress the same on both sides; if the archive no longer holds it,
# the bookworm release's.
set -euo pipefail
PREFIX=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLCHAIN=$ROOT/cmake/mingw-w64.cmake
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
WORK=$PREFIX/work
log() { echo "windows_deps.sh: $*"; }

cross_cmake() {  # source folder, build folder, extra -D flags
  local src=$1 build=$2; shift 2
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$PREFIX" -DRIGPORT_MINGW_PREFIX="$PREFIX" "$@" >"$build.log" 2>&1
  cmake --build "$build" -j"${JOBS:-2}" >>"$build.log" 2>&1
  cmake --install "$build" >>"$build.log" 2>&1
}

APT_STATE=$WORK/apt
APT=(-o Dir::Etc::SourceList="$APT_STATE/sources.list" -o Dir::Etc::SourceParts=/nonexistent
     -o Dir::State::Lists="$APT_STATE/lists" -o Dir::Cache="$APT_STATE/cache" -o Debug::NoLocking=1
     -o APT::Sandbox::User=root)
apt_sources() {  # the source index of the suites the host's Debian 12 installs from, fetched once
  [ -f "$APT_STATE/sources.list" ] && return
  mkdir -p "$APT_STATE/lists/partial" "$APT_STATE/cache/archives/partial"
  cat >"$APT_STATE/sources.list.new" <<'EOF'
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian bookworm-updates main
deb-src http://deb.debian.org/debian-security bookworm-security main
EOF
  mv "$APT_STATE/sources.list.new" "$APT_STATE/sources.list"
  apt-get "${APT[@]}" update -qq || { rm -f "$APT_STATE/sources.list"; return 1; }
}

unpack_source() {  # source package, the Linux build's -dev package; prints the unpacked folder
  local package=$1 linux_dev=$2 dir=$WORK/src/$1 version
  version=$(dpkg-query -W -f='${source:Version}' "$linux_dev")
  rm -rf "$dir" && mkdir -p "$dir"
  ( cd "$dir" && { apt-get "${APT[@]}" source -qq "$package=$version" ||
                   apt-get "${APT[@]}" source -qq "$package/bookworm"; } ) >"$dir.log" 2>&1 ||
    { log "apt-get source $package failed (log: $dir.log)" >&2; return 1; }
  find "$dir" -mindepth 1 -maxdepth 1 -type d
}

if [ ! -f "$PREFIX/lib/libpng16.a" ]; then
  apt_sources
  src=$(unpack_source libpng1.6 libpng-dev)
  log "building $(basename "$src") (log: $WORK/libpng.log)"
  cross_cmake "$src" "$WORK/libpng" -DPNG_SHARED=OFF -DPNG_STATIC=ON -DPNG_TESTS=OFF -DPNG_EXECUTABLES=OFF
fi
if [ ! -f "$PREFIX/lib/libsquish.a" ]; then
  apt_sources
  src=$(unpack_source libsquish libsquish-dev)
  log "building $(basename "$src") (log: $WORK/libsquish.log)"
  cross_cmake "$src" "$WORK/libsquish" -DBUILD_SHARED_LIBS=OFF
fi
if [ ! -f "$PREFIX/lib/libgtest.a" ]; then
  log "building GoogleTest from /usr/src/googletest (log: $WORK/googletest.log)"
  mkdir -p "$WORK"
  cross_cmake /usr/src/googletest "$WORK/googletest" -DBUILD_GMOCK=OFF -Dgtest_disable_pthreads=ON
fi
