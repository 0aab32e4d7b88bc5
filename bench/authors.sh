#!/usr/bin/env bash
# GNMF's default against NMF's on generated corpora with authors
# (internal/corpus, -authors): 40 classes of weights (c+1)^-1, authors of
# 10 documents on average each in one class, a fifth of every document's
# words from its author's own 200 terms, 3 % from its class's terms, the
# rest Zipf over a 500,000-term vocabulary, 100 words a document. Their
# 5-NN graphs join an author's documents, not topics, as a real corpus of
# blog posts did (docs/REPRODUCTION.md, "Lambda auto on corpora with
# authors"). Then a control whose graph helps: 20 classes, authors of 30,
# 15 % author words, 5 % class words, 200 words, 200,000 terms.
#
# For each corpus (written once to out/authors/, about 1 KB a document)
# and ROUNDS alternating rounds, `cluster --k K --json` with nmf and then
# gnmf, every other setting the default: accuracy, the largest cluster's
# share, the size entropy over its maximum, gnmf's lambda and verdict, and
# wall time and peak memory (GNU time) with gnmf's time over nmf's, the
# median of the rounds. Usage:
#
#   bench/authors.sh [ROUNDS] [SIZES...]      (default 1; 20000 100000 500000)
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build >/dev/null
rounds=${1:-1}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(20000 100000 500000)
out=out/authors
mkdir -p "$out"
family=(-terms 500000 -classes 40 -class-skew 1 -authors 10 -author-share 0.2 -topic 0.03 -words 100)
control=(-terms 200000 -classes 20 -class-skew 1 -authors 30 -author-share 0.15 -topic 0.05 -words 200)
run() { # name k
	local f=$out/$1.mat
	for r in $(seq "$rounds"); do
		for m in nmf gnmf; do
			/usr/bin/time -f '%e %M' -o "$out/$1.$m.$r.time" bin/manifactor cluster --data "$f" --method "$m" --k "$2" --json --quiet >"$out/$1.$m.$r.json" 2>/dev/null
		done
	done
	python3 - "$out" "$1" "$rounds" <<'PY'
import json, math, statistics, sys
out, name, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def sizes(j):
    s = j["cluster_sizes"]; n = sum(s)
    return max(s) / n, -sum(x / n * math.log(x / n) for x in s if x) / math.log(len(s))
row, ratio = {}, []
for r in range(1, rounds + 1):
    t = {m: open(f"{out}/{name}.{m}.{r}.time").read().split() for m in ("nmf", "gnmf")}
    ratio.append(float(t["gnmf"][0]) / float(t["nmf"][0]))
    for m in ("nmf", "gnmf"):
        row.setdefault(m, []).append((float(t[m][0]), int(t[m][1]) / 1e6))
for m in ("nmf", "gnmf"):
    j = json.load(open(f"{out}/{name}.{m}.1.json"))
    largest, entropy = sizes(j)
    secs = statistics.median(x[0] for x in row[m]); gb = max(x[1] for x in row[m])
    extra = ""
    if m == "gnmf":
        s = j.get("auto_sample")
        extra = f" lambda {j['lambda']:g} ({j['graph_verdict']}" + (f", chosen on a sample of {s['samples']}: {s['verdict']}, lambda {s['lambda']:g})" if s else ")")
    print(f"{name} {m}: accuracy {100 * j['accuracy']:.1f} %, largest cluster {largest:.3f}, size entropy {entropy:.2f}, {secs:.1f} s, {gb:.2f} GB{extra}")
print(f"{name} gnmf / nmf time: {statistics.median(ratio):.2f} (rounds {', '.join(f'{x:.2f}' for x in ratio)})")
PY
}
for n in "${sizes[@]}"; do
	name=authors$n
	[ -s "$out/$name.mat" ] || go run ./internal/cmd/gencorpus -docs "$n" "${family[@]}" -out "$out/$name.mat" >/dev/null
	run "$name" 40
done
for n in 100000 500000; do
	name=control$n
	[ -s "$out/$name.mat" ] || go run ./internal/cmd/gencorpus -docs "$n" "${control[@]}" -out "$out/$name.mat" >/dev/null
	run "$name" 20
done
