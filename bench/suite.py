#!/usr/bin/env python3
"""Benchmark suite: pcc -O2 against gcc -O2 on every programs/bench/NAME.pl with a NAME.bench.

    python3 bench/suite.py [--runs N] [--only NAME ...] [--out FILE]

Each NAME.bench holds the program's arguments, one per line, sized so that the C port
programs/bench/c/NAME.c takes about a second under gcc -O2. Times are CPU seconds (user + system
of the child process), the median of N runs, gcc's and pcc's taking turns, so that other load on
a shared machine matters less than for wall time; pcc's include JIT compilation. The ratio is
pcc -O2 / gcc -O2; the last row is their geometric mean. The outputs of pcc and of the C port
must agree.
Prints a Markdown table, also written to --out if given.
"""

import argparse
import resource
import statistics
import subprocess
import sys
from pathlib import Path

from run import BUILD, PCC, ROOT, build, geomean, machine

BENCH = ROOT / "programs" / "bench"


def cpu_time(cmd):
    """CPU seconds (user + system) and stdout of one run of cmd."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{result.stderr.decode()}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, result.stdout


def median_cpus(cmds, runs):
    """Per command, the median CPU seconds of `runs` executions and its stdout (checked to be
    stable). The commands take turns, so that both see the same load on a busy machine."""
    times = [[] for _ in cmds]
    outputs = [set() for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            t, out = cpu_time(cmd)
            times[i].append(t)
            outputs[i].add(out)
    for cmd, outs in zip(cmds, outputs):
        if len(outs) != 1:
            sys.exit(f"output differs between runs of {' '.join(map(str, cmd))}")
    return [(statistics.median(t), outs.pop()) for t, outs in zip(times, outputs)]


def suite_rows(runs, only):
    """Per benchmark: (name, gcc -O2 seconds, pcc -O2 seconds)."""
    rows = []
    for bench in sorted(BENCH.glob("*.bench")):
        name = bench.stem
        if only and name not in only:
            continue
        args = bench.read_text().split()
        exe = BUILD / name
        subprocess.run(["gcc", "-O2", "-o", exe, BENCH / "c" / f"{name}.c", "-lm"], check=True)
        pcc = [PCC, "run", BENCH / f"{name}.pl", "-O2", "--", *args]
        (t_c, out_c), (t_pcc, out_pcc) = median_cpus([[exe, *args], pcc], runs)
        if out_c != out_pcc:
            sys.exit(f"{name}: pcc and C outputs differ")
        rows.append((name, t_c, t_pcc))
        print(f"{name}: gcc {t_c:.3f} s, pcc {t_pcc:.3f} s, {t_pcc / t_c:.2f}", file=sys.stderr)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="repetitions per measurement")
    parser.add_argument("--only", nargs="*", default=[], help="benchmark names to run")
    parser.add_argument("--out", help="also write the table to this file")
    opts = parser.parse_args()
    build()
    rows = suite_rows(opts.runs, set(opts.only))
    lines = [
        f"Machine: {machine()}",
        f"Median of {opts.runs} runs each; CPU seconds (pcc's include JIT compilation).",
        "",
        "| benchmark | gcc -O2 | pcc -O2 | pcc / gcc |",
        "|---|---|---|---|",
    ]
    lines += [f"| {name} | {t_c:.3f} | {t_pcc:.3f} | {t_pcc / t_c:.2f} |" for name, t_c, t_pcc in rows]
    lines.append(f"| geometric mean | | | {geomean([p / c for _, c, p in rows]):.2f} |")
    report = "\n".join(lines) + "\n"
    print(report)
    if opts.out:
        Path(opts.out).write_text(report)


if __name__ == "__main__":
    main()
