#!/usr/bin/env bash
# The cost of a cross-validated rank sweep (issue 53): manifactor rank as
# it runs (warm starts), the same sweep with --cold (one independent fit
# per rank and replicate, the peers' way), and RcppML fitting the same
# ranks and replicates on the same prepared matrix (bench/rcppml_fits.R),
# alternating over rounds and printing medians and ratios.
#
# Usage: bench/rankcost.sh [ROUNDS] [KS] [STEP]   e.g. bench/rankcost.sh 3 2-50 4
# Needs ../shared/data (TDT2), python3 with SciPy, R with RcppML
# (apt-get install r-cran-rcppml; RCPPML=0 leaves it out); builds the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
ks=${2:-2-50}
step=${3:-4}
data=../shared/data/tdt2/TDT2.mat
[ -e "$data" ] || { echo "bench/rankcost.sh: $data not found (../shared/data is needed)" >&2; exit 1; }
rcppml=${RCPPML:-1}
if [ "$rcppml" = 1 ] && ! Rscript -e 'library(RcppML)' >/dev/null 2>&1; then
	echo "bench/rankcost.sh: R with RcppML not found: apt-get install r-cran-rcppml (or RCPPML=0)" >&2
	exit 1
fi
make -s build >/dev/null
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
list=$(python3 -c 'import sys; a, b = map(int, sys.argv[1].split("-")); print(",".join(map(str, range(a, b + 1, int(sys.argv[2])))))' "$ks" "$step")
if [ "$rcppml" = 1 ]; then
	/usr/bin/python3 bench/prepare.py "$data" "$dir/x.mtx" --transpose
fi
for r in $(seq "$rounds"); do
	bin/manifactor rank --data "$data" --method nmf --k "$list" --json --quiet >"$dir/warm-$r.json"
	bin/manifactor rank --data "$data" --method nmf --k "$list" --cold --json --quiet >"$dir/cold-$r.json"
	if [ "$rcppml" = 1 ]; then
		Rscript bench/rcppml_fits.R "$dir/x.mtx" "$list" 3 "$(nproc)" >"$dir/rcppml-$r.json"
	fi
done
python3 - "$dir" "$rounds" <<'PY'
import json, os, statistics, sys
d, rounds = sys.argv[1], int(sys.argv[2])
def load(name):
    return [json.load(open(os.path.join(d, f"{name}-{r}.json"))) for r in range(1, rounds + 1)
            if os.path.exists(os.path.join(d, f"{name}-{r}.json"))]
warm, cold, rc = load("warm"), load("cold"), load("rcppml")
its = lambda o: sum(p["iterations"] for p in o["curve"])
med = lambda xs: statistics.median(xs)
w, c = med([o["seconds"] for o in warm]), med([o["seconds"] for o in cold])
print(f"# TDT2, nmf, ranks {warm[0]['curve'][0]['k']}-{warm[0]['curve'][-1]['k']} ({len(warm[0]['curve'])}), "
      f"{warm[0]['replicates']} replicates, medians of {rounds} rounds")
print("| sweep | seconds | fits' iterations | chosen k | ratio to warm |")
print("| --- | ---: | ---: | ---: | ---: |")
print(f"| manifactor rank (warm starts) | {w:.1f} | {its(warm[0])} | {warm[0]['k']} | 1 |")
print(f"| manifactor rank --cold | {c:.1f} | {its(cold[0])} | {cold[0]['k']} | {c / w:.2f} |")
if rc:
    s = med([o["seconds"] for o in rc])
    print(f"| RcppML {rc[0]['rcppml']} nmf, the same ranks x replicates, no mask | {s:.1f} | {rc[0]['iterations']} | - | {s / w:.2f} |")
PY
