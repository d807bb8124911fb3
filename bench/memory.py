#!/usr/bin/env python3
"""Memory benchmark: peak RSS and CPU time of programs that drop what they allocate.

    python3 bench/memory.py [--runs N] [--pcc PCC] [--baseline PCC] [--only NAME ...]

Each case runs as a `pcc build -O2` executable and under `pcc run -O2` (whose RSS includes the
compiler), next to the same program in C (gcc -O2, malloc/free) and in CPython where there is
one, and, with `--baseline`, as another pcc's executable. CPU time is user + system seconds of the
process, peak RSS its `ru_maxrss`; each is the median of N runs (default 3), interleaved. The
programs are in bench/memory/ (binary trees is the suite's clbg_binarytrees at depth 18). With
`PCC_GC_STATS=1` one more run of each pcc executable gives the collector's pauses.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "bench" / "memory"

# name, PL program, arguments, C program or None, Python program or None
CASES = [
    ("string_append_100k", HERE / "string_append.pl", ["100000"], None, HERE / "string_append.py"),
    ("string_append_200k", HERE / "string_append.pl", ["200000"], None, HERE / "string_append.py"),
    ("scratch_arrays_1M", HERE / "scratch_arrays.pl", ["1000000"], HERE / "scratch_arrays.c",
     HERE / "scratch_arrays.py"),
    ("binary_trees_18", ROOT / "programs/bench/clbg_binarytrees.pl", ["18"],
     ROOT / "programs/bench/c/clbg_binarytrees.c", None),
    ("arrays_of_1000_1e5", HERE / "many_arrays.pl", ["100000"], HERE / "many_arrays.c",
     HERE / "many_arrays.py"),
]


def measure(command, env=None):
    """(CPU seconds, peak RSS in MiB, stdout, stderr) of one run."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{command} failed: {err.read().decode(errors='replace')}")
        return (usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                out.read().decode(), err.read().decode())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pcc", default=str(ROOT / "target/release/pcc"))
    parser.add_argument("--baseline")
    parser.add_argument("--only", nargs="*")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pcc-memory-"))
    rows = []
    for name, program, args, c_program, py_program in CASES:
        if options.only and name not in options.only:
            continue
        commands = {}
        for label, pcc in [("pcc", options.pcc), ("baseline", options.baseline)]:
            if pcc:
                exe = work / f"{name}-{label}"
                subprocess.run([pcc, "build", "-O", "2", str(program), "-o", str(exe)], check=True)
                commands[label] = [str(exe), *args]
        commands["pcc run"] = [options.pcc, "run", "-O", "2", str(program), "--", *args]
        if c_program:
            exe = work / f"{name}-c"
            subprocess.run(["gcc", "-O2", "-o", str(exe), str(c_program)], check=True)
            commands["gcc"] = [str(exe), *args]
        if py_program:
            commands["python"] = [sys.executable, str(py_program), *args]
        results = {label: [] for label in commands}
        outputs = {}
        for _ in range(options.runs):
            for label, command in commands.items():
                cpu, rss, out, _ = measure(command)
                results[label].append((cpu, rss))
                outputs[label] = out
        if len({out.split()[0] if out.split() else "" for out in outputs.values()}) > 1:
            sys.exit(f"{name}: the outputs differ: {outputs}")
        stats = measure(commands["pcc"], dict(os.environ, PCC_GC_STATS="1"))[3].strip()
        row = {label: (statistics.median(c for c, _ in runs), statistics.median(r for _, r in runs))
               for label, runs in results.items()}
        rows.append((name, row, stats))
    labels = ["pcc", "pcc run", "baseline", "gcc", "python"]
    print("| program | " + " | ".join(f"{l} CPU s | {l} RSS MiB" for l in labels) + " |")
    print("|---" * (1 + 2 * len(labels)) + "|")
    for name, row, _ in rows:
        cells = []
        for label in labels:
            cpu, rss = row.get(label, (None, None))
            cells += ["—", "—"] if cpu is None else [f"{cpu:.2f}", f"{rss:.0f}"]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    for name, _, stats in rows:
        print(f"- {name}: {stats}")


if __name__ == "__main__":
    main()
