#!/usr/bin/env bash
# A corpus larger than the memory it may use (issue 55's acceptance): a
# generated corpus of DOCS documents over 100,000 terms (internal/corpus,
# 20 planted classes, seed 1) split into PARTS parts, then
#
#   1. streamed: fit --method nmf --k 50 --memory 4G on the parts, which
#                the memory limit makes stream from disk (the summary's
#                mode says so): wall time, peak resident memory, accuracy
#                and NMI against the planted classes, objective;
#   2. memory:   the same fit of the whole file in memory, under 21G (the
#                most a 24 GiB machine can give), for its accuracy;
#   3. gnmf:     fit --method gnmf --k 50 --memory 6G on the parts: it
#                finishes, or is refused before it starts with the
#                estimate's parts;
#
# each printed as it ends. The time, memory and objective against gensim's
# online Nmf are bench/online_gensim.py --data F --parts PARTS --rounds 1
# --memory 4G --assign kmeans. Corpora and parts are kept in out/scale/.
#
#   bench/streamed.sh [DOCS [PARTS]]     (default 2000000 200)
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build >/dev/null
n=${1:-2000000}
parts=${2:-200}
mkdir -p out/scale
f=out/scale/gen$n.mat
p=out/scale/gen$n.parts
[ -f "$f" ] || go run ./internal/cmd/gencorpus -docs "$n" -seed 1 -out "$f"
[ -f "$p/parts.json" ] || bin/manifactor split --data "$f" --parts "$parts" --out "$p" --quiet
timer=(/usr/bin/time -f 'wall %e s, peak %M KB')
summary='import json,sys; d=json.load(sys.stdin); print("mode %s, %d iterations (%s), objective %.6g, accuracy %.4f, NMI %.4f, %.1f s" % (d.get("mode"), d["iterations"], d["status"], d["objective"], d["accuracy"], d["nmi"], d["seconds"]))'
echo "# bench/streamed.sh $n $parts on $(nproc) cores, $(date -u +%Y-%m-%d), $(git rev-parse --short HEAD)"
echo "## streamed: fit --method nmf --k 50 --memory 4G"
"${timer[@]}" bin/manifactor fit --data "$p" --method nmf --k 50 --memory 4G --json --quiet --out out/scale/streamed$n 2>out/scale/streamed$n.err | python3 -c "$summary"
cat out/scale/streamed$n.err
echo "## in memory: fit --method nmf --k 50 --memory 21G"
"${timer[@]}" bin/manifactor fit --data "$f" --method nmf --k 50 --memory 21G --json --quiet --out out/scale/memory$n 2>out/scale/memory$n.err | python3 -c "$summary"
grep -v 'term counts' out/scale/memory$n.err || true
echo "## gnmf: fit --method gnmf --k 50 --memory 6G"
if "${timer[@]}" bin/manifactor fit --data "$p" --method gnmf --k 50 --memory 6G --json --quiet --out out/scale/gnmf$n >out/scale/gnmf$n.json 2>out/scale/gnmf$n.err; then
	python3 -c "$summary" <out/scale/gnmf$n.json
fi
cat out/scale/gnmf$n.err
