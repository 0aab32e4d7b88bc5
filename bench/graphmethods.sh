#!/usr/bin/env bash
# The graph methods against their plain forms on every corpus of
# ../shared/data with the command line's defaults: the protocol (k = 2..10,
# or up to the class count, 10 draws per k) for nmf, gnmf, cf and lccf,
# and gnmf at fixed lambdas for the comparison with lambda auto. Writes
# one JSON file per corpus and command into OUT (default out/graphmethods)
# and prints the tables (bench/graphmethods.py). Takes a few hours on 2
# cores. Usage: bench/graphmethods.sh [OUT] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/graphmethods}
runs=${2:-10}
mkdir -p "$out"
make -s build >/dev/null
d=../shared/data
corpora=(
	"tdt2|--data $d/tdt2/TDT2.mat --clusters 2-10"
	"reuters|--data $d/reuters21578 --single-label --min-class-size 5 --clusters 2-10"
	"ohscal|--data $d/cluto/ohscal.mat --clusters 2-10"
	"la1|--data $d/cluto/la1.mat --clusters 2-6"
	"k1b|--data $d/cluto/k1b.mat --clusters 2-6"
	"coil20|--data $d/coil20/COIL20.mat --clusters 2-10"
	"pie|--data $d/pie/PIE_32x32_10class.mat --clusters 2-10"
)
for c in "${corpora[@]}"; do
	name=${c%%|*}
	# shellcheck disable=SC2086
	args=(${c#*|})
	[ -s "$out/$name-experiment.json" ] ||
		bin/manifactor experiment "${args[@]}" --methods nmf,gnmf,cf,lccf --runs "$runs" --format json >"$out/$name-experiment.json"
	[ -s "$out/$name-sweep.json" ] ||
		bin/manifactor sweep "${args[@]}" --method gnmf --param lambda=1,3,10,30,100,300,1000 --runs "$runs" --format json >"$out/$name-sweep.json"
done
python3 bench/graphmethods.py "$out"
