#!/usr/bin/env python3
"""Instructions executed, the figure that repeats where run time does not.

    python3 bench/instructions.py [--baseline PCC] [--mode FLAGS] [--pgo] [--gcc] [--only NAME ...]

On a shared virtual machine the run time of one unchanged executable moves by a quarter
between runs, so a change of a few percent cannot be seen in `bench/run.py`'s medians. The
number of instructions a program executes does not move: this harness counts them with
valgrind's cachegrind (`apt-get install valgrind`) for native executables (`pcc build -O2`) of
the suite's benchmarks on small inputs (a count costs about fifty times the run time), and prints
per benchmark:

- the instructions of this pcc's executable (millions);
- with `--baseline PCC`: the same for another pcc binary, and new / baseline;
- with `--mode FLAGS` (e.g. `--mode=--profile=bl`): the instrumented executable's count / the
  plain one's, for this pcc (and the baseline), the profiling overhead in instructions;
- with `--pgo`: the `--use-profile` executable's count / the plain one's, trained as `pcc pgo`
  trains (kbl, k = 6, a JIT run on the same input), for this pcc (and the baseline): above 1,
  the profile made the program execute more;
- with `--gcc`: pcc / gcc -O2 on the C port.

The last row is the geometric mean of each ratio. Fewer instructions are not always less time
(a cache miss or a mispredicted branch costs tens of them), so a change this harness shows is
then timed with `bench/run.py --code-only` or interleaved runs. Every output is checked against
the plain executable's.
"""

import argparse
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PCC = ROOT / "target" / "release" / "pcc"
C_PORTS = ROOT / "programs" / "bench" / "c"
# `pcc pgo`'s k, as in bench/run.py.
PGO_K = 6

# Inputs that run each benchmark for 10-100 ms natively: large enough that start-up is noise,
# small enough for cachegrind (the `.bench` inputs run for a second under gcc -O2).
SMALL = {
    "awfy_bounce": ["2000"],
    "awfy_deltablue": ["5000"],
    "awfy_list": ["2000"],
    "awfy_mandelbrot": ["300"],
    "awfy_nbody": ["200000"],
    "awfy_permute": ["2000"],
    "awfy_queens": ["2000"],
    "awfy_richards": ["50"],
    "awfy_sieve": ["1000"],
    "awfy_storage": ["200"],
    "awfy_towers": ["2000"],
    "brainfuck": ["300"],
    "bytecode_vm": ["600000", "27"],
    "clbg_binarytrees": ["12"],
    "clbg_fannkuch": ["8"],
    "clbg_fasta": ["150000"],
    "clbg_mandelbrot": ["500"],
    "clbg_nbody": ["200000"],
    "clbg_spectralnorm": ["300"],
    "convolution": ["200", "200", "10"],
    "crc32": ["10000000"],
    "dijkstra": ["5000"],
    "loop_heavy": ["2000"],
    "lzw": ["500000"],
    "masked_blur": ["300", "4"],
    "nbody_globals": ["200000"],
    "sort": ["50000"],
}


def source(name):
    bench = ROOT / "programs" / "bench" / f"{name}.pl"
    return bench if bench.exists() else ROOT / "programs" / f"{name}.pl"


def instructions(exe, args, tmp):
    """Instructions `exe args` executes, and its stdout."""
    env = dict(os.environ, PCC_PROFILE_OUT=str(Path(tmp) / "discarded.profile.json"))
    result = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", str(exe), *args],
        capture_output=True,
        env=env,
    )
    if result.returncode != 0:
        sys.exit(f"failed: {exe} {' '.join(args)}\n{result.stderr.decode()}")
    refs = re.search(rb"I\s+refs:\s+([\d,]+)", result.stderr)
    if not refs:
        sys.exit(f"no instruction count from cachegrind for {exe}:\n{result.stderr.decode()}")
    return int(refs.group(1).replace(b",", b"")), result.stdout


