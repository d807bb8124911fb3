#!/usr/bin/env python3
"""Profiling overheads of one or two pcc binaries, interleaved in one run (docs/PERFORMANCE.md).

    python3 bench/overhead_ab.py PCC RUNS MODES [BENCHMARK ...]

MODES is a comma-separated list of profiling modes, each optionally `MODE@OTHER_PCC` to time
another binary (e.g. one built from an older commit) in the same run. Every suite benchmark
(programs/bench/*.pl and programs/*.pl with a .bench file of arguments) runs at -O2 plain and
under each mode, RUNS times, the runs of one benchmark interleaved; each line gives the plain
user seconds and each mode's median user time over the plain median (system time is page
zeroing, which varies by seconds here) and, in parentheses, its fastest run over the plain
fastest run (a slower neighbour on the host only ever adds time, so on a noisy day the minimums
agree better from run to run), then the geometric means of both.
"""
import glob
import math
import os
import resource
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_seconds(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before


def main():
    pcc, runs, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
    sources = glob.glob(f"{ROOT}/programs/bench/*.pl") + glob.glob(f"{ROOT}/programs/*.pl")
    sources = sorted((s for s in sources if os.path.exists(s[:-3] + ".bench")), key=os.path.basename)
    wanted = sys.argv[4:]
    ratios = {m: [] for m in modes}
    fastest = {m: [] for m in modes}
    for source in sources:
        name = os.path.basename(source)[:-3]
        if wanted and name not in wanted:
            continue
        args = open(source[:-3] + ".bench").read().split()
        times = {m: [] for m in ["plain"] + modes}
        for _ in range(runs):
            for m in ["plain"] + modes:
                mode, _, binary = m.partition("@")
                profile = [] if m == "plain" else [f"--profile={mode}", "--profile-out", "/tmp/overhead_ab.profile.json"]
                times[m].append(user_seconds([binary or pcc, "run", "-O2", *profile, source, "--", *args]))
        plain = statistics.median(times["plain"])
        line = [f"{name} plain {plain:.2f} s"]
        for m in modes:
            ratios[m].append(statistics.median(times[m]) / plain)
            fastest[m].append(min(times[m]) / min(times["plain"]))
            line.append(f"{m} {ratios[m][-1]:.2f} ({fastest[m][-1]:.2f})")
        print(" ".join(line), flush=True)
    for m in modes:
        print(f"geometric mean {m} {geometric_mean(ratios[m]):.2f} ({geometric_mean(fastest[m]):.2f})")


def geometric_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


if __name__ == "__main__":
    main()
