#!/bin/bash
# The cost of `--profile=wpp` on loop kernels at sizes where the run, not the start-up, dominates,
# for two pcc executables side by side (A/B of a wpp change).
# usage: bench/wpp_ab.sh OLD_PCC NEW_PCC [RUNS]
# Prints per program the medians of RUNS interleaved runs (CPU seconds, user + system, both
# threads): the plain run (NEW), wpp under OLD and NEW with their ratios to plain and peak RSS, and
# whether both wpp profiles have the same paths and trace length.
set -euo pipefail
OLD=$1; NEW=$2; RUNS=${3:-3}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
cpu() { /usr/bin/time -o "$tmp/t" -f '%U %S %M' "$@" >/dev/null 2>&1; awk '{print $1 + $2}' "$tmp/t"; }
rss() { awk '{print int($3 / 1024)}' "$tmp/t"; }
paths() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(json.dumps(d['functions'], sort_keys=True), d['wpp']['trace_length'])" "$1"; }
for run in "bench/wpp/branchy.pl 100000000" "programs/mandelbrot.pl 600 400 800" \
    "programs/sieve.pl 20000000" "programs/nqueens.pl 11" "programs/loop_heavy.pl 4000"; do
  set -- $run; pl=$1; shift
  plain=(); old=(); new=()
  for _ in $(seq "$RUNS"); do
    plain+=("$(cpu "$NEW" run "$pl" -O2 -- "$@")")
    old+=("$(cpu "$OLD" run "$pl" -O2 --profile=wpp --profile-out "$tmp/old.json" -- "$@")"); old_rss=$(rss)
    new+=("$(cpu "$NEW" run "$pl" -O2 --profile=wpp --profile-out "$tmp/new.json" -- "$@")"); new_rss=$(rss)
  done
  same=different; [ "$(paths "$tmp/old.json")" = "$(paths "$tmp/new.json")" ] && same=same
  p=$(median "${plain[@]}"); o=$(median "${old[@]}"); n=$(median "${new[@]}")
  python3 -c "import sys; p, o, n = map(float, sys.argv[1:4]); print(f'{sys.argv[4]}: plain {p:.2f} s | old {o:.2f} s ({o / p:.2f}x, {sys.argv[5]} MB) | new {n:.2f} s ({n / p:.2f}x, {sys.argv[6]} MB) | paths {sys.argv[7]}')" \
    "$p" "$o" "$n" "$pl $*" "$old_rss" "$new_rss" "$same"
done
