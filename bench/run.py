#!/usr/bin/env python3
"""Performance harness: builds what it needs, repeats every measurement, reports medians.

    python3 bench/run.py [--runs N] [--only NAME ...] [--suite-only | --pgo-only | --code-only | --compile-only] [--baseline PCC] [--out FILE]
    python3 bench/run.py --modes-only [--programs FILE.pl ...] [--csv FILE] [--runs N]

1. The suite: every program with a `NAME.bench` file under programs/ (the benchmark ports of
   programs/bench/ and the kernels of programs/), run with the arguments in that file, which make
   its C port (programs/bench/c/NAME.c) take about a second under gcc -O2. One table: gcc -O2 and
   pcc -O2 run time and their ratio, pcc's compile time (`pcc build -O2 --emit obj`: the whole
   pipeline to the object file, without linking, running or printing a listing), the profile-guided gain (plain / `--use-profile` at -O2 in user time, at least 9
   interleaved runs each, trained as `pcc pgo` trains: kbl with k = 6 on the same input), and the
   overhead (instrumented / plain at -O2) of edge, block (a counter on every basic block, the naive
   placement edge's spanning tree improves on, [BL94]), bl, ppp, tpp and kbl (k = 4); ppp and tpp are guided by the bl and edge profiles of the same input
   measured just before; next to them, the same ratio for gcc's own edge profiler on the C port
   (`gcc -O2 -fprofile-generate` / `gcc -O2`, runs interleaved), the anchor the modes are held to.
2. Details on loop kernels (`PROFILED`): kbl for k = 2, 4, 8, functions counting in a hash table,
   ppp's rho per function, tpp's AoDF against bl and the functions it moved from a hash table.
3. wpp on its own inputs (its cost follows the number of acyclic paths): overhead, trace length,
   compression; SEQUITUR(1) and k-slab forest throughput on synthetic streams.
4. Native executables (`pcc build -O2`): build time, size, run time against `pcc run -O2`.
5. With `--code-only`, only the generated code: gcc -O2, pcc -O2 and, with `--baseline`, another
   pcc binary at -O2, on the suite, all three runs interleaved (a tenth of the suite table's time),
   in user time: the system time of pcc's programs is mostly the kernel zeroing fresh pages, which
   on this virtual machine varies by seconds between runs of one binary.
6. With `--modes-only`, the researcher's table: every profiling mode side by side (block, edge,
   bl, ppp, tpp, kbl at k = 2, 4 and 8, wpp) on the suite or, with `--programs`, on your own
   programs (arguments from a sibling `.bench` or `.args` file): the overhead of each
   (instrumented / plain at -O2, user time of all threads, runs interleaved), the size of the
   profile it writes and the post-processing time (CPU seconds of `pcc profile show --format json`
   on it: reading, decoding and ranking the paths). Markdown on stdout, CSV with `--csv FILE`.
7. With `--compile-only`, only the suite's compile times (CPU seconds of `pcc build -O2 --emit obj`,
   the column of the suite table) for this pcc and, with `--baseline`, another, runs interleaved,
   and their sums: the figure the suite table's single column is too noisy to compare.

Run times are user seconds of the child and all its threads (other load on a shared machine
matters less than for wall time), the median of N runs, the runs a ratio compares interleaved;
pcc's include JIT compilation. Instrumented and recompiled code runs in user mode, while the
system time is the kernel zeroing the pages the program allocates, the same work in both runs
of a ratio, which on this virtual machine varies by up to 2 s between identical runs. Build and
compile times are CPU seconds (user + system). Ratios are of
medians measured in this same run; every output is checked against the plain run and the C port.
Prints Markdown tables and writes them, with the machine they ran on, to bench/results.md.
"""

import argparse
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PCC = ROOT / "target" / "release" / "pcc"
BUILD = ROOT / "target" / "bench"
C_PORTS = ROOT / "programs" / "bench" / "c"

# Suite columns: (name, pcc flags); `ppp`/`tpp` get their guiding profile added.
SUITE_MODES = [
    ("edge", ["--profile=edge"]),
    ("block", ["--profile=block"]),
    ("bl", ["--profile=bl"]),
    ("ppp", ["--profile=ppp"]),
    ("tpp", ["--profile=tpp"]),
    ("kbl", ["--profile=kbl", "--k", "4"]),
]

# `pcc pgo`'s k ([KBLPP] profiles the masked convolution with k = 10; see `pcc pgo --help`).
PGO_K = 6
# Interleaved runs of the plain and the guided program, at least: the gains are a few percent on
# most benchmarks, below what three runs on this virtual machine can resolve.
PGO_RUNS = 9

