#!/usr/bin/env python3
"""Performance harness: builds what it needs, repeats every measurement, reports medians.

    python3 bench/run.py [--runs N] [--out FILE]

Measures (1) compile time of every program in programs/ (`pcc run --emit asm`, which runs the
whole pipeline but not the program), (2) run time of each kernel under pcc -O0 and -O2 against
its C port under gcc -O2, and (3) the overhead of each profiling mode (instrumented / plain run
time at -O2) on loop-heavy programs, with how many functions counted paths in a hash table; for
`ppp` the compactness rho of each function, for `tpp` the attribution of definite flow against
the `bl` profile of the same input (`pcc profile aodf`) and the functions that moved from a hash
table (`bl`) to an array or to no counters at all (`tpp`);
for `wpp` the trace length and compression (trace length / grammar size) of each run, and (4) the
throughput of SEQUITUR(1) on synthetic traces (`cargo bench -p pcc-profiler --bench sequitur`).
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
    # 20 stacked conditionals, 17 of them biased (003 Fig. 5): a hash table under `bl`.
    ("tests/fixtures/tpp/biased_stack.pl", ["15000000"]),
]
# `ppp` takes its interesting paths from the `bl` profile of the same input, and `tpp` its cold
# edges and obvious paths from the `edge` profile of the same input, both measured just before.
PROFILE_MODES = ["edge", "bl", "ppp", "tpp"]
# The same programs with smaller inputs for `wpp`, whose cost grows with the trace (one symbol per
# acyclic path, compressed on line by SEQUITUR(1)) rather than with the run time.
WPP_PROFILED = [
    ("programs/loop_heavy.pl", ["2000"]),
    ("programs/sieve.pl", ["2000000"]),
    ("programs/nqueens.pl", ["10"]),
    ("programs/mandelbrot.pl", ["200", "150", "800"]),
]
# Symbols per synthetic trace of the SEQUITUR(1) benchmark.
SEQUITUR_SYMBOLS = 20_000_000


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
    """Per program: plain time, (overhead, hash-table functions) per mode, and the accuracy
    figures: ppp's rho per function, tpp's AoDF, the functions tpp moved from a hash table."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for pl, args in PROFILED:
            plain, out_plain = timed([PCC, "run", pl, "-O2", "--", *args], runs)
            per_mode, profiles = [], {}
            for mode in PROFILE_MODES:
                out = Path(tmp) / f"{Path(pl).stem}.{mode}.json"
                cmd = [PCC, "run", pl, "-O2", f"--profile={mode}", "--profile-out", out]
                if mode == "ppp":
                    cmd += ["--interesting", Path(tmp) / f"{Path(pl).stem}.bl.json"]
                if mode == "tpp":
                    cmd += ["--edge-profile", Path(tmp) / f"{Path(pl).stem}.edge.json"]
                cmd += ["--", *args]
                t, out_profiled = timed(cmd, runs)
                if out_profiled != out_plain:
                    sys.exit(f"{pl}: output changed under --profile={mode}")
                profiles[mode] = out
                functions = json.loads(out.read_text())["functions"]
                hashed = sum(1 for f in functions if f["storage"] == "hash")
                per_mode.append((t / plain, hashed))
            rows.append((Path(pl).stem, plain, per_mode, accuracy(profiles)))
    return rows


