#!/usr/bin/env python3
"""Paired whole-process timing with public tools, as BENCHMARKS.md's ratios are measured.

Command A and command B (the floor, or another build) run in turn, A B A B ..., N times each after
one warm-up; each run's wall time (a monotonic clock around it) and CPU time (user + system, from
wait4's resource usage, in microseconds) are taken; the ratio A/B is taken pair by pair and its
median printed, with each command's medians. Pairing keeps a ratio meaningful when the machine's
speed drifts during the run; the medians keep one slow pair from moving it.

    python3 scripts/bench_pair.py [-n N] --vs "B ARGS..." -- A ARGS...

B is one string split as the shell splits words (no pipes or redirections: use sh -c '...'). The
commands' own output is thrown away; a command that fails stops the run with its exit status.
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(argv):
    """One run of argv: (wall seconds, CPU seconds)."""
    start = time.monotonic()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"bench_pair.py: exit {child.returncode}: {shlex.join(argv)}")
    return wall, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description="Paired whole-process timing: A against B, in turn.")
    parser.add_argument("-n", type=int, default=15, help="pairs counted (after one warm-up each)")
    parser.add_argument("--vs", required=True, help="command B, one string split as the shell splits words")
    parser.add_argument("a", nargs=argparse.REMAINDER, help="-- then command A")
    args = parser.parse_args()
    a = args.a[1:] if args.a[:1] == ["--"] else args.a
    if not a:
        parser.error("command A is missing (after --)")
    b = shlex.split(args.vs)
    run(a), run(b)  # warm-up: page cache, the dynamic loader's caches
    pairs = [(run(a), run(b)) for _ in range(args.n)]
    med = statistics.median
    print(f"pairs {args.n}")
    print(f"A wall s {med(p[0][0] for p in pairs):.4f}  cpu s {med(p[0][1] for p in pairs):.4f}  {shlex.join(a)}")
    print(f"B wall s {med(p[1][0] for p in pairs):.4f}  cpu s {med(p[1][1] for p in pairs):.4f}  {shlex.join(b)}")
    wall = med(p[0][0] / p[1][0] for p in pairs)
    cpu = med(p[0][1] / p[1][1] for p in pairs if p[1][1] > 0)
    print(f"A/B wall {wall:.3f}  cpu {cpu:.3f}  (medians of the pair ratios)")


if __name__ == "__main__":
    main()