# (PL program, arguments) whose run time is dominated by loops, for the profiling details.
PROFILED = [
    ("programs/loop_heavy.pl", ["15000"]),
    ("programs/sieve.pl", ["20000000"]),
    ("programs/nqueens.pl", ["13"]),
    ("programs/mandelbrot.pl", ["600", "400", "800"]),
    ("programs/convolution.pl", ["2000", "2000", "30"]),
    # 20 stacked conditionals, 17 of them biased ([TPP] Fig. 5): a hash table under `bl`.
    ("tests/fixtures/tpp/biased_stack.pl", ["15000000"]),
]
DETAIL_MODES = [m for m in SUITE_MODES if m[0] != "kbl"] + [
    (f"kbl k={k}", ["--profile=kbl", "--k", str(k)]) for k in (2, 4, 8)
]
# The researcher's table (`--modes-only`): every scheme, the cheapest first.
ALL_MODES = [("block", ["--profile=block"]), ("edge", ["--profile=edge"])] + [
    m for m in DETAIL_MODES if m[0] not in ("edge", "block")
] + [("wpp", ["--profile=wpp"])]
# Inputs for `wpp`: large enough that the run, not the start-up, dominates, and a loop whose
# trace repeats with period 21.
WPP_PROFILED = [
    ("programs/loop_heavy.pl", ["4000"]),
    ("programs/sieve.pl", ["20000000"]),
    ("programs/nqueens.pl", ["11"]),
    ("programs/mandelbrot.pl", ["600", "400", "800"]),
    ("bench/wpp/branchy.pl", ["100000000"]),
]
# Symbols per synthetic trace of the SEQUITUR(1) benchmark.
SEQUITUR_SYMBOLS = 20_000_000


def timed(cmd, runs, clock="cpu"):
    """Median seconds of `runs` executions of cmd, CPU time (user + system) or `user` time only,
    and its stdout (checked to be stable)."""
    median, _, out = timed_together([cmd], runs, clock)[0]
    return median, out


