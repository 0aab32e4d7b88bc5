#!/usr/bin/env bash
# Saved models on the Reuters-21578 Lewis split (issue 14): fit a model on
# the TRAIN articles, transform the TEST articles through it, cluster the
# TEST articles on their own for comparison, and transform the TRAIN
# articles again to count how many of fit's clusters come back. NMF and
# GNMF with the command line's defaults (GNMF's lambda auto), the papers'
# selection of single-label articles.
# Usage: bench/transform.sh [K] [SEEDS] [SELECTION...]
#   (default: 10 1,2,3,4,5 --largest 10); needs ../shared/data and make build.
set -euo pipefail
cd "$(dirname "$0")/.."
k=${1:-10}
seeds=${2:-1,2,3,4,5}
shift $(($# < 2 ? $# : 2))
sel=("$@")
[ ${#sel[@]} = 0 ] && sel=(--largest 10)
make -s build >/dev/null
data=../shared/data/reuters21578
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
acc() { python3 -c "import json,sys; print('%.2f' % (100 * json.load(sys.stdin)['accuracy']))"; }
printf '| method | seed | lambda | train (fit) | test (transform) | test (own fit) | training clusters given back |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for m in nmf gnmf; do
	for s in ${seeds//,/ }; do
		dir=$out/$m-$s
		fit=$(bin/manifactor fit --data $data --single-label "${sel[@]}" --split TRAIN --method $m --k "$k" --seed "$s" --quiet --json --out "$dir")
		train=$(echo "$fit" | acc)
		lambda=$(echo "$fit" | python3 -c "import json,sys; print(json.load(sys.stdin).get('lambda', '-'))")
		test=$(bin/manifactor transform --model "$dir" --data $data --single-label "${sel[@]}" --split TEST --json | acc)
		own=$(bin/manifactor cluster --data $data --single-label "${sel[@]}" --split TEST --method $m --k "$k" --seed "$s" --quiet --json | acc)
		bin/manifactor transform --model "$dir" --data $data --single-label "${sel[@]}" --split TRAIN --out "$dir-again" >/dev/null
		back=$(paste -d' ' "$dir/labels.txt" "$dir-again/labels.txt" | awk '{n++; if ($1 == $2) s++} END {printf "%.2f %%", 100 * s / n}')
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$m" "$s" "$lambda" "$train" "$test" "$own" "$back"
	done
done
