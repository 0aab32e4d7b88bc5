#!/usr/bin/env bash
# Clustering quality of the graph methods against their plain forms with
# the command line's defaults (no flag but the data, k and the seed),
# averaged over seeds: the figures of the graph-methods issue.
# Usage: bench/quality.sh [SEEDS] [METHODS] (default 5 seeds and
# "nmf gnmf cf lccf nmf-kl lpnmf" on TDT2); needs ../shared/data and
# bin/manifactor (make build).
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-5}
methods=${2:-nmf gnmf cf lccf nmf-kl lpnmf}
bin=bin/manifactor
run() { # args...
	local acc=0 nmi=0
	for s in $(seq 1 "$seeds"); do
		read -r a n < <("$bin" cluster "$@" --seed "$s" --json 2>/dev/null |
			python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["accuracy"], d["nmi"])')
		acc=$(python3 -c "print($acc+$a)"); nmi=$(python3 -c "print($nmi+$n)")
	done
	python3 -c "print('%.2f %% / %.2f %%' % (100*$acc/$seeds, 100*$nmi/$seeds))"
}
tdt2=(--data ../shared/data/tdt2/TDT2.mat --classes 1-10 --k 10)
coil=(--data ../shared/data/coil20/COIL20.mat --k 20)
echo "| data | method | accuracy / NMI (mean of $seeds seeds) |"
echo "| --- | --- | --- |"
for m in $methods; do
	echo "| TDT2 classes 1-10 | $m | $(run "${tdt2[@]}" --method "$m") |"
done
for m in nmf gnmf; do
	echo "| COIL20, all 20 objects | $m | $(run "${coil[@]}" --method "$m") |"
done