def timed_together(cmds, runs, clock="cpu"):
    """Median and minimum seconds and the stdout of each of cmds, as `timed`, their runs
    interleaved, so that a change in the machine's load weighs on all of them alike."""
    times = [[] for _ in cmds]
    outputs = [set() for _ in cmds]
    for _ in range(runs):
        for cmd, cmd_times, cmd_outputs in zip(cmds, times, outputs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            result = subprocess.run(cmd, cwd=ROOT, capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if result.returncode != 0:
                sys.exit(f"failed: {' '.join(map(str, cmd))}\n{result.stderr.decode()}")
            user = after.ru_utime - before.ru_utime
            cmd_times.append(user if clock == "user" else user + after.ru_stime - before.ru_stime)
            cmd_outputs.add(result.stdout)
    for cmd, cmd_outputs in zip(cmds, outputs):
        if len(cmd_outputs) != 1:
            sys.exit(f"output differs between runs of {' '.join(map(str, cmd))}")
    return [(statistics.median(t), min(t), o.pop()) for t, o in zip(times, outputs)]


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
    compilers = [
        subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
        for cc in ("gcc", "clang")
        if shutil.which(cc)
    ]
    return f"{platform.machine()}, {cpu}, {os.cpu_count()} cores; {'; '.join(compilers)}"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def profiled_runs(pl, args, modes, runs, tmp):
    """Plain user seconds, its stdout, then per mode (user seconds, profile path); the runs of
    all of them interleaved (a change in the machine's load weighs on all alike), in user time
    (the instrumentation runs in user mode, every thread of the program counted; system time is
    the kernel zeroing fresh pages, the same work with and without a profile, which varies by
    seconds between identical runs here); outputs checked against the plain run. The profiles
    that guide ppp (bl's) and tpp (edge's) are made first, by a run of each."""
    stem = Path(pl).stem

    def profile(mode):
        return Path(tmp) / f"{stem}.{mode.replace(' ', '')}.json"

    for mode, flags in modes:
        if mode in ("bl", "edge"):
            cmd = [PCC, "run", pl, "-O2", *flags, "--profile-out", profile(mode), "--", *args]
            subprocess.run(cmd, cwd=ROOT, capture_output=True, check=True)
    cmds = [[PCC, "run", pl, "-O2", "--", *args]]
    for mode, flags in modes:
        cmd = [PCC, "run", pl, "-O2", *flags, "--profile-out", profile(mode)]
        if mode == "ppp":
            cmd += ["--interesting", profile("bl")]
        if mode == "tpp":
            cmd += ["--edge-profile", profile("edge")]
        cmds.append([*cmd, "--", *args])
    (plain, _, out_plain), *timed_modes = timed_together(cmds, runs, clock="user")
    results = {}
    for (mode, flags), (t, _, out_profiled) in zip(modes, timed_modes):
        if out_profiled != out_plain:
            sys.exit(f"{pl}: output changed under {' '.join(flags)}")
        results[mode] = (t, profile(mode))
    return plain, out_plain, results


def guided_times(pl, args, runs, tmp):
    """Plain -O2 and `--use-profile` -O2 user times (medians, then minimums), after a training run
    as `pcc pgo`'s (kbl, k = PGO_K, same input); the guided output checked against the plain
    run's. Also what the recompilation changed (`use_profile_summary`)."""
    profile = Path(tmp) / f"{Path(pl).stem}.train.json"
    train = [PCC, "run", pl, "-O2", "--profile=kbl", "--k", str(PGO_K), "--profile-out", profile]
    subprocess.run([*train, "--", *args], cwd=ROOT, capture_output=True, check=True)
    guided_cmd = [PCC, "run", pl, "-O2", "--use-profile", profile]
    (plain, plain_min, out_plain), (guided, guided_min, out) = timed_together(
        [[PCC, "run", pl, "-O2", "--", *args], [*guided_cmd, "--", *args]],
        max(runs, PGO_RUNS),
        "user",
    )
    if out != out_plain:
        sys.exit(f"{pl}: output changed under --use-profile")
    # `--emit mir` compiles as the run does and prints the same report, without running.
    report = subprocess.run([*guided_cmd, "--emit", "mir"], cwd=ROOT, capture_output=True, text=True, check=True)
    return plain, guided, plain_min, guided_min, use_profile_summary(report.stderr)


# What each `pcc: use-profile:` report line says was done, by the words that name it.
TRANSFORMATIONS = [
    ("superblocks", "superblocks"),
    ("unrolled", "unrolled loops"),
    ("hot call sites", "hot call sites"),
    ("out of line", "cold blocks"),
]


def use_profile_summary(stderr):
    """The transformations `--use-profile` applied, from its report on stderr: how many functions
    each changed, e.g. `superblocks in 3, cold blocks in 5`; `nothing` when none."""
    changed = [line for line in stderr.splitlines() if line.startswith("pcc: use-profile:   `")]
    counts = [(label, sum(words in line for line in changed)) for words, label in TRANSFORMATIONS]
    return ", ".join(f"{label} in {n}" for label, n in counts if n) or "nothing"


def benchmarks(only):
    """(name, PL program, arguments) of every `NAME.bench` under programs/ (or those in `only`)."""
    for bench in sorted((ROOT / "programs").rglob("*.bench")):
        if not only or bench.stem in only:
            yield bench.stem, bench.with_suffix(".pl").relative_to(ROOT), bench.read_text().split()


def pgo_rows(runs, only):
    """Per benchmark: name, plain and guided user seconds (medians, then minimums), what the
    recompilation changed, and the plain and profile-guided seconds of the C port under gcc and
    under clang (`c_pgo_times`; None for clang when it is not installed)."""
    rows = []
    clang = shutil.which("clang") and shutil.which("llvm-profdata")
    if not clang:
        print("clang or llvm-profdata not found: no clang PGO column (apt-get install clang llvm)", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        for name, pl, args in benchmarks(only):
            times = guided_times(pl, args, runs, tmp)
            gcc = c_pgo_times(GCC_PGO, name, args, max(runs, PGO_RUNS), tmp)
            llvm = c_pgo_times(CLANG_PGO, name, args, max(runs, PGO_RUNS), tmp) if clang else (None, None)
            rows.append((name, *times, *gcc, *llvm))
            print(
                f"{name}: use-profile speedup {times[0] / times[1]:.2f} ({times[4]}), "
                f"gcc PGO {gcc[0] / gcc[1]:.2f}" + (f", clang PGO {llvm[0] / llvm[1]:.2f}" if clang else ""),
                file=sys.stderr,
            )
    return rows


# How a C compiler builds the plain and the profile-guided C port (`c_pgo_times`): the commands
# with `{work}` for the counts folder, `{src}` and `{out}`, and what to run between training and
# the guided build (clang's raw counts must be merged into one file first).
GCC_PGO = {
    "name": "gcc",
    "plain": ["gcc", "-O2", "-o", "{out}", "{src}", "-lm"],
    "generate": ["gcc", "-O2", "-fprofile-generate={work}", "-o", "{out}", "{src}", "-lm"],
    "merge": None,
    "use": ["gcc", "-O2", "-fprofile-use={work}", "-Werror=missing-profile", "-o", "{out}", "{src}", "-lm"],
}
CLANG_PGO = {
    "name": "clang",
    "plain": ["clang", "-O2", "-o", "{out}", "{src}", "-lm"],
    "generate": ["clang", "-O2", "-fprofile-instr-generate={work}/prog-%p.profraw", "-o", "{out}", "{src}", "-lm"],
    "merge": "llvm-profdata",
    "use": ["clang", "-O2", "-fprofile-instr-use={work}/prog.profdata", "-Werror=profile-instr-missing", "-o", "{out}", "{src}", "-lm"],
}


def c_pgo_times(compiler, name, args, runs, tmp):
    """The C port's user seconds built plain (`-O2`) and profile-guided by `compiler` (GCC_PGO,
    CLANG_PGO), trained by one run of its instrumented build on the same input (as
    `--use-profile` is), medians of `runs` interleaved runs; outputs checked against each other."""
    work = Path(tmp) / f"{compiler['name']}-pgo-{name}"
    work.mkdir()
    source = work / "prog.c"
    source.write_bytes((C_PORTS / f"{name}.c").read_bytes())
    # gcc names the counts file after the output and its folder: both builds are `work/prog`.
    plain, trained = work / "prog.plain", work / "prog"

    def build(step, out):
        cmd = [arg.format(work=work, src=source, out=out) for arg in compiler[step]]
        subprocess.run(cmd, check=True)

    build("plain", plain)
    build("generate", trained)
    subprocess.run([trained, *args], capture_output=True, check=True)
    if compiler["merge"]:
        raw = sorted(work.glob("*.profraw"))
        subprocess.run([compiler["merge"], "merge", "-o", work / "prog.profdata", *raw], check=True)
    build("use", trained)
    (t_plain, _, out_plain), (t_pgo, _, out_pgo) = timed_together([[plain, *args], [trained, *args]], runs, "user")
    if out_pgo != out_plain:
        sys.exit(f"{name}: the C port's output changed under {compiler['name']}'s profile-guided build")
    return t_plain, t_pgo


def pgo_table(rows):
    lines = [
        f"`--use-profile` at -O2 (user seconds, medians of {PGO_RUNS} interleaved runs; trained with kbl, "
        f"k = {PGO_K}, on the same input; speedup = plain / guided, of the medians and of the minimums: "
        "interference from other load only ever adds time, so the minimums are the steadier figure; "
        "changed = the transformations the use-profile report lists, with the number of functions each "
        "changed; gcc and clang = the same speedup for their own profile-guided builds of the C port, "
        "`-O2` against `-O2 -fprofile-use` (gcc) and `-O2 -fprofile-instr-use` (clang, counts merged by "
        "`llvm-profdata merge`), each trained by one run of its instrumented build on the same input, "
        "medians of as many interleaved runs):",
        "",
        "| benchmark | plain | use-profile | speedup | speedup of minimums | changed | gcc -O2 | gcc PGO | gcc speedup | clang -O2 | clang PGO | clang speedup |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    seconds = lambda t: "—" if t is None else f"{t:.3f}"
    ratio = lambda a, b: "—" if a is None else f"{a / b:.2f}"
    for name, plain, guided, plain_min, guided_min, changed, gcc_plain, gcc_pgo, clang_plain, clang_pgo in rows:
        lines.append(
            f"| {name} | {plain:.3f} | {guided:.3f} | {plain / guided:.2f} | {plain_min / guided_min:.2f} | "
            f"{changed} | {gcc_plain:.3f} | {gcc_pgo:.3f} | {gcc_plain / gcc_pgo:.2f} | "
            f"{seconds(clang_plain)} | {seconds(clang_pgo)} | {ratio(clang_plain, clang_pgo)} |"
        )
    medians = geomean([r[1] / r[2] for r in rows])
    minimums = geomean([r[3] / r[4] for r in rows])
    gcc = geomean([r[6] / r[7] for r in rows])
    clang = "—" if rows and rows[0][8] is None else f"{geomean([r[8] / r[9] for r in rows]):.2f}"
    lines.append(f"| geometric mean | | | {medians:.2f} | {minimums:.2f} | | | | {gcc:.2f} | | | {clang} |")
    return lines


def gcc_times(name, args, runs, tmp):
    """The C port's gcc -O2 user seconds, its user seconds under gcc's own edge profiler (`-O2
    -fprofile-generate`, the counts written under tmp), runs interleaved, and its stdout."""
    source = C_PORTS / f"{name}.c"
    exe, profiled = BUILD / name, BUILD / f"{name}.profile-generate"
    subprocess.run(["gcc", "-O2", "-o", exe, source, "-lm"], check=True)
    subprocess.run(["gcc", "-O2", f"-fprofile-generate={tmp}", "-o", profiled, source, "-lm"], check=True)
    (t_c, _, out_c), (t_profiled, _, out_profiled) = timed_together(
        [[exe, *args], [profiled, *args]], runs, clock="user"
    )
    if out_profiled != out_c:
        sys.exit(f"{name}: the C port's output changed under -fprofile-generate")
    return t_c, t_profiled, out_c


def suite_rows(runs, only, baseline):
    """Per benchmark: name, gcc and pcc -O2 seconds, compile seconds, overhead per suite mode, the
    -O2 seconds of the `baseline` pcc binary (None without one), the `--use-profile` speedup, and
    the overhead of gcc's `-fprofile-generate` on the C port."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, pl, args in benchmarks(only):
            t_c, t_gcc_profiled, out_c = gcc_times(name, args, runs, tmp)
            t_compile, _ = timed(compile_command(PCC, pl, tmp), runs)
            plain, out_pcc, results = profiled_runs(pl, args, SUITE_MODES, runs, tmp)
            if out_c != out_pcc:
                sys.exit(f"{name}: pcc and C outputs differ")
            overheads = [results[m][0] / plain for m, _ in SUITE_MODES]
            t_plain, t_guided, *_ = guided_times(pl, args, runs, tmp)
            guided = t_plain / t_guided
            t_base = None
            if baseline:
                t_base, out_base = timed([baseline, "run", pl, "-O2", "--", *args], runs, clock="user")
                if out_base != out_c:
                    sys.exit(f"{name}: the baseline's output differs from the C port's")
            rows.append((name, t_c, plain, t_compile, overheads, t_base, guided, t_gcc_profiled / t_c))
            print(f"{name}: gcc {t_c:.2f} s, pcc {plain:.2f} s, use-profile speedup {guided:.2f}", file=sys.stderr)
    return rows


def code_rows(runs, only, baseline):
    """Per benchmark: name, gcc -O2 seconds, pcc -O2 seconds and the `baseline` binary's (None
    without one), in user time (the code's own; system time is page zeroing, which varies by
    seconds between identical runs here), runs interleaved, outputs checked against the C port's."""
    rows = []
    for name, pl, args in benchmarks(only):
        exe = BUILD / name
        subprocess.run(["gcc", "-O2", "-o", exe, C_PORTS / f"{name}.c", "-lm"], check=True)
        cmds = [[exe, *args], [PCC, "run", pl, "-O2", "--", *args]]
        if baseline:
            cmds.append([baseline, "run", pl, "-O2", "--", *args])
        results = timed_together(cmds, runs, clock="user")
        if any(out != results[0][2] for _, _, out in results):
            sys.exit(f"{name}: the outputs of pcc and the C port differ")
        t_base = results[2][0] if baseline else None
        rows.append((name, results[0][0], results[1][0], t_base))
        print(f"{name}: gcc {results[0][0]:.2f} s, pcc {results[1][0]:.2f} s", file=sys.stderr)
    return rows


def table_head(title, columns):
    """A titled Markdown table's first lines."""
    return [title, "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def code_table(rows, runs):
    base = rows[0][3] is not None
    lines = table_head(
        f"Generated code at -O2 (user seconds, medians of {runs} interleaved runs; pcc's include JIT "
        "compilation" + ("; baseline = the `--baseline` pcc binary" if base else "") + "):",
        ["benchmark", "gcc -O2", "pcc -O2", "pcc / gcc"] + (["baseline", "baseline / gcc", "pcc / baseline"] if base else []),
    )
    for name, t_c, t_pcc, t_base in rows:
        cells = f" {t_base:.3f} | {t_base / t_c:.2f} | {t_pcc / t_base:.2f} |" if base else ""
        lines.append(f"| {name} | {t_c:.3f} | {t_pcc:.3f} | {t_pcc / t_c:.2f} |{cells}")
    means = [f"{geomean([r[2] / r[1] for r in rows]):.2f}"]
    if base:
        means += ["", f"{geomean([r[3] / r[1] for r in rows]):.2f}", f"{geomean([r[2] / r[3] for r in rows]):.2f}"]
    lines.append("| geometric mean | | | " + " | ".join(means) + " |")
    return lines


def compile_command(pcc, pl, tmp):
    """Compiling `pl` at -O2 as far as an object file, not linked: the whole pipeline, without the
    printing of a listing (`--emit asm` spends a tenth of its time formatting text)."""
    return [pcc, "build", pl, "-O2", "--emit", "obj", "-o", Path(tmp) / "compiled.o"]


def compile_table(runs, only, baseline):
    """Per benchmark, the median CPU seconds of compiling it (`compile_command`) with this pcc and
    the `baseline` binary, runs interleaved; the sums last."""
    pccs = [PCC] + ([baseline] if baseline else [])
    lines = table_head(
        f"Compile time at -O2 (CPU seconds of `pcc build -O2 --emit obj`, process start included, medians of {runs} "
        "interleaved runs" + ("; baseline = the `--baseline` pcc binary" if baseline else "") + "):",
        ["benchmark", "pcc"] + (["baseline", "pcc / baseline"] if baseline else []),
    )
    sums = [0.0 for _ in pccs]
    with tempfile.TemporaryDirectory() as tmp:
        for name, pl, _ in benchmarks(only):
            times = [t for t, _, _ in timed_together([compile_command(p, pl, tmp) for p in pccs], runs)]
            sums = [a + b for a, b in zip(sums, times)]
            cells = f" {times[1]:.3f} | {times[0] / times[1]:.2f} |" if baseline else ""
            lines.append(f"| {name} | {times[0]:.3f} |{cells}")
    cells = f" {sums[1]:.3f} | {sums[0] / sums[1]:.2f} |" if baseline else ""
    lines.append(f"| sum | {sums[0]:.3f} |{cells}")
    return lines


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


def detail_rows(runs):
    """Per kernel: plain time, (overhead, hash-table functions) per detail mode, accuracy."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for pl, args in PROFILED:
            plain, _, results = profiled_runs(pl, args, DETAIL_MODES, runs, tmp)
            per_mode = []
            for mode, _ in DETAIL_MODES:
                t, out = results[mode]
                functions = json.loads(out.read_text())["functions"]
                per_mode.append((t / plain, sum(1 for f in functions if f["storage"] == "hash")))
            profiles = {mode: out for mode, (_, out) in results.items()}
            rows.append((Path(pl).stem, plain, per_mode, accuracy(profiles)))
    return rows


def wpp_rows(runs):
    """Per program: args, plain and wpp times, and the whole program path's size."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for pl, args in WPP_PROFILED:
            plain, _, results = profiled_runs(pl, args, [("wpp", ["--profile=wpp"])], runs, tmp)
            t, out = results["wpp"]
            wpp = json.loads(out.read_text())["wpp"]
            size = sum(len(rule) for rule in wpp["rules"])
            # The analysis a user runs next, at [WPP] Fig. 9's thresholds (cost 100,000, up to
            # 100 paths): its time follows the grammar's size and shape.
            t_hot, _ = timed([PCC, "wpp", "hot", out, "--min-cost", "100000", "--max-len", "100"], 1)
            rows.append((Path(pl).stem, " ".join(args), plain, t, wpp["trace_length"],
                         len(wpp["symbols"]), size, len(wpp["rules"]), t_hot))
    return rows


def user_programs(paths):
    """(name, PL program, arguments) of each program named: its arguments are those of its
    `.bench` file, else its `.args` file, else none."""
    for path in paths:
        pl = Path(path).resolve()
        for sidecar in (pl.with_suffix(".bench"), pl.with_suffix(".args")):
            if sidecar.is_file():
                yield pl.stem, pl, sidecar.read_text().split()
                break
        else:
            yield pl.stem, pl, []


def modes_rows(runs, programs):
    """Per program: name, plain seconds, then per mode of ALL_MODES (overhead, profile bytes,
    post-processing seconds)."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, pl, args in programs:
            plain, _, results = profiled_runs(pl, args, ALL_MODES, runs, tmp)
            per_mode = []
            for mode, _ in ALL_MODES:
                t, out = results[mode]
                t_show, _ = timed([PCC, "profile", "show", out, "--format", "json"], runs)
                overhead = t / plain if plain >= TOO_SHORT_TO_TIME else None
                per_mode.append((overhead, out.stat().st_size, t_show))
            rows.append((name, plain, per_mode))
            print(f"{name}: " + ", ".join(f"{m} {ratio(o)}" for (m, _), (o, _, _) in zip(ALL_MODES, per_mode)),
                  file=sys.stderr)
    return rows


# A plain run of less user time than this is start-up and compilation: no overhead is computed.
TOO_SHORT_TO_TIME = 0.02


def ratio(value):
    return "—" if value is None else f"{value:.2f}"


def modes_table(rows, runs):
    """The researcher's table as Markdown lines: overheads, then profile sizes, then
    post-processing times."""
    names = [m for m, _ in ALL_MODES]
    head = "| program | plain (s) | " + " | ".join(names) + " |"
    rule = "|---|---|" + "---|" * len(names)
    lines = [
        f"Profiling modes side by side (medians of {runs} interleaved runs; overhead = instrumented / plain "
        "at -O2 in user time of all threads; ppp and tpp guided by the bl and edge profiles of the same input; "
        f"— where the plain run takes under {TOO_SHORT_TO_TIME} s):",
        "",
        head,
        rule,
    ]
    for name, plain, per_mode in rows:
        lines.append(f"| {name} | {plain:.3f} | " + " | ".join(ratio(o) for o, _, _ in per_mode) + " |")
    timed_rows = [r for r in rows if r[1] >= TOO_SHORT_TO_TIME]
    if timed_rows:
        means = [geomean([r[2][i][0] for r in timed_rows]) for i in range(len(names))]
        lines.append("| geometric mean | | " + " | ".join(f"{m:.2f}" for m in means) + " |")
    lines += ["", "Profile sizes (KiB):", "", head.replace("plain (s)", ""), rule]
    for name, _, per_mode in rows:
        lines.append(f"| {name} | | " + " | ".join(f"{b / 1024:.1f}" for _, b, _ in per_mode) + " |")
    lines += ["", "Post-processing (CPU seconds of `pcc profile show --format json` on the profile):", "",
              head.replace("plain (s)", ""), rule]
    for name, _, per_mode in rows:
        lines.append(f"| {name} | | " + " | ".join(f"{t:.3f}" for _, _, t in per_mode) + " |")
    return lines


def modes_csv(rows, path):
    """One line per program and mode: program, mode, plain seconds, overhead, profile bytes,
    post-processing seconds."""
    lines = ["program,mode,plain_s,overhead,profile_bytes,post_processing_s"]
    for name, plain, per_mode in rows:
        for (mode, _), (overhead, size, t_show) in zip(ALL_MODES, per_mode):
            shown = "" if overhead is None else f"{overhead:.4f}"
            lines.append(f"{name},{mode.replace(' ', '')},{plain:.4f},{shown},{size},{t_show:.4f}")
    Path(path).write_text("\n".join(lines) + "\n")


def sequitur_rows():
    """One JSON object per synthetic trace, from the SEQUITUR(1) benchmark (release build)."""
    result = subprocess.run(
        ["cargo", "bench", "--quiet", "-p", "pcc-profiler", "--bench", "sequitur", "--",
         str(SEQUITUR_SYMBOLS)],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def ksf_rows():
    """The k-slab forest's throughput on synthetic streams (one run of the example)."""
    cmd = ["cargo", "run", "--release", "--quiet", "-p", "pcc-profiler", "--example", "ksf_throughput"]
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def aot_rows(runs):
    """Per kernel: build time, executable size, JIT and executable run times."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for pl, args in PROFILED:
            exe = Path(tmp) / Path(pl).stem
            t_build, _ = timed([PCC, "build", pl, "-O2", "-o", exe], runs)
            t_jit, out_jit = timed([PCC, "run", pl, "-O2", "--", *args], runs, clock="user")
            t_aot, out_aot = timed([exe, *args], runs, clock="user")
            if out_aot != out_jit:
                sys.exit(f"{pl}: the executable's output differs from pcc run's")
            rows.append((Path(pl).stem, t_build, exe.stat().st_size, t_jit, t_aot))
    return rows


def suite_table(rows):
    modes = [m for m, _ in SUITE_MODES]
    base = rows[0][5] is not None
    lines = [
        "The suite at -O2 (user seconds of all the program's threads, the runs of a program in every column "
        "interleaved: system time is the kernel zeroing fresh pages, the same work in every column, and varies by "
        "seconds between identical runs here; pcc / gcc = run time ratio; compile = CPU seconds of `pcc build -O2 "
        "--emit obj`, the whole pipeline to the object file; use-profile = speedup of `--use-profile`, plain / guided user time, medians "
        f"of {PGO_RUNS} interleaved runs (the guided code runs in user mode; system time is page zeroing, the "
        f"same in both), trained with kbl, k = {PGO_K}, on the same input; profiling columns = instrumented / plain run time, kbl with k = 4; gcc -fprofile-generate = the "
        "same ratio for gcc's own edge profiler on the C port, `gcc -O2 -fprofile-generate` / `gcc -O2`, "
        "interleaved runs"
        + ("; baseline = the `--baseline` pcc binary" if base else "") + "):",
        "",
        "| benchmark | gcc -O2 | pcc -O2 | pcc / gcc | "
        + ("baseline | baseline / gcc | " if base else "") + "compile | use-profile | " + " | ".join(modes)
        + " | gcc -fprofile-generate |",
        "|---|---|---|---|" + ("---|---|" if base else "") + "---|---|" + "---|" * len(modes) + "---|",
    ]
    for name, t_c, t_pcc, t_compile, overheads, t_base, guided, gcc_profiled in rows:
        cells = " | ".join(f"{o:.2f}" for o in overheads)
        baseline = f"{t_base:.3f} | {t_base / t_c:.2f} | " if base else ""
        lines.append(
            f"| {name} | {t_c:.3f} | {t_pcc:.3f} | {t_pcc / t_c:.2f} | {baseline}{t_compile:.3f} | {guided:.2f} | "
            f"{cells} | {gcc_profiled:.2f} |"
        )
    means = " | ".join(f"{geomean([r[4][i] for r in rows]):.2f}" for i in range(len(modes)))
    ratio = geomean([r[2] / r[1] for r in rows])
    baseline = f" | {geomean([r[5] / r[1] for r in rows]):.2f} |" if base else ""
    total_compile = sum(r[3] for r in rows)
    guided = geomean([r[6] for r in rows])  # speedups
    gcc_profiled = geomean([r[7] for r in rows])
    lines.append(
        f"| geometric mean | | | {ratio:.2f} |{baseline} {total_compile:.3f} (sum) | {guided:.2f} | {means} | "
        f"{gcc_profiled:.2f} |"
    )
    return lines


def detail_tables(rows):
    modes = [m for m, _ in DETAIL_MODES]
    lines = [
        "",
        "Profiling overhead on loop kernels at -O2 (instrumented / plain; `hash` = functions counting paths in a "
        "hash table):",
        "",
        "| program | plain (s) | " + " | ".join(f"{m} | {m} hash" for m in modes) + " |",
        "|---|---|" + "---|---|" * len(modes),
    ]
    for name, plain, per_mode, _ in rows:
        cells = " | ".join(f"{ratio:.2f} | {hashed}" for ratio, hashed in per_mode)
        lines.append(f"| {name} | {plain:.3f} | {cells} |")
    means = " | ".join(f"{geomean([r[2][i][0] for r in rows]):.2f} | " for i in range(len(modes)))
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
    lines.append(f"| geometric mean | | {geomean(aodfs):.2f}% | {moved_total} in all |")
    return lines


def wpp_table(runs):
    lines = [
        "",
        "`wpp` at -O2 (overhead = wpp / plain user time, the grammar thread included; "
        "compression = trace length / grammar size, in symbols; paths/s = trace length / wpp time; "
        "hot = CPU seconds of `pcc wpp hot` on the profile with `--min-cost 100000 --max-len 100`, one run):",
        "",
        "| program | args | plain (s) | wpp (s) | overhead | trace (acyclic paths) | distinct | "
        "grammar symbols | rules | compression | M paths/s | hot (s) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    wrows = wpp_rows(runs)
    for name, args, plain, t, trace, distinct, size, rules, t_hot in wrows:
        lines.append(
            f"| {name} | {args} | {plain:.3f} | {t:.3f} | {t / plain:.1f} | {trace} | {distinct} | "
            f"{size} | {rules} | {trace / max(size, 1):.1f} | {trace / t / 1e6:.2f} | {t_hot:.2f} |"
        )
    lines.append(f"| geometric mean | | | | {geomean([r[3] / r[2] for r in wrows]):.1f} | | | | | | | |")
    return lines


def throughput_tables():
    lines = [
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
    lines += [
        "",
        "k-slab forest throughput (`cargo run --release -p pcc-profiler --example ksf_throughput`: "
        "10 M path ids, best of 3; `dense` = the child rows the runtime uses for functions with few "
        "paths, `hashed` = the hash-table index):",
        "",
        "| stream | k | index | M path ids/s | k-SF nodes | make_k_ipf (ms) |",
        "|---|---|---|---|---|---|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in ksf_rows()]
    return lines


def aot_table(runs):
    lines = [
        "",
        "Native executables (`pcc build -O2`; build = compile + link with `cc`; pcc run includes JIT compilation):",
        "",
        "| program | build (s) | executable (MiB) | pcc run (s) | executable (s) | executable / run |",
        "|---|---|---|---|---|---|",
    ]
    rows = aot_rows(runs)
    for name, t_build, size, t_jit, t_aot in rows:
        lines.append(
            f"| {name} | {t_build:.3f} | {size / 2**20:.1f} | {t_jit:.3f} | {t_aot:.3f} | {t_aot / t_jit:.2f} |"
        )
    lines.append(f"| geometric mean | | | | | {geomean([r[4] / r[3] for r in rows]):.2f} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="repetitions per measurement")
    parser.add_argument("--only", nargs="*", default=[], help="suite benchmarks to run (default: all)")
    parser.add_argument("--suite-only", action="store_true", help="only the suite table")
    parser.add_argument(
        "--pgo-only",
        action="store_true",
        help="only the --use-profile speedups with what each recompilation changed, and gcc's and clang's "
        "profile-guided speedups on the C ports, written to bench/pgo.md "
        "unless --out says otherwise",
    )
    parser.add_argument(
        "--wpp-only", action="store_true", help="only the wpp table (section 3), printed, not written"
    )
    parser.add_argument(
        "--code-only", action="store_true", help="only gcc -O2 against pcc -O2 (and --baseline), printed, not written"
    )
    parser.add_argument(
        "--compile-only", action="store_true", help="only the suite's compile times (and --baseline's), printed"
    )
    parser.add_argument(
        "--modes-only", action="store_true",
        help="only the researcher's table: every profiling mode's overhead, profile size and post-processing "
        "time, on the suite (or --programs), printed",
    )
    parser.add_argument("--programs", nargs="*", default=[], help="with --modes-only: your own PL programs")
    parser.add_argument("--csv", help="with --modes-only: also write the table as CSV here")
    parser.add_argument("--baseline", help="another pcc binary to time on the suite, for before/after ratios")
    parser.add_argument("--out")
    opts = parser.parse_args()
    build()
    if opts.pgo_only:
        report = "\n".join([f"Machine: {machine()}", "", *pgo_table(pgo_rows(opts.runs, set(opts.only)))]) + "\n"
        print(report)
        Path(opts.out or ROOT / "bench" / "pgo.md").write_text(report)
        return
    if opts.code_only:
        rows = code_rows(opts.runs, set(opts.only), opts.baseline)
        print("\n".join([f"Machine: {machine()}", "", *code_table(rows, opts.runs)]))
        return
    if opts.compile_only:
        print("\n".join([f"Machine: {machine()}", "", *compile_table(opts.runs, set(opts.only), opts.baseline)]))
        return
    if opts.modes_only:
        programs = list(user_programs(opts.programs) if opts.programs else benchmarks(set(opts.only)))
        rows = modes_rows(opts.runs, programs)
        print("\n".join([f"Machine: {machine()}", "", *modes_table(rows, opts.runs)]))
        if opts.csv:
            modes_csv(rows, opts.csv)
        return
    if opts.wpp_only:
        print("\n".join([f"Machine: {machine()}", "", *wpp_table(opts.runs)]))
        return
    lines = [
        f"Machine: {machine()}",
        f"Median of {opts.runs} runs each; user seconds of run times, CPU seconds of build and compile times; pcc times include process start and JIT compilation.",
        "",
    ]
    lines += suite_table(suite_rows(opts.runs, set(opts.only), opts.baseline))
    if not opts.suite_only:
        lines += detail_tables(detail_rows(opts.runs))
        lines += wpp_table(opts.runs)
        lines += throughput_tables()
        lines += aot_table(opts.runs)
    report = "\n".join(lines) + "\n"
    print(report)
    Path(opts.out or ROOT / "bench" / "results.md").write_text(report)


if __name__ == "__main__":
    main()