def trained_exe(pcc, name, args, out, tmp):
    """The `--use-profile` executable of `name`, trained as `pcc pgo` trains."""
    profile = Path(tmp) / f"{name}.train.json"
    train = [str(pcc), "run", str(source(name)), "-O2", "--profile=kbl", "--k", str(PGO_K)]
    subprocess.run([*train, "--profile-out", str(profile), "--", *args], cwd=ROOT, capture_output=True, check=True)
    return pcc_exe(pcc, name, ["--use-profile", str(profile)], out)


def pcc_exe(pcc, name, flags, out):
    subprocess.run([str(pcc), "build", "-O2", *flags, str(source(name)), "-o", str(out)], cwd=ROOT, check=True)
    return out


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", help="another pcc binary to compare with")
    parser.add_argument("--mode", help="pcc flags of an instrumented build, e.g. --mode=--profile=bl")
    parser.add_argument("--pgo", action="store_true", help="compare --use-profile with plain -O2")
    parser.add_argument("--gcc", action="store_true", help="compare with gcc -O2 on the C port")
    parser.add_argument("--only", nargs="+", help="benchmarks to count (default: all)")
    parser.add_argument("--pcc", default=str(PCC), help="the pcc binary measured (default: target/release/pcc)")
    opts = parser.parse_args()
    if subprocess.run(["valgrind", "--version"], capture_output=True).returncode != 0:
        sys.exit("valgrind is needed: apt-get install valgrind")
    names = opts.only or sorted(SMALL)
    unknown = [n for n in names if n not in SMALL]
    if unknown:
        sys.exit(f"no small input for {', '.join(unknown)}; known: {', '.join(sorted(SMALL))}")
    mode = shlex.split(opts.mode) if opts.mode else None
    pccs = [("pcc", opts.pcc)] + ([("baseline", opts.baseline)] if opts.baseline else [])

    header = ["benchmark"]
    for label, _ in pccs:
        header.append(f"{label} M instr")
        if mode:
            header.append(f"{label} {opts.mode} / plain")
        if opts.pgo:
            header.append(f"{label} use-profile / plain")
    if opts.baseline:
        header.append("pcc / baseline")
    if opts.gcc:
        header.append("pcc / gcc")
    rows, ratios = [], [[] for _ in header[1:]]
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            args = SMALL[name]
            counts, expected, row = {}, None, [name]
            for label, pcc in pccs:
                plain, out = instructions(pcc_exe(pcc, name, [], Path(tmp) / f"{label}-plain"), args, tmp)
                expected = expected if expected is not None else out
                if out != expected:
                    sys.exit(f"{name}: {label}'s output differs from pcc's")
                counts[label] = plain
                row.append(plain / 1e6)
                if mode:
                    profiled, out = instructions(pcc_exe(pcc, name, mode, Path(tmp) / f"{label}-mode"), args, tmp)
                    if out != expected:
                        sys.exit(f"{name}: {label} {opts.mode} changed the output")
                    row.append(profiled / plain)
                if opts.pgo:
                    guided, out = instructions(trained_exe(pcc, name, args, Path(tmp) / f"{label}-pgo", tmp), args, tmp)
                    if out != expected:
                        sys.exit(f"{name}: {label} --use-profile changed the output")
                    row.append(guided / plain)
            if opts.baseline:
                row.append(counts["pcc"] / counts["baseline"])
            if opts.gcc:
                exe = Path(tmp) / "gcc"
                subprocess.run(["gcc", "-O2", "-o", exe, C_PORTS / f"{name}.c", "-lm"], check=True)
                native, out = instructions(exe, args, tmp)
                if out != expected:
                    sys.exit(f"{name}: the C port's output differs from pcc's")
                row.append(counts["pcc"] / native)
            print(" ".join(f"{v:.3f}" if isinstance(v, float) else v for v in row), file=sys.stderr)
            rows.append(row)
            for column, value in zip(ratios, row[1:]):
                column.append(value)
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(f"{v:.3f}" if isinstance(v, float) else v for v in row) + " |")
    means = [f"{geomean(c):.3f}" if "/" in h else "" for h, c in zip(header[1:], ratios)]
    print("| geometric mean | " + " | ".join(means) + " |")


if __name__ == "__main__":
    main()
