#!/usr/bin/env bash
# Per-iteration time of cd against mu for every method that has cd (issue
# 12's bar: cd at most 1.5 times mu's), one build, alternating the solvers
# and rounds (this machine's speed drifts) and printing the medians.
#
# Usage: bench/periter.sh [ROUNDS] [ITERS] [K]   e.g. bench/periter.sh 3 60 30
# Needs ../shared/data; TDT2 with its default preparation, 2 threads and 1,
# every iteration evaluated (bench's default), --tol off --pg-tol off so every
# run makes ITERS iterations. docs/PERFORMANCE.md records its output.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
iters=${2:-60}
k=${3:-30}
data=../shared/data/tdt2/TDT2.mat
[ -e "$data" ] || { echo "bench/periter.sh: $data not found (../shared/data is needed)" >&2; exit 1; }
make -s build >/dev/null
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in $(seq "$rounds"); do
	for t in 2 1; do
		for m in nmf gnmf nmf-kl lpnmf; do
			for s in mu cd; do
				ms=$(bin/manifactor bench --data "$data" --method "$m" --solver "$s" --k "$k" --iters "$iters" \
					--threads "$t" --tol off --pg-tol off --quiet --json 2>/dev/null |
					python3 -c 'import json, sys; print(json.load(sys.stdin)["ms_per_iter"])')
				echo "$t $m $s $ms" >>"$out"
			done
		done
	done
done
python3 - "$out" "$rounds" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t, m, s, ms = line.split()
    runs[(t, m, s)].append(float(ms))
print(f"# ms an iteration, medians of {sys.argv[2]} rounds (TDT2, k as given)")
print("| method | 2 threads mu / cd | cd / mu | 1 thread mu / cd | cd / mu |")
print("| --- | --- | ---: | --- | ---: |")
for m in ("nmf", "gnmf", "nmf-kl", "lpnmf"):
    cells = []
    for t in ("2", "1"):
        mu, cd = statistics.median(runs[(t, m, "mu")]), statistics.median(runs[(t, m, "cd")])
        cells += [f"{mu:.2f} / {cd:.2f}", f"{cd / mu:.2f}"]
    print(f"| {m} | " + " | ".join(cells) + " |")
PY
