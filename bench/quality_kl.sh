#!/usr/bin/env bash
# NMI of LPNMF against NMF-KL on TDT2's classes 1-10 (the KL-family issue's
# quality point), averaged over seeds. Usage: bench/quality_kl.sh [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-10}
run() {
	local acc=0 nmi=0
	for s in $(seq 1 "$seeds"); do
		read -r a n < <(bin/manifactor cluster "$@" --seed "$s" --json |
			python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["accuracy"], d["nmi"])')
		acc=$(python3 -c "print($acc+$a)"); nmi=$(python3 -c "print($nmi+$n)")
	done
	python3 -c "print('%.2f %% / %.2f %%' % (100*$acc/$seeds, 100*$nmi/$seeds))"
}
t=(--data ../shared/data/tdt2/TDT2.mat --tfidf --normalize l2 --classes 1-10 --k 10)
echo "| method | accuracy / NMI (mean of $seeds seeds) |"
echo "| --- | --- |"
echo "| nmf-kl | $(run "${t[@]}" --method nmf-kl) |"
echo "| lpnmf (p 5, lambda 100, binary) | $(run "${t[@]}" --method lpnmf --lambda 100 --weight binary) |"
echo "| lpnmf (p 5, lambda 1000, binary) | $(run "${t[@]}" --method lpnmf --lambda 1000 --weight binary) |"
