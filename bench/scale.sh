#!/usr/bin/env bash
# The whole path on generated corpora (internal/corpus: Zipf terms over a
# 100,000-term vocabulary, 20 planted classes, stories of 20 documents),
# at each size given (default 50000 200000 500000 documents):
#
#   1. graph:   the 5-NN graph (--graph-search auto), its time, and its
#               recall against the exact search over 2,000 sampled queries;
#   2. cluster: GNMF (load, graph, factorization to the default stopping
#               rule, k-means assignment), k = 20, lambda $LAMBDA (default
#               10, the invariant formulation's fixed default; LAMBDA=auto
#               runs the default --lambda auto, which fits 8 candidates):
#               wall time, peak memory, accuracy and NMI against the
#               planted classes;
#   3. bench:   NMF k = 30 per iteration against scikit-learn's mu on the
#               same matrix in the same run (bench/compare.py), where
#               scikit-learn is installed, unless SKIP_SKLEARN=1.
#
# Corpora are written once to out/scale/ (about 1.6 KB a document). Peak
# memory is GNU time's maximum resident set size. Usage:
#
#   bench/scale.sh [DOCS...]
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build >/dev/null
mkdir -p out/scale
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(50000 200000 500000)
timer=()
if [ -x /usr/bin/time ]; then
	timer=(/usr/bin/time -f 'wall %e s, peak %M KB')
fi
. bench/python.sh
py=$(sklearn_python)
echo "# bench/scale.sh on $(nproc) cores, $(date -u +%Y-%m-%d)"
for n in "${sizes[@]}"; do
	f=out/scale/gen$n.mat
	[ -f "$f" ] || go run ./internal/cmd/gencorpus -docs "$n" -seed 1 -out "$f"
	echo "## $n documents ($(du -h "$f" | cut -f1))"
	echo "### graph"
	"${timer[@]}" bin/manifactor graph --data "$f" --recall 2000 --out out/scale/graph$n.mtx --quiet 2>&1 | grep -v 'term counts'
	echo "### cluster --method gnmf --k 20 --lambda ${LAMBDA:-10}"
	"${timer[@]}" bin/manifactor cluster --data "$f" --method gnmf --k 20 --lambda "${LAMBDA:-10}" --quiet --json 2>&1 |
		grep -E '"(lambda|iterations|status|seconds|graph_seconds|accuracy|nmi)"|wall' | grep -v '^      '
	if [ -n "$py" ] && [ "${SKIP_SKLEARN:-0}" != 1 ]; then
		echo "### NMF per iteration against scikit-learn"
		"$py" bench/compare.py --data "$f" --k 30 --iters 5 --rounds 3 --variants default
	fi
done
