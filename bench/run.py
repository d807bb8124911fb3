#!/usr/bin/env python3
"""Performance harness: builds what it needs, repeats every measurement, reports medians.

    python3 bench/run.py [--runs N] [--out FILE]

Measures (1) compile time of every program in programs/ (`pcc run --emit asm`, which runs the
whole pipeline but not the program), (2) run time of each kernel under pcc -O0 and -O2 against
its C port under gcc -O2, and (3) the overhead of each profiling mode (instrumented / plain run
time at -O2) on loop-heavy programs, with how many functions counted paths in a hash table, and
(4) native executables of those programs (`pcc build -O2`): build time, executable size, and run
time against `pcc run -O2`.
Ratios are of medians measured in this same run. Prints Markdown tables and writes them, with
the machine they ran on, to bench/results.md (or --out).
"""

import argparse
import json
import math
import os
import tempfile
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PCC = ROOT / "target" / "release" / "pcc"
BUILD = ROOT / "target" / "bench"

# (name, PL program, C port, arguments sized for about a second natively)
KERNELS = [
    ("loop_heavy", "programs/loop_heavy.pl", "programs/bench/c/loop_heavy.c", ["15000"]),
]


# (PL program, arguments) whose run time is dominated by loops, for profiling overheads.
PROFILED = [
    ("programs/loop_heavy.pl", ["15000"]),
    ("programs/sieve.pl", ["20000000"]),
    ("programs/nqueens.pl", ["13"]),
    ("programs/mandelbrot.pl", ["600", "400", "800"]),
]
# `ppp` takes its interesting paths from the `bl` profile of the same input, measured just before.
PROFILE_MODES = ["edge", "bl", "ppp"]


def timed(cmd, runs):
    """Median wall time of `runs` executions of cmd, and its stdout (checked to be stable)."""
    times, outputs = [], set()
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(cmd, cwd=ROOT, capture_output=True)
        times.append(time.perf_counter() - start)
        if result.returncode != 0:
            sys.exit(f"failed: {' '.join(map(str, cmd))}\n{result.stderr.decode()}")
        outputs.add(result.stdout)
    if len(outputs) != 1:
        sys.exit(f"output differs between runs of {' '.join(map(str, cmd))}")
    return statistics.median(times), outputs.pop()


def build():
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    BUILD.mkdir(parents=True, exist_ok=True)


def machine():
    cpu = "unknown cpu"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    return f"{platform.machine()}, {cpu}, {os.cpu_count()} cores; {gcc}"


def compile_times(runs):
    programs = sorted((ROOT / "programs").rglob("*.pl"))
    total = 0.0
    for program in programs:
        t, _ = timed([PCC, "run", program.relative_to(ROOT), "-O2", "--emit", "asm"], runs)
        total += t
    return len(programs), total


def kernel_rows(runs):
    rows = []
    for name, pl, c, args in KERNELS:
        exe = BUILD / name
        subprocess.run(["gcc", "-O2", "-o", exe, ROOT / c], check=True)
        t_c, out_c = timed([exe, *args], runs)
        t_o0, out_o0 = timed([PCC, "run", pl, "-O0", "--", *args], runs)
        t_o2, out_o2 = timed([PCC, "run", pl, "-O2", "--", *args], runs)
        if not out_c == out_o0 == out_o2:
            sys.exit(f"{name}: pcc and C outputs differ")
        rows.append((name, t_c, t_o0, t_o2))
    return rows


