#!/usr/bin/env python3
"""Benchmark suite: pcc -O2 against gcc -O2 on every programs/bench/NAME.pl with a NAME.bench.

    python3 bench/suite.py [--runs N] [--only NAME ...] [--baseline PCC] [--out FILE]

Each NAME.bench holds the program's arguments, one per line, sized so that the C port
programs/bench/c/NAME.c takes about a second under gcc -O2. Times are CPU seconds (user + system
of the child process), the median of N runs, gcc's and pcc's taking turns, so that other load on
a shared machine matters less than for wall time; pcc's include JIT compilation. The ratio is
pcc -O2 / gcc -O2; the last row is their geometric mean. The outputs of pcc and of the C port
must agree.
With --baseline, another pcc binary (e.g. one built from an older commit) is measured in the same
turns, for before/after ratios. Prints a Markdown table, also written to --out if given.
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


def suite_rows(runs, only, baseline):
    """Per benchmark: name, gcc -O2 seconds, then pcc -O2 seconds of target/release/pcc and, if
    given, of the `baseline` pcc binary."""
    rows = []
    pccs = [PCC] + ([baseline] if baseline else [])
    for bench in sorted(BENCH.glob("*.bench")):
        name = bench.stem
        if only and name not in only:
            continue
        args = bench.read_text().split()
        exe = BUILD / name
        subprocess.run(["gcc", "-O2", "-o", exe, BENCH / "c" / f"{name}.c", "-lm"], check=True)
        cmds = [[exe, *args]] + [[p, "run", BENCH / f"{name}.pl", "-O2", "--", *args] for p in pccs]
        results = median_cpus(cmds, runs)
        if len({out for _, out in results}) != 1:
            sys.exit(f"{name}: pcc and C outputs differ")
        times = [t for t, _ in results]
        rows.append((name, times))
        ratios = ", ".join(f"{t / times[0]:.2f}" for t in times[1:])
        print(f"{name}: gcc {times[0]:.3f} s, pcc / gcc {ratios}", file=sys.stderr)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="repetitions per measurement")
    parser.add_argument("--only", nargs="*", default=[], help="benchmark names to run")
    parser.add_argument("--baseline", help="another pcc binary to measure in the same turns")
    parser.add_argument("--out", help="also write the table to this file")
    opts = parser.parse_args()
    build()
    rows = suite_rows(opts.runs, set(opts.only), opts.baseline)
    base = ["baseline -O2", "baseline / gcc"] if opts.baseline else []
    header = ["benchmark", "gcc -O2", "pcc -O2", "pcc / gcc"]
    header[2:2] = base[:1]
    header += base[1:]
    lines = [
        f"Machine: {machine()}",
        f"Median of {opts.runs} runs each; CPU seconds (pcc's include JIT compilation).",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for name, (t_c, t_pcc, *t_base) in rows:
        cells = [name, f"{t_c:.3f}"] + [f"{t:.3f}" for t in t_base] + [f"{t_pcc:.3f}"]
        cells += [f"{t_pcc / t_c:.2f}"] + [f"{t / t_c:.2f}" for t in t_base]
        lines.append("| " + " | ".join(cells) + " |")
    means = [geomean([ts[i] / ts[0] for _, ts in rows]) for i in range(1, len(rows[0][1]))]
    cells = ["geometric mean"] + [""] * (len(header) - 1 - len(means)) + [f"{m:.2f}" for m in means]
    lines.append("| " + " | ".join(cells) + " |")
    report = "\n".join(lines) + "\n"
    print(report)
    if opts.out:
        Path(opts.out).write_text(report)


if __name__ == "__main__":
    main()
