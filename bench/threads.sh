#!/usr/bin/env bash
# Thread scaling (issue 13, part 2), as measured on the 16-core machine of
# docs/PERFORMANCE.md: at each thread count T (GOMAXPROCS=T and --threads T),
# ROUNDS rounds of
#   - an NMF iteration on TDT2, k = 30, mu and cd (bench --iters 100 / 50);
#   - an NMF iteration on a generated corpus of DOCS documents, k = 30, mu
#     (bench --iters 5), and cd at the first and last T;
#   - the exact 5-NN graph of TDT2;
# then, once at each T, the other methods on TDT2 (nmf-kl and lpnmf under
# mu and cd, gnmf under cd: ms an iteration) and the k-means start (bench
# --start kmeans --iters 1: its fit time less the iteration, in seconds);
# and at the first T the corpus's approximate graph and GNMF end to end
# (cluster --method gnmf --k 20 --lambda 10). Prints one line per run
# (label, threads, ms an iteration or seconds) and a table of medians.
#
#   bench/threads.sh [THREADS...]        (default those of 16 8 4 2 1 up to nproc)
#
# Environment: MF (default bin/manifactor, built by make), GEN (a gencorpus
# binary; default go run ./internal/cmd/gencorpus), DATA (TDT2.mat), DOCS
# (default 500000), ROUNDS (default 2), CORPUS (where the corpus is written,
# default out/scale/genDOCS.mat; kept). For a machine without Go, build
# static binaries and copy them with TDT2.mat:
#
#   CGO_ENABLED=0 go build -o DIR/manifactor ./cmd/manifactor
#   CGO_ENABLED=0 go build -o DIR/gencorpus ./internal/cmd/gencorpus
#   MF=DIR/manifactor GEN=DIR/gencorpus DATA=DIR/TDT2.mat CORPUS=/tmp/g.mat bench/threads.sh
set -uo pipefail
cd "$(dirname "$0")/.."
docs=${DOCS:-500000}
rounds=${ROUNDS:-2}
data=${DATA:-../shared/data/tdt2/TDT2.mat}
corpus=${CORPUS:-out/scale/gen$docs.mat}
mf=${MF:-}
if [ -z "$mf" ]; then
	make -s build >/dev/null || exit 1
	mf=bin/manifactor
fi
ths=("$@")
if [ ${#ths[@]} -eq 0 ]; then
	for t in 16 8 4 2 1; do
		[ "$t" -le "$(nproc)" ] && ths+=("$t")
	done
fi
if [ ! -f "$data" ]; then
	echo "bench/threads.sh: $data not found (set DATA)" >&2
	exit 1
fi
mkdir -p "$(dirname "$corpus")"
if [ ! -f "$corpus" ]; then
	if [ -n "${GEN:-}" ]; then
		"$GEN" -docs "$docs" -seed 1 -out "$corpus" || exit 1
	else
		go run ./internal/cmd/gencorpus -docs "$docs" -seed 1 -out "$corpus" || exit 1
	fi
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# run LABEL T FIELD ARGS...: one run, its FIELD from the JSON.
run() {
	local label=$1 t=$2 field=$3
	shift 3
	local v
	v=$(GOMAXPROCS=$t "$mf" "$@" --threads "$t" --quiet --json 2>/dev/null | tr -d '\n ' |
		grep -o "\"$field\":[0-9.e+-]*" | head -1 | cut -d: -f2)
	echo "$label $t ${v:-failed}" | tee -a "$log"
}
B=(bench --method nmf --k 30)
echo "# bench/threads.sh on $(nproc) cores, $(date -u +%Y-%m-%d), $(git rev-parse --short HEAD 2>/dev/null)"
for r in $(seq "$rounds"); do
	for t in "${ths[@]}"; do
		run tdt2-mu-ms "$t" ms_per_iter "${B[@]}" --data "$data" --solver mu --iters 100
		run tdt2-cd-ms "$t" ms_per_iter "${B[@]}" --data "$data" --solver cd --iters 50
		run tdt2-exact-graph-s "$t" seconds graph --data "$data" --graph-search exact --out /dev/null
		run corpus-mu-ms "$t" ms_per_iter "${B[@]}" --data "$corpus" --solver mu --iters 5
	done
	for t in "${ths[0]}" "${ths[-1]}"; do
		run corpus-cd-ms "$t" ms_per_iter "${B[@]}" --data "$corpus" --solver cd --iters 5
	done
done
for t in "${ths[@]}"; do
	for ms in nmf-kl:mu:20 nmf-kl:cd:10 lpnmf:mu:20 lpnmf:cd:10 gnmf:cd:30; do
		IFS=: read -r m sv it <<<"$ms"
		run "tdt2-$m-$sv-ms" "$t" ms_per_iter bench --method "$m" --k 30 --data "$data" --solver "$sv" --iters "$it"
	done
	# The k-means start: the fit's time less its one iteration.
	v=$(GOMAXPROCS=$t "$mf" bench --method nmf --k 30 --data "$data" --start kmeans --iters 1 --threads "$t" --quiet --json 2>/dev/null |
		tr -d '\n ' | grep -o '"ms_per_iter":[0-9.e+-]*\|"fit_seconds":[0-9.e+-]*' | cut -d: -f2 | tr '\n' ' ')
	echo "tdt2-kmeans-start-s $t $(echo "$v" | awk '{ if (NF == 2) printf "%.3f", $2 - $1 / 1000; else print "failed" }')" | tee -a "$log"
done
run corpus-graph-s "${ths[0]}" seconds graph --data "$corpus" --out /dev/null
run corpus-gnmf-s "${ths[0]}" seconds cluster --data "$corpus" --method gnmf --k 20 --lambda 10
echo "# medians"
sort -k1,1 -k2,2n -k3,3g "$log" | awk '
	function flush() { if (n) { m = (n % 2) ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2; printf "%-20s %3d threads %10.3f (%d runs)\n", key, th, m, n } }
	{ if ($1 != key || $2 != th) { flush(); key = $1; th = $2; n = 0 } if ($3 != "failed") v[++n] = $3 }
	END { flush() }'
