"""Side-by-side benchmark: manifactor against scikit-learn on one machine.

Runs scikit-learn's NMF (multiplicative updates, Frobenius loss) and
`manifactor bench` on the same prepared matrix in the same run, and prints a
Markdown table of milliseconds per iteration with the ratios. Only the
benchmark needs Python; the project itself never does.

The machine this runs on is a shared virtual machine whose speed drifts by
20-30 % within minutes, so the script alternates the implementations over
several rounds and compares medians: a slow spell then hits both sides.

Usage: python3 bench/compare.py [--data PATH] [--k 30] [--iters 30] [--rounds 5] [--loss frobenius|kl] [--bin bin/manifactor]
                                [--variants all|default] [--solver mu]

With --loss kl it compares NMF(beta_loss="kullback-leibler") with
`manifactor bench --method nmf-kl`, and reports LPNMF (p = 5, lambda = 100)
against NMF-KL with its conjugate-gradient counts.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
import sklearn
from sklearn.decomposition import NMF


def prepare(path):
    """TDT2 as the papers prepare it and as `--weighting tfidf --normalize l2` does:
    drop all-zero terms, x = tf * log(n / df), unit-length documents."""
    m = scipy.io.loadmat(path)
    x = sp.csr_matrix(m["fea"], dtype=np.float64)
    df = np.asarray((x > 0).sum(axis=0)).ravel()
    x = x[:, df > 0]
    df = df[df > 0]
    n = x.shape[0]
    x = x.multiply(np.log(n / df)).tocsr()
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    norms[norms == 0] = 1
    x = sp.diags(1 / norms) @ x
    return sp.csr_matrix(x)


def sklearn_ms_per_iter(x, k, iters, beta_loss):
    """Time per iteration with setup excluded: the difference of two fits
    that differ only in max_iter."""
    def fit(max_iter):
        model = NMF(n_components=k, solver="mu", beta_loss=beta_loss, init="random",
                    tol=0, max_iter=max_iter, random_state=0)
        t = time.perf_counter()
        model.fit_transform(x)
        return time.perf_counter() - t, model.n_iter_
    short = max(2, iters // 5)
    t1, n1 = fit(short)
    t2, n2 = fit(short + iters)
    return 1000 * (t2 - t1) / (n2 - n1)


def manifactor(binary, data, k, iters, extra, method="nmf"):
    cmd = [binary, "bench", "--data", data, "--weighting", "tfidf", "--normalize", "l2", "--method", method,
           "--k", str(k), "--iters", str(iters), "--json"] + extra
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/tdt2/TDT2.mat")
    ap.add_argument("--k", type=int, default=30)
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--bin", default="bin/manifactor")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--loss", choices=["frobenius", "kl"], default="frobenius")
    ap.add_argument("--variants", choices=["all", "default"], default="all",
                    help="all: every BLAS and kernel path compiled in; default: the default one only")
    ap.add_argument("--solver", default="mu",
                    help="manifactor's --solver (mu: the same updates as scikit-learn's solver='mu')")
    args = ap.parse_args()
    if args.loss == "kl":
        return main_kl(args)
    if not os.path.exists(args.data):
        sys.exit(f"{args.data} not found: the real data sets live in ../shared/data")

    x = prepare(args.data)
    info = json.loads(subprocess.run([args.bin, "info", "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    variants = [(b, kern) for b, kern in [("openblas", "auto"), ("gonum", "auto"), ("gonum", "generic")]
                if b in info["blas_available"]]
    if args.variants == "default":
        variants = variants[:1]
    ref_times = []
    times = {v: [] for v in variants}
    gflops = {}
    names = {}
    for r in range(args.rounds):
        ref_times.append(sklearn_ms_per_iter(x, args.k, args.iters, "frobenius"))
        for blas, kern in variants:
            out = manifactor(args.bin, args.data, args.k, args.iters,
                             ["--blas", blas, "--simd", kern, "--solver", args.solver])
            times[(blas, kern)].append(out["ms_per_iter"])
            gflops.setdefault((blas, kern), []).append(out["gflops"])
            names[(blas, kern)] = f"manifactor nmf ({out['blas']}, {out['kernels']} kernels)"
        print(f"round {r + 1}: scikit-learn {ref_times[-1]:.1f} ms; " +
              ", ".join(f"{b}/{k} {times[(b, k)][-1]:.1f} ms" for b, k in variants), file=sys.stderr)
    ref = statistics.median(ref_times)
    rows = [(names[v], statistics.median(times[v]), statistics.median(gflops[v]), min(times[v]), max(times[v]))
            for v in variants]

    print(f"{os.path.basename(args.data)} {x.shape[0]} docs x {x.shape[1]} terms, {x.nnz} non-zeros, k = {args.k}, "
          f"{args.iters} iterations, median of {args.rounds} alternating rounds; {info['cpu']}, {info['cores']} cores; "
          f"scikit-learn {sklearn.__version__}, numpy {np.__version__}, Python {platform.python_version()}\n")
    print("| implementation | ms/iter (median) | range | GFLOP/s | speed-up vs scikit-learn |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(f"| scikit-learn NMF(solver='mu', beta_loss='frobenius') | {ref:.1f} | "
          f"{min(ref_times):.1f}-{max(ref_times):.1f} | | 1.0x |")
    for name, ms, gf, lo, hi in rows:
        print(f"| {name} | {ms:.1f} | {lo:.1f}-{hi:.1f} | {gf:.2f} | {ref / ms:.1f}x |")


def main_kl(args):
    """NMF-KL against scikit-learn's KL multiplicative updates; LPNMF
    against NMF-KL, all alternated over rounds."""
    if not os.path.exists(args.data):
        sys.exit(f"{args.data} not found: the real data sets live in ../shared/data")
    x = prepare(args.data)
    info = json.loads(subprocess.run([args.bin, "info", "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    ref, kl, lp, cg = [], [], [], []
    for r in range(args.rounds):
        ref.append(sklearn_ms_per_iter(x, args.k, args.iters, "kullback-leibler"))
        # The same updates on both sides: --solver (mu by default), not
        # nmf-kl's default cd, whose iteration does more work.
        kl.append(manifactor(args.bin, args.data, args.k, args.iters, ["--solver", args.solver], "nmf-kl")["ms_per_iter"])
        out = manifactor(args.bin, args.data, args.k, args.iters,
                         ["--lambda", "100", "--neighbors", "5", "--solver", args.solver], "lpnmf")
        lp.append(out["ms_per_iter"])
        cg.append(out["cg"]["iterations"] / out["cg"]["solves"])
        print(f"round {r + 1}: scikit-learn {ref[-1]:.1f} ms, nmf-kl {kl[-1]:.1f} ms, lpnmf {lp[-1]:.1f} ms "
              f"({cg[-1]:.1f} CG iterations a solve)", file=sys.stderr)
    m = statistics.median
    print(f"TDT2 {x.shape[0]} docs x {x.shape[1]} terms, {x.nnz} non-zeros, k = {args.k}, "
          f"{args.iters} iterations, median of {args.rounds} alternating rounds; {info['cpu']}, {info['cores']} cores; "
          f"scikit-learn {sklearn.__version__}\n")
    print("| implementation | ms/iter (median) | range | ratio |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| scikit-learn NMF(solver='mu', beta_loss='kullback-leibler') | {m(ref):.1f} | {min(ref):.1f}-{max(ref):.1f} | 1.0x |")
    print(f"| manifactor nmf-kl ({info['blas']}, {info['kernels']} kernels) | {m(kl):.1f} | {min(kl):.1f}-{max(kl):.1f} | "
          f"{m(ref) / m(kl):.1f}x faster |")
    print(f"| manifactor lpnmf, p = 5, lambda = 100 | {m(lp):.1f} | {min(lp):.1f}-{max(lp):.1f} | "
          f"{m(lp) / m(kl):.2f}x nmf-kl; {m(cg):.1f} CG iterations a solve |")


if __name__ == "__main__":
    main()
