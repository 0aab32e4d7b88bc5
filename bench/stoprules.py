#!/usr/bin/env python3
"""Where each stopping rule would stop a fit, from `manifactor bench --trace
--json --evaluate 1` outputs (one file per fit, run to a fixed --iters).

For each file: the first iteration where the objective's relative decrease
falls below 1e-5 (the default --tol) and the residual there, then the first
iteration where the relative KKT residual (--pg-tol's measure) falls below
1e-2 .. 1e-5, each with the objective's gap to the last iteration's,
(f - f_last) / f_last. See docs/PERFORMANCE.md for the command that makes the
files.
"""
import json
import sys


def main(paths):
    for path in paths:
        with open(path) as f:
            tr = json.load(f).get("trace", [])
        if not tr:
            print(path, "no trace (run bench with --trace --json)")
            continue
        objs = [p["objective"] for p in tr]
        pgs = [p.get("projected_gradient") for p in tr]
        last = objs[-1]
        cols = [path.split("/")[-1]]
        rel = next((i for i in range(1, len(objs)) if (objs[i - 1] - objs[i]) / objs[i - 1] < 1e-5), None)
        if rel is None:
            cols.append("tol 1e-5: never")
        else:
            cols.append("tol 1e-5: it %d, residual %.1e, gap %.1e" % (tr[rel]["iteration"], pgs[rel] or float("nan"), (objs[rel] - last) / last))
        measured = [p for p in pgs if p is not None]
        for t in (1e-2, 1e-3, 1e-4, 1e-5):
            hit = next((i for i, p in enumerate(pgs) if p is not None and p < t), None)
            if hit is None:
                cols.append("pg %g: never (min %.1e)" % (t, min(measured)) if measured else "pg: not measured")
            else:
                cols.append("pg %g: it %d, gap %.1e" % (t, tr[hit]["iteration"], (objs[hit] - last) / last))
        print(" | ".join(cols))


if __name__ == "__main__":
    main(sys.argv[1:])
