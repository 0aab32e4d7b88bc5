#!/usr/bin/env bash
# Every candidate of --lambda auto on every draw of the protocol (k = 2..10
# or up to the class count, 10 draws per k, seed 1), on every corpus of
# ../shared/data: internal/cmd/autocands writes one JSON line a draw into
# OUT/<corpus>.jsonl (an existing file is kept), then bench/autorules.py
# scores Auto's rule and the alternatives it lists on those records.
# gnmf takes about 5 minutes on 2 cores, lccf about an hour.
# Usage: bench/autorules.sh [OUT] [METHOD]
set -euo pipefail
cd "$(dirname "$0")/.."
method=${2:-gnmf}
out=${1:-out/autorules}/$method
mkdir -p "$out"
go build -o "$out/autocands" ./internal/cmd/autocands
. bench/corpora.sh
for c in "${corpora[@]}"; do
	IFS='|' read -r name flags maxk _ <<<"$c"
	# corpora.sh's flags are the command line's; autocands takes the same.
	# shellcheck disable=SC2086
	[ -s "$out/$name.jsonl" ] ||
		"$out/autocands" $flags -method "$method" -clusters "$maxk" >"$out/$name.jsonl"
done
python3 bench/autorules.py "$out"
