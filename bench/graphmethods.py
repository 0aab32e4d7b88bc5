"""Tables of bench/graphmethods.sh's results: accuracy (and NMI) averaged
over k per corpus for nmf, gnmf, cf and lccf with the defaults, and each
graph method at every fixed lambda of auto's candidates (same draws and
seeds) beside lambda auto. Usage: python3 bench/graphmethods.py DIR
(every DIR/CORPUS-*.json is read, the files of one corpus merged)"""
import glob
import json
import os
import sys

CORPORA = ["tdt2", "reuters", "ohscal", "la1", "k1b", "coil20", "pie"]
TEXT = {"tdt2", "reuters", "ohscal", "la1", "k1b"}
PAIRS = [("nmf", "gnmf"), ("cf", "lccf")]
CANDIDATES = "lambda_candidates"  # experiment.CandidatesKey


def main(d):
    rows = {}
    for c in CORPORA:
        # Every file of the corpus (one per method list), merged.
        for f in sorted(glob.glob(os.path.join(d, c + "-*.json"))):
            if os.path.getsize(f):
                t = json.load(open(f))
                r = rows.setdefault(c, {})
                r.setdefault(CANDIDATES, {}).update(t.pop(CANDIDATES, {}))
                r.update(t)
    pairs = [p for p in PAIRS if any(p[1] in t for t in rows.values())]
    print("| corpus | " + " | ".join(f"{p} | {g} (auto) | {g} - {p}" for p, g in pairs) + " |")
    print("| --- |" + " ---: | ---: | ---: |" * len(pairs))
    gains = {g: [] for _, g in pairs}
    for c, t in rows.items():
        cells = []
        for p, g in pairs:
            if p not in t or g not in t:
                cells.append(" | | ")
                continue
            a = {m: 100 * t[m]["average"]["accuracy_mean"] for m in (p, g)}
            n = {m: 100 * t[m]["average"]["nmi_mean"] for m in (p, g)}
            if c in TEXT:
                gains[g].append(a[g] - a[p])
            cells.append(f"{a[p]:.1f} / {n[p]:.1f} | {a[g]:.1f} / {n[g]:.1f} | {a[g] - a[p]:+.1f}")
        print(f"| {c} | " + " | ".join(cells) + " |")
    for m, v in gains.items():
        if v:
            print(f"\n{m}: mean gain over the {len(v)} text corpora {sum(v) / len(v):+.1f} points")
    for _, g in pairs:
        cands = {c: t[CANDIDATES][g] for c, t in rows.items() if g in t.get(CANDIDATES, {})}
        if not cands:
            continue
        lambdas = [x["lambda"] for x in next(iter(cands.values()))]
        print(f"\n{g}: each lambda (auto's candidates: each weight's fixed fit under --candidate-start same, the path's fits under path; 0 is the plain method under the graph method's solver) against auto, accuracy, with how often auto kept it")
        print("\n| corpus | " + " | ".join(f"lambda {v:g}" for v in lambdas) + " | best fixed | auto | auto - best |")
        print("|---" * (len(lambdas) + 4) + "|")
        within = 0
        for c, cs in cands.items():
            vals = [100 * x["average"]["accuracy_mean"] for x in cs]
            best = max(vals)
            auto = 100 * rows[c][g]["average"]["accuracy_mean"]
            within += auto >= best - 2
            print(f"| {c} | " + " | ".join(f"{v:.1f} ({x['kept']})" for v, x in zip(vals, cs)) +
                  f" | {best:.1f} | {auto:.1f} | {auto - best:+.1f} |")
        print(f"\n{g}: auto within 2 points of the best fixed lambda on {within} of {len(cands)} corpora")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/graphmethods")