def wpp_rows(runs):
    """Per program: args, plain and wpp times, and the whole program path's size."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for pl, args in WPP_PROFILED:
            plain, out_plain = timed([PCC, "run", pl, "-O2", "--", *args], runs)
            out = Path(tmp) / "wpp.json"
            cmd = [PCC, "run", pl, "-O2", "--profile=wpp", "--profile-out", out, "--", *args]
            t, out_wpp = timed(cmd, runs)
            if out_wpp != out_plain:
                sys.exit(f"{pl}: output changed under --profile=wpp")
            wpp = json.loads(out.read_text())["wpp"]
            size = sum(len(rule) for rule in wpp["rules"])
            rows.append((Path(pl).stem, " ".join(args), plain, t, wpp["trace_length"],
                         len(wpp["symbols"]), size, len(wpp["rules"])))
    return rows


def sequitur_rows():
    """One JSON object per synthetic trace, from the SEQUITUR(1) benchmark (release build)."""
    result = subprocess.run(
        ["cargo", "bench", "--quiet", "-p", "pcc-profiler", "--bench", "sequitur", "--",
         str(SEQUITUR_SYMBOLS)],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def accuracy(profiles):
    """ppp's rho per function, tpp's AoDF against bl (percent), and the functions stored in a
    hash table under bl but not under tpp."""
    ppp = json.loads(profiles["ppp"].read_text())["functions"]
    rho = {f["name"]: f["rho"] for f in ppp if f.get("rho") is not None}
    aodf = subprocess.run(
        [PCC, "profile", "aodf", profiles["tpp"], profiles["bl"], "--format", "json"],
        cwd=ROOT, capture_output=True, check=True,
    )
    storage = {
        mode: {f["name"]: f["storage"] for f in json.loads(profiles[mode].read_text())["functions"]}
        for mode in ("bl", "tpp")
    }
    moved = sorted(
        name for name, s in storage["bl"].items() if s == "hash" and storage["tpp"].get(name) != "hash"
    )
    return rho, json.loads(aodf.stdout)["percent"], moved


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
    for name, plain, per_mode, _ in rows:
        cells = " | ".join(f"{ratio:.2f} | {hashed}" for ratio, hashed in per_mode)
        lines.append(f"| {name} | {plain:.3f} | {cells} |")
    means = " | ".join(
        f"{geomean([r[2][i][0] for r in rows]):.2f} | " for i in range(len(PROFILE_MODES))
    )
    lines.append(f"| geometric mean | | {means} |".replace("|  |", "| |"))
    lines += [
        "",
        "Accuracy: ppp's compactness rho (PPP range / interesting paths) per function; tpp's attribution "
        "of definite flow against the bl profile of the same input (`pcc profile aodf`, TPP(5, 15)); "
        "functions in a hash table under bl and not under tpp:",
        "",
        "| program | ppp rho per function | tpp AoDF | hash → array |",
        "|---|---|---|---|",
    ]
    for name, _, _, (rho, aodf, moved) in rows:
        rhos = ", ".join(f"{f} {r:.2f}" for f, r in sorted(rho.items()))
        lines.append(f"| {name} | {rhos} | {aodf:.2f}% | {len(moved)} {' '.join(moved)} |")
    aodfs = [r[3][1] for r in rows]
    moved_total = sum(len(r[3][2]) for r in rows)
    lines.append(
        f"| geometric mean | | {geomean(aodfs):.2f}% | {moved_total} in all |"
    )
    lines += [
        "",
        "`wpp` at -O2 on smaller inputs (overhead = wpp / plain run time; compression = trace length "
        "/ grammar size, in symbols; paths/s = trace length / wpp run time):",
        "",
        "| program | args | plain (s) | wpp (s) | overhead | trace (acyclic paths) | distinct | "
        "grammar symbols | rules | compression | M paths/s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    wrows = wpp_rows(opts.runs)
    for name, args, plain, t, trace, distinct, size, rules in wrows:
        lines.append(
            f"| {name} | {args} | {plain:.3f} | {t:.3f} | {t / plain:.1f} | {trace} | {distinct} | "
            f"{size} | {rules} | {trace / max(size, 1):.1f} | {trace / t / 1e6:.2f} |"
        )
    lines.append(
        f"| geometric mean | | | | {geomean([r[3] / r[2] for r in wrows]):.1f} | | | | | | |"
    )
    lines += [
        "",
        f"SEQUITUR(1) throughput on synthetic traces of {SEQUITUR_SYMBOLS} symbols "
        "(`cargo bench -p pcc-profiler --bench sequitur`; M symbols/s on CPU, and wall-clock):",
        "",
        "| trace | symbols | grammar symbols | rules | M symbols/s (CPU) | M symbols/s (wall) |",
        "|---|---|---|---|---|---|",
    ]
    for r in sequitur_rows():
        lines.append(
            f"| {r['trace']} | {r['symbols']} | {r['grammar_size']} | {r['rules']} | "
            f"{r['sequitur_msym_per_s_cpu']:.1f} | {r['sequitur_msym_per_s_wall']:.1f} |"
        )
    report = "\n".join(lines) + "\n"
    print(report)
    Path(opts.out).write_text(report)


if __name__ == "__main__":
    main()
