"""Side-by-side benchmark: the p-nearest-neighbour graph of TDT2, manifactor
against scikit-learn's kneighbors_graph, and a check that they agree.

Prepares TDT2 as the papers do (bench/compare.py's prepare: all-zero terms
dropped, x = tf * log(n / df), unit-length documents), times
`kneighbors_graph(X, p, metric="cosine")` and `manifactor graph` on it in the
same run, and compares the two graphs after making scikit-learn's symmetric
by the same OR rule. Pairs that only one side has are expected where a
document's p-th and (p+1)-th neighbours are equally similar (copies of a
document, for one), since scikit-learn breaks such ties arbitrarily and
manifactor by the lower index; any other difference is reported as a
mismatch.

manifactor's time is the `seconds` of `manifactor graph --json`, the graph
construction alone; scikit-learn's is the kneighbors_graph call alone.
scikit-learn runs with its defaults (n_jobs=None); manifactor with all cores.
Several runs of manifactor (it takes well under a second) give a median.

Usage: python3 bench/graph_compare.py [--data PATH] [--neighbors 5] [--bin bin/manifactor] [--runs 3]
       python3 bench/graph_compare.py --ours FILE.mtx   (compare a graph built another way, no timing)
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
import sklearn
from sklearn.neighbors import kneighbors_graph

from compare import prepare


def has_graph_command(binary):
    """Whether the manifactor binary has the graph sub-command."""
    if not os.path.exists(binary):
        return False
    r = subprocess.run([binary, "graph", "-h"], capture_output=True, text=True)
    return "manifactor graph" in r.stdout + r.stderr


def manifactor_graph(binary, data, p, out):
    cmd = [binary, "graph", "--data", data, "--weighting", "tfidf", "--normalize", "l2", "--neighbors", str(p),
           "--weight", "binary", "--out", out, "--json"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def upper_pairs(w):
    """The set of pairs (i, j), i < j, stored in the symmetric matrix w."""
    u = sp.triu(sp.csr_matrix(w), k=1).tocoo()
    return set(zip(u.row.tolist(), u.col.tolist()))


def pth_similarity(x, i, p):
    """The p-th largest cosine similarity of unit-length row i to the others."""
    s = np.asarray((x @ x[i].T).todense()).ravel()
    s[i] = -np.inf
    return np.partition(s, -p)[-p]


def agreement(x, ours, theirs, p, tol=1e-9):
    """Compares two symmetric graphs; a pair only one side has is put down to
    a tie when its similarity equals, within tol, the p-th best of one of its
    two documents (the boundary of that document's neighbour list)."""
    a, b = upper_pairs(ours), upper_pairs(theirs)
    only = [(e, "manifactor") for e in sorted(a - b)] + [(e, "scikit-learn") for e in sorted(b - a)]
    pth = {}
    unexplained = []
    for (i, j), side in only:
        sim = x[i].multiply(x[j]).sum()
        for d in (i, j):
            if d not in pth:
                pth[d] = pth_similarity(x, d, p)
        if abs(sim - pth[i]) > tol and abs(sim - pth[j]) > tol:
            unexplained.append((i, j, side, sim, pth[i], pth[j]))
    return len(a & b), len(a - b), len(b - a), unexplained


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/tdt2/TDT2.mat")
    ap.add_argument("--neighbors", type=int, default=5)
    ap.add_argument("--bin", default="bin/manifactor")
    ap.add_argument("--runs", type=int, default=3, help="runs of manifactor (median reported)")
    ap.add_argument("--ours", help="compare this Matrix Market graph instead of running manifactor")
    args = ap.parse_args()
    if not os.path.exists(args.data):
        sys.exit(f"{args.data} not found: the real data sets live in ../shared/data")
    p = args.neighbors

    ours_times = []
    ours = None
    if args.ours:
        ours = scipy.io.mmread(args.ours).tocsr()
    elif has_graph_command(args.bin):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "graph.mtx")
            for _ in range(args.runs):
                ours_times.append(manifactor_graph(args.bin, args.data, p, out)["seconds"])
            ours = scipy.io.mmread(out).tocsr()
    else:
        sys.exit(f"{args.bin} has no graph sub-command: build it (make build), or time the graph with\n"
                 f"  go test -run '^$' -bench TDT2Graph ./bench/\n"
                 f"and compare a graph written another way with --ours FILE.mtx")

    x = prepare(args.data)
    t = time.perf_counter()
    knn = kneighbors_graph(x, p, metric="cosine")
    sk_time = time.perf_counter() - t
    theirs = knn.maximum(knn.T).tocsr()

    same, ours_only, theirs_only, bad = agreement(x, ours, theirs, p)

    print(f"TDT2 {x.shape[0]} docs x {x.shape[1]} terms, {x.nnz} non-zeros, p = {p}, binary weights, "
          f"OR-symmetrized; scikit-learn {sklearn.__version__}, numpy {np.__version__}, "
          f"Python {platform.python_version()}, {os.cpu_count()} cores\n")
    print("| implementation | seconds | speed-up vs scikit-learn |")
    print("| --- | ---: | ---: |")
    print(f"| scikit-learn kneighbors_graph(X, {p}, metric='cosine') | {sk_time:.2f} | 1.0x |")
    if ours_times:
        med = statistics.median(ours_times)
        print(f"| manifactor graph (median of {len(ours_times)}: "
              f"{', '.join(f'{s:.3f}' for s in ours_times)}) | {med:.3f} | {sk_time / med:.1f}x |")
    print()
    print(f"edges: {same} in both, {ours_only} only in manifactor's, {theirs_only} only in scikit-learn's; "
          f"{ours_only + theirs_only - len(bad)} of the differences are ties at a neighbour-list boundary, "
          f"{len(bad)} are not")
    for i, j, side, sim, pi, pj in bad[:20]:
        print(f"  mismatch: documents {i + 1} and {j + 1} (only {side}): similarity {sim:.15f}, "
              f"p-th best {pi:.15f} and {pj:.15f}")
    if bad:
        sys.exit(1)


if __name__ == "__main__":
    main()