def profiling_rows(runs):
    """Per program: plain time, then (overhead, hash-table functions) per mode."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for pl, args in PROFILED:
            plain, out_plain = timed([PCC, "run", pl, "-O2", "--", *args], runs)
            per_mode = []
            for mode in PROFILE_MODES:
                out = Path(tmp) / f"{Path(pl).stem}.{mode}.json"
                cmd = [PCC, "run", pl, "-O2", f"--profile={mode}", "--profile-out", out]
                if mode == "ppp":
                    cmd += ["--interesting", Path(tmp) / f"{Path(pl).stem}.bl.json"]
                cmd += ["--", *args]
                t, out_profiled = timed(cmd, runs)
                if out_profiled != out_plain:
                    sys.exit(f"{pl}: output changed under --profile={mode}")
                functions = json.loads(out.read_text())["functions"]
                hashed = sum(1 for f in functions if f["storage"] == "hash")
                per_mode.append((t / plain, hashed))
            rows.append((Path(pl).stem, plain, per_mode))
    return rows


def aot_rows(runs):
    """Per loop-heavy program: build time, executable size, JIT and executable run times."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for pl, args in PROFILED:
            exe = Path(tmp) / Path(pl).stem
            t_build, _ = timed([PCC, "build", pl, "-O2", "-o", exe], runs)
            t_jit, out_jit = timed([PCC, "run", pl, "-O2", "--", *args], runs)
            t_aot, out_aot = timed([exe, *args], runs)
            if out_aot != out_jit:
                sys.exit(f"{pl}: the executable's output differs from pcc run's")
            rows.append((Path(pl).stem, t_build, exe.stat().st_size, t_jit, t_aot))
    return rows


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="repetitions per measurement")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results.md"))
    opts = parser.parse_args()
    build()
    count, total = compile_times(opts.runs)
    lines = [
        f"Machine: {machine()}",
        f"Median of {opts.runs} runs each; times in seconds (pcc times include process start and JIT compilation).",
        "",
        f"Compile time of all {count} programs in programs/ at -O2 (`pcc run --emit asm`, one process each): "
        f"{total:.3f} s total, {1000 * total / count:.1f} ms per program",
        "",
        "| kernel | gcc -O2 | pcc -O0 | pcc -O2 | -O0 / gcc | -O2 / gcc |",
        "|---|---|---|---|---|---|",
    ]
    for name, t_c, t_o0, t_o2 in kernel_rows(opts.runs):
        lines.append(
            f"| {name} | {t_c:.3f} | {t_o0:.3f} | {t_o2:.3f} | {t_o0 / t_c:.2f} | {t_o2 / t_c:.2f} |"
        )
    lines += [
        "",
        "Profiling overhead at -O2 (instrumented / plain run time; `hash` = functions counting paths in a hash table):",
        "",
        "| program | plain (s) | " + " | ".join(f"{m} | {m} hash" for m in PROFILE_MODES) + " |",
        "|---|---|" + "---|---|" * len(PROFILE_MODES),
    ]
    rows = profiling_rows(opts.runs)
    for name, plain, per_mode in rows:
        cells = " | ".join(f"{ratio:.2f} | {hashed}" for ratio, hashed in per_mode)
        lines.append(f"| {name} | {plain:.3f} | {cells} |")
    means = " | ".join(
        f"{geomean([r[2][i][0] for r in rows]):.2f} | " for i in range(len(PROFILE_MODES))
    )
    lines.append(f"| geometric mean | | {means} |".replace("|  |", "| |"))
    lines += [
        "",
        "Native executables (`pcc build -O2`; build = compile + link with `cc`; pcc run includes JIT compilation):",
        "",
        "| program | build (s) | executable (MiB) | pcc run (s) | executable (s) | executable / run |",
        "|---|---|---|---|---|---|",
    ]
    rows = aot_rows(opts.runs)
    for name, t_build, size, t_jit, t_aot in rows:
        lines.append(
            f"| {name} | {t_build:.3f} | {size / 2**20:.1f} | {t_jit:.3f} | {t_aot:.3f} | {t_aot / t_jit:.2f} |"
        )
    lines.append(f"| geometric mean | | | | | {geomean([r[4] / r[3] for r in rows]):.2f} |")
    report = "\n".join(lines) + "\n"
    print(report)
    Path(opts.out).write_text(report)


if __name__ == "__main__":
    main()
