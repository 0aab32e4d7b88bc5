"""Tables of bench/graphmethods.sh's results: accuracy (and NMI) averaged
over k per corpus for nmf, gnmf, cf and lccf with the defaults, and gnmf
at each fixed lambda beside lambda auto. Usage: python3 bench/graphmethods.py DIR"""
import json
import os
import sys

CORPORA = ["tdt2", "reuters", "ohscal", "la1", "k1b", "coil20", "pie"]
TEXT = {"tdt2", "reuters", "ohscal", "la1", "k1b"}


def main(d):
    rows, sweeps = {}, {}
    for c in CORPORA:
        e, s = os.path.join(d, c + "-experiment.json"), os.path.join(d, c + "-sweep.json")
        if os.path.exists(e) and os.path.getsize(e):
            rows[c] = json.load(open(e))
        if os.path.exists(s) and os.path.getsize(s):
            sweeps[c] = json.load(open(s))
    print("| corpus | nmf | gnmf (auto) | gnmf - nmf | cf | lccf (auto) | lccf - cf |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    gains = {"gnmf": [], "lccf": []}
    for c, t in rows.items():
        a = {m: 100 * t[m]["average"]["accuracy_mean"] for m in t}
        n = {m: 100 * t[m]["average"]["nmi_mean"] for m in t}
        g, l = a["gnmf"] - a["nmf"], a["lccf"] - a["cf"]
        if c in TEXT:
            gains["gnmf"].append(g)
            gains["lccf"].append(l)
        print(f"| {c} | {a['nmf']:.1f} / {n['nmf']:.1f} | {a['gnmf']:.1f} / {n['gnmf']:.1f} | {g:+.1f} | "
              f"{a['cf']:.1f} / {n['cf']:.1f} | {a['lccf']:.1f} / {n['lccf']:.1f} | {l:+.1f} |")
    for m, v in gains.items():
        if v:
            print(f"\n{m}: mean gain over the {len(v)} text corpora {sum(v) / len(v):+.1f} points")
    if not sweeps:
        return
    print("\n| corpus | " + " | ".join(f"lambda {p['value']:g}" for p in next(iter(sweeps.values()))["points"]) +
          " | best fixed | auto | auto - best |")
    print("|---" * (len(next(iter(sweeps.values()))["points"]) + 4) + "|")
    within = 0
    for c, s in sweeps.items():
        vals = [100 * p["accuracy_mean"] for p in s["points"]]
        best = max(vals)
        auto = 100 * rows[c]["gnmf"]["average"]["accuracy_mean"] if c in rows else float("nan")
        within += auto >= best - 2
        print(f"| {c} | " + " | ".join(f"{v:.1f}" for v in vals) + f" | {best:.1f} | {auto:.1f} | {auto - best:+.1f} |")
    print(f"\nauto within 2 points of the best fixed lambda on {within} of {len(sweeps)} corpora")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/graphmethods")
