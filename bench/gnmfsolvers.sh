#!/usr/bin/env bash
# GNMF end to end with the command line's defaults (lambda auto: eight
# fits and the pick) under --solver mu and cd, on every corpus of
# ../shared/data at its class count (30 for TDT2 and Reuters), seed 1,
# in alternating rounds (the machine's speed drifts): the time a user
# waits for the answer, its accuracy and the iterations of the fits.
# Usage: bench/gnmfsolvers.sh [OUT] [ROUNDS] (default out/gnmfsolvers, 2);
# needs ../shared/data and make build.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/gnmfsolvers}
rounds=${2:-2}
mkdir -p "$out"
make -s build >/dev/null
. bench/corpora.sh
for r in $(seq 1 "$rounds"); do
	order="mu cd"
	[ $((r % 2)) = 0 ] && order="cd mu"
	for c in "${corpora[@]}"; do
		IFS='|' read -r name flags _ classes <<<"$c"
		# shellcheck disable=SC2206
		args=($flags --k "$classes")
		for s in $order; do
			bin/manifactor cluster "${args[@]}" --method gnmf --solver "$s" --quiet --json >"$out/$name-$s-$r.json"
		done
	done
done
python3 - "$out" <<'PY'
import glob, json, os, statistics, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*-*-*.json"))):
    name, solver, _ = os.path.basename(f)[:-5].rsplit("-", 2)
    d = json.load(open(f))
    r = rows.setdefault(name, {}).setdefault(solver, {"s": []})
    r["s"].append(d["seconds"])
    r["lambda"], r["acc"] = d["lambda"], 100 * d["accuracy"]
    r["iters"] = sum(c["iterations"] for c in d["lambda_candidates"])
print("| corpus | mu: seconds, iterations, lambda, accuracy | cd: seconds, iterations, lambda, accuracy | cd / mu time |")
print("| --- | --- | --- | ---: |")
for name, r in rows.items():
    if "mu" not in r or "cd" not in r:
        continue
    cell = lambda x: "%.1f s, %d, %g, %.2f" % (statistics.median(x["s"]), x["iters"], x["lambda"], x["acc"])
    print("| %s | %s | %s | %.2f |" % (name, cell(r["mu"]), cell(r["cd"]), statistics.median(r["cd"]["s"]) / statistics.median(r["mu"]["s"])))
PY
