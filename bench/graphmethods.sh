#!/usr/bin/env bash
# The graph methods against their plain forms on every corpus of
# ../shared/data with the command line's defaults: the protocol (k = 2..10,
# or up to the class count, 10 draws per k) for nmf, gnmf, cf and lccf.
# Lambda auto's candidates, reported beside each graph method, are the
# method at each weight on the same draws and seeds: each fixed weight's
# fit (a sweep without fitting again) under --candidate-start same, which
# the comparison of auto with the best fixed lambda needs (pass it as an
# extra flag for that table); the path's fits under the default for gnmf.
# Writes one JSON file per corpus and method list into OUT (default
# out/graphmethods; an existing file is kept) and prints the tables
# (bench/graphmethods.py). Takes a few hours on 2 cores.
# Usage: bench/graphmethods.sh [OUT] [RUNS] [METHODS] [EXTRA FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/graphmethods}
runs=${2:-10}
methods=${3:-nmf,gnmf,cf,lccf}
extra=("${@:4}")
tag=$methods${4:+$(printf '%s' "${extra[*]}" | tr -c 'a-zA-Z0-9,\n-' _)}
mkdir -p "$out"
make -s build >/dev/null
. bench/corpora.sh
for c in "${corpora[@]}"; do
	IFS='|' read -r name flags maxk _ <<<"$c"
	# shellcheck disable=SC2206
	args=($flags --clusters "2-$maxk")
	f=$out/$name-$tag.json
	[ -s "$f" ] ||
		bin/manifactor experiment "${args[@]}" --methods "$methods" --runs "$runs" "${extra[@]}" --format json --quiet >"$f"
done
python3 bench/graphmethods.py "$out"
