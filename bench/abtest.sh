#!/usr/bin/env bash
# Per-iteration time of every method, this build against another revision,
# alternating the two binaries round by round and printing medians (this
# machine's speed drifts; see docs/PERFORMANCE.md).
#
# Usage: bench/abtest.sh REV [ROUNDS] [ITERS]   e.g. bench/abtest.sh HEAD~3 5 30
# Needs ../shared/data; builds bin/manifactor and REV's binary (with
# OpenBLAS when the Makefile finds it). Both sides get the same data:
# TDT2 weighted with (1 + ln tf) log(n/df) at unit length, k = 30,
# lambda 10 for the graph methods. This build's graph methods also run in
# the papers' formulation, the old arithmetic.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: bench/abtest.sh REV [ROUNDS] [ITERS]}
rounds=${2:-5}
iters=${3:-30}
data=../shared/data/tdt2/TDT2.mat
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/src" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
make -s build >/dev/null
tags=$(grep -q openblas <(bin/manifactor info) && echo openblas || true)
git worktree add -q --detach "$tmp/src" "$rev"
(cd "$tmp/src" && go build -tags "$tags" -o "$tmp/old" ./cmd/manifactor)
# The data flags of each side: the old command line spelled the weighting
# --tfidf (log tf on counts by default), the new one --weighting.
flags() {
	local help
	help=$("$1" bench -h 2>&1 || true) # -h exits non-zero
	if grep -q -- '-weighting' <<<"$help"; then
		echo "--weighting log-tfidf --normalize l2"
	else
		echo "--tfidf --tf log --normalize l2"
	fi
}
run() { # binary method [flags...]
	local bin=$1 m=$2 extra=()
	shift 2
	case $m in gnmf* | lccf* | lpnmf*) extra=(--lambda 10) ;; esac
	# shellcheck disable=SC2046
	"$bin" bench --data "$data" $(flags "$bin") --method "$m" --k 30 --iters "$iters" "${extra[@]}" "$@" --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["ms_per_iter"])'
}
# The graph methods run twice on this build: in the papers' formulation
# (the same arithmetic as before the scale-invariant one existed, so the
# same work) and in the default one, whose lambda 10 is a different,
# stiffer problem (for lpnmf: more conjugate-gradient steps per solve).
papers=()
if grep -q -- '-formulation' <<<"$(bin/manifactor bench -h 2>&1 || true)"; then papers=(--formulation papers); fi
echo "| method | $rev ms/iter | this build ms/iter | ratio (this / $rev) | this build, default formulation | ratio |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for m in nmf gnmf cf lccf nmf-kl lpnmf; do
	a=() b=() c=()
	for _ in $(seq "$rounds"); do
		a+=("$(run "$tmp/old" "$m")")
		b+=("$(run bin/manifactor "$m" "${papers[@]}")")
		case $m in gnmf* | lccf* | lpnmf*) c+=("$(run bin/manifactor "$m")") ;; esac
	done
	python3 - "$m" "${a[*]}" "${b[*]}" "${c[*]}" <<'PY'
import statistics, sys
m, a, b = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
c = [float(x) for x in sys.argv[4].split()]
ma, mb = statistics.median(a), statistics.median(b)
row = f"| {m} | {ma:.1f} | {mb:.1f} | {mb / ma:.3f} |"
if c:
    mc = statistics.median(c)
    row += f" {mc:.1f} | {mc / ma:.3f} |"
else:
    row += " (no graph term) | |"
print(row)
PY
done
