#!/usr/bin/env bash
# Clustering quality of the manifold methods against their plain forms,
# averaged over seeds: the acceptance figures of the manifold-methods issue.
# Usage: bench/quality.sh [SEEDS] (default 10); needs ../shared/data.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-10}
bin=bin/manifactor
run() { # data-args... -- method-args...
	local acc=0 nmi=0
	for s in $(seq 1 "$seeds"); do
		read -r a n < <("$bin" cluster "$@" --seed "$s" --json |
			python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["accuracy"], d["nmi"])')
		acc=$(python3 -c "print($acc+$a)"); nmi=$(python3 -c "print($nmi+$n)")
	done
	python3 -c "print('%.2f %% / %.2f %%' % (100*$acc/$seeds, 100*$nmi/$seeds))"
}
tdt2=(--data ../shared/data/tdt2/TDT2.mat --tfidf --normalize l2 --classes 1-10 --k 10)
coil=(--data ../shared/data/coil20/COIL20.mat --k 20)
echo "| data | assignment | method | accuracy / NMI (mean of $seeds seeds) |"
echo "| --- | --- | --- | --- |"
for assign in argmax kmeans; do
	a=(--assign "$assign")
	echo "| TDT2 classes 1-10 | $assign | nmf | $(run "${tdt2[@]}" "${a[@]}" --method nmf) |"
	echo "| TDT2 classes 1-10 | $assign | gnmf (p 5, lambda 100, binary) | $(run "${tdt2[@]}" "${a[@]}" --method gnmf --lambda 100 --weight binary) |"
	echo "| TDT2 classes 1-10 | $assign | cf | $(run "${tdt2[@]}" "${a[@]}" --method cf) |"
	echo "| TDT2 classes 1-10 | $assign | lccf (p 5, lambda 100, cosine) | $(run "${tdt2[@]}" "${a[@]}" --method lccf --lambda 100 --weight cosine) |"
	echo "| TDT2 classes 1-10 | $assign | lccf (p 5, lambda 1000, cosine) | $(run "${tdt2[@]}" "${a[@]}" --method lccf --lambda 1000 --weight cosine) |"
	echo "| COIL20, all 20 objects | $assign | nmf | $(run "${coil[@]}" "${a[@]}" --method nmf) |"
	echo "| COIL20, all 20 objects | $assign | gnmf (p 5, lambda 100, binary) | $(run "${coil[@]}" "${a[@]}" --method gnmf --lambda 100 --weight binary) |"
done
