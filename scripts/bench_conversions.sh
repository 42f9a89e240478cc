#!/usr/bin/env bash
# Issue 30's table in one run: every conversion of BENCHMARKS.md's "conversions against
# process_floor" section, each paired with its own floor (bench/process_floor.cpp: map the input,
# copy it once, write the output's bytes through the CLI's atomic writer) by scripts/bench_pair.py,
# N pairs a row, rows one after the other, so that every ratio in the table comes from the same run
# and the same machine state. Then each convert's peak resident set (GNU time, one run). Inputs and
# outputs on tmpfs. Prints the table as Markdown rows.
#   bash scripts/bench_conversions.sh [N=15]          (RIGPORT=path/to/rigport to time another build)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-15}
rigport=${RIGPORT:-build/rigport}
cmake --build build --target rigport_cli bench_inputs process_floor >/dev/null
# The convert and its floor are timed from copies made here, on the repository's file system: a
# binary as the linker wrote it starts slower than a copy of it (on this machine's ext4, 1.15x the
# time for the small CLIP's convert, with 230 page faults against 211, and 1.05x for the DFF's), and
# one on tmpfs slower still (1.17x), so both programs are read from the page cache alike whatever
# build RIGPORT names.
bin=build/bench-copies
rm -rf "$bin"
mkdir -p "$bin"
cp "$rigport" "$bin/rigport"
cp build/bench/process_floor "$bin/process_floor"
rigport=$bin/rigport
floor=$bin/process_floor
d=/dev/shm/rigport-bench-conversions
o=$d/out
rm -rf "$d"
mkdir -p "$o"
build/bench/bench_inputs "$d" >/dev/null
"$rigport" convert "$d/skinned.dff" -o "$d/sk.glb" -q
# The batch: 1,000 hard links to the demo character's DFF (347 KB), as scripts/bench_batch.sh.
"$rigport" demo "$d/demo" --no-validate >/dev/null
mkdir -p "$d/batch"
for i in $(seq 1 1000); do ln "$d/demo/demo_character.dff" "$d/batch/c$i.dff"; done

# bytes PATH: the size of a file, or the sum of a folder's files.
bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }'; }

# ratio FLOOR -- CONVERT...: "wall (cpu cpu)" of the convert against FLOOR, medians of n pairs.
ratio() {
  local floor=$1
  shift 2
  python3 scripts/bench_pair.py -n "$n" --vs "$floor" -- "$@" |
    awk '/^A\/B/ { printf "%s (cpu %s)", $3, $5 }'
}

peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.1f MiB", $1 / 1024 }'; }

# row NAME OUTPUT INPUT -- CONVERT ARGUMENTS...: one table row against the one-file floor.
row() {
  local name=$1 out=$2 in=$3
  shift 4
  "$rigport" "$@" >/dev/null
  local size
  size=$(bytes "$out")
  local r
  r=$(ratio "$floor $in $o/floor.bin $size" -- "$rigport" "$@")
  local args="$*"
  echo "| $name | \`${args//$d/\$d}\` | $size | $r | $(peak "$rigport" "$@") |"
}

echo "d=$d; pairs a row: $n; $(date -u '+%Y-%m-%d %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg); $("$rigport" --version)"
echo "| conversion | convert arguments | BYTES | convert / floor: wall (cpu) | peak |"
echo "|---|---|---|---|---|"
row "DFF (9.46 MB) -> GLB" "$o/dff.glb" "$d/skinned.dff" -- convert "$d/skinned.dff" -o "$o/dff.glb" --overwrite -q
row "glTF -> DFF, with the read-back check" "$o/x.dff" "$d/sk.glb" -- convert "$d/sk.glb" --to renderware-dff -o "$o/x.dff" --overwrite -q
row "RW4 PS3 arena (6.81 MB) -> GLB" "$o/psg.glb" "$d/skinned.psg" -- convert "$d/skinned.psg" -o "$o/psg.glb" --overwrite -q
row "Sluggers block (6.16 MB) -> GLB" "$o/sluggers.glb" "$d/block.sluggers" -- convert "$d/block.sluggers" -o "$o/sluggers.glb" --overwrite -q
row "BattleForge DRS (8.16 MB) -> GLB" "$o/drs.glb" "$d/unit.drs" -- convert "$d/unit.drs" -o "$o/drs.glb" --overwrite -q
row "Sims 3 CLIP, 100,000 keys (1.00 MB)" "$o/clip.glb" "$d/clip100k.clip" -- convert "$d/clip100k.clip" -o "$o/clip.glb" --overwrite -q
row "Sims 3 CLIP, 20 tracks x 30 frames (13 KB)" "$o/small.glb" "$d/small.clip" -- convert "$d/small.clip" -o "$o/small.glb" --overwrite -q
row "Sims 3 package, RIG + 500 clips (4.40 MB) -> 500 GLBs" "$o/pkg" "$d/package500.package" -- convert "$d/package500.package" -o "$o/pkg" --overwrite -q
size=$(bytes "$o/pkg")
echo "| the same against the 500-file floor (\`process_floor IN OUT $size 500\`) | | | $(ratio "$floor $d/package500.package $o/floors $size 500" -- "$rigport" convert "$d/package500.package" -o "$o/pkg" --overwrite -q) | |"
row "RenderWare .anm, 64 nodes x 5,000 frames (11.5 MB)" "$o/anm.glb" "$d/long.anm" -- convert "$d/anm_skeleton.dff" --anim "$d/long.anm" -o "$o/anm.glb" --overwrite -q
row "GTA IFP, 1,000 clips (27.2 MB)" "$o/ifp.glb" "$d/package.ifp" -- convert "$d/ifp_skeleton.dff" --anim "$d/package.ifp" -o "$o/ifp.glb" --overwrite -q
row "textured DFF + TXD (0.43 + 2.88 MB) -> GLB with PNGs" "$o/textured.glb" "$d/textured.dff" -- convert "$d/textured.dff" -o "$o/textured.glb" --overwrite -q
"$rigport" convert "$d/batch" -o "$o/batch" -j 1 --overwrite -q
echo "| 1,000 DFFs of 347 KB, \`convert DIR -j 1\`, against \`cat\` of them | \`convert \$d/batch -o \$d/out/batch -j 1 --overwrite -q\` | $(bytes "$o/batch") | $(ratio "sh -c 'cat $d/batch/*.dff >/dev/null'" -- "$rigport" convert "$d/batch" -o "$o/batch" -j 1 --overwrite -q) | $(peak "$rigport" convert "$d/batch" -o "$o/batch" -j 1 --overwrite -q) |"
size=$(bytes "$o/batch")
echo "| the same against a 1,000-file floor (\`process_floor \$d/demo/demo_character.dff OUT $size 1000\`: one input mapped, the outputs' bytes written as 1,000 files) | | | $(ratio "$floor $d/demo/demo_character.dff $o/floors $size 1000" -- "$rigport" convert "$d/batch" -o "$o/batch" -j 1 --overwrite -q) | |"
rm -rf "$d"
