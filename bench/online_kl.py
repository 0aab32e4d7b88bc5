#!/usr/bin/env python3
"""Online NMF under the KL divergence: `manifactor fit --method nmf-kl
--solver minibatch` against scikit-learn's MiniBatchNMF
(beta_loss="kullback-leibler") on the same prepared matrix, the same
number of passes, alternating rounds; manifactor's batch solver (cd) once
as the reference objective.

The corpus is prepared as manifactor prepares it (internal/cmd/prepmtx:
(1 + ln tf) idf, documents at unit length) and written as Matrix Market;
manifactor fits that file, which it takes as it is (it holds no counts).
Both sides run batches of 1,024 (scikit-learn's default) and the given
passes with no early stop. Each side's factors are scored here by one
scorer, D(X || V U^T) with the model floored at 1e-10, from the V each
returns (manifactor's V.mtx; scikit-learn's fit_transform). Times are
each side's own fit (manifactor's summary seconds, which include reading
the file; scikit-learn's fit_transform, which does not).

    /usr/bin/python3 bench/online_kl.py --data ../shared/data/tdt2/TDT2.mat
        [--k 30] [--passes 1,5,25] [--rounds 3]

Needs scikit-learn, SciPy and the Go toolchain.
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def divergence(x, v, u):
    """D(X || V U^T) for X (docs x terms, CSR), V (docs x k), U (terms x k)."""
    c = x.tocoo()
    y = np.maximum(np.einsum("ij,ij->i", v[c.row], u[c.col]), 1e-10)
    return float(np.sum(c.data * np.log(c.data / y) - c.data) + v.sum(0) @ u.sum(0))


def ours(binary, mtx, k, solver, passes, out):
    cmd = [binary, "fit", "--data", mtx, "--method", "nmf-kl", "--k", str(k), "--solver", solver,
           "--out", out, "--json", "--quiet", "--memory", "none"]
    if passes:
        cmd += ["--iters", str(passes), "--tol", "off"]
    r = subprocess.run(cmd, check=True, capture_output=True, text=True)
    s = json.loads(r.stdout)
    u = np.asarray(scipy.io.mmread(os.path.join(out, "U.mtx")))
    v = np.asarray(scipy.io.mmread(os.path.join(out, "V.mtx")))
    return s["seconds"], u, v


def sklearn(x, k, passes):
    from sklearn.decomposition import MiniBatchNMF
    m = MiniBatchNMF(k, beta_loss="kullback-leibler", batch_size=1024, init="random", random_state=1,
                     max_iter=passes, tol=0, max_no_improvement=None)
    t = time.perf_counter()
    w = m.fit_transform(x)
    return time.perf_counter() - t, m.components_.T, w


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="a .mat corpus of term counts (fea)")
    ap.add_argument("--k", type=int, default=30)
    ap.add_argument("--passes", default="1,5,25")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "manifactor")
        subprocess.run(["go", "build", "-o", binary, "./cmd/manifactor"], cwd=ROOT, check=True)
        mtx = os.path.join(tmp, "x.mtx")
        subprocess.run(["go", "run", "./internal/cmd/prepmtx", "--data", os.path.abspath(a.data), "--out", mtx],
                       cwd=ROOT, check=True)
        x = sp.csr_matrix(scipy.io.mmread(mtx))
        secs, u, v = ours(binary, mtx, a.k, "cd", 0, os.path.join(tmp, "cd"))
        ref = divergence(x, v, u)
        print(f"{a.data}: {x.shape[0]} documents, {x.shape[1]} terms, {x.nnz} entries, k = {a.k}")
        print(f"reference: manifactor nmf-kl --solver cd, {secs:.2f} s, D = {ref:.6g}")
        print("passes  manifactor s  sklearn s  ratio  manifactor D/ref  sklearn D/ref")
        for passes in [int(p) for p in a.passes.split(",")]:
            t_ours, t_skl = [], []
            for _ in range(a.rounds):
                s1, u1, v1 = ours(binary, mtx, a.k, "minibatch", passes, os.path.join(tmp, "mb"))
                s2, u2, v2 = sklearn(x, a.k, passes)
                t_ours.append(s1)
                t_skl.append(s2)
            d1, d2 = divergence(x, v1, u1), divergence(x, v2, u2)
            m1, m2 = statistics.median(t_ours), statistics.median(t_skl)
            print(f"{passes:6d}  {m1:12.2f}  {m2:9.2f}  {m2 / m1:5.2f}  {d1 / ref:16.4f}  {d2 / ref:13.4f}")


if __name__ == "__main__":
    main()
