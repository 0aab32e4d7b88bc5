#!/usr/bin/env python3
"""Online NMF: package solver/minibatch (internal/cmd/onlinefit) against
gensim's Nmf, on the same prepared matrix, alternating rounds.

The corpus is prepared as manifactor prepares it (internal/cmd/prepmtx:
(1 + ln tf) idf, documents at unit length) and written as Matrix Market,
documents as rows. gensim's Nmf streams it from disk (MmCorpus) with
chunksize 2,000 and the given passes, its other settings at their
defaults; onlinefit runs the same passes in batches of 2,000, reading
the prepared file whole, or with --parts N `manifactor fit --solver
minibatch` streams the corpus split into N parts of term counts
(manifactor split) from disk: a first pass learns the preparation, the
passes fit, and a last pass writes V, all timed (the summary's seconds;
clusters by the arg max of V, as gensim clusters none, unless --assign
kmeans; under --memory SIZE, default none).
Each side's basis is then scored the
same way: V fitted to it by non-negative least squares (50 sweeps), and
||X - V U^T||^2 over ||X||^2. Peak memory is each process's maximum
resident set (GNU time), fit and reading included.

    /usr/bin/python3 bench/online_gensim.py --data ../shared/data/tdt2/TDT2.mat
        [--k 50] [--passes 1] [--rounds 3] [--parts N [--memory SIZE] [--assign kmeans]]

Needs python3-gensim, SciPy, GNU time and the Go toolchain.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GENSIM = r"""
import sys, time, numpy as np, scipy.io
from gensim.corpora import MmCorpus
from gensim.models import Nmf
mm, k, passes, seed, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
corpus = MmCorpus(mm)
t = time.perf_counter()
m = Nmf(corpus, num_topics=k, chunksize=2000, passes=passes, random_state=seed)
secs = time.perf_counter() - t
scipy.io.mmwrite(out, m.get_topics().T)
print(secs)
"""


def timed(cmd):
    """Runs cmd under GNU time; returns its stdout and peak RSS in MB."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf.name] + cmd, check=True, capture_output=True, text=True)
        return r.stdout, int(open(tf.name).read().split()[-1]) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="a .mat corpus of term counts (fea)")
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--passes", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--parts", type=int, default=0)
    ap.add_argument("--memory", default="none", help="fit's --memory, with --parts")
    ap.add_argument("--assign", default="argmax", help="fit's --assign, with --parts")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fit = os.path.join(tmp, "onlinefit")
        subprocess.run(["go", "build", "-o", fit, "./internal/cmd/onlinefit"], cwd=ROOT, check=True)
        if a.parts:
            mf = os.path.join(tmp, "manifactor")
            subprocess.run(["go", "build", "-o", mf, "./cmd/manifactor"], cwd=ROOT, check=True)
            parts = os.path.join(tmp, "parts")
            subprocess.run([mf, "split", "--data", a.data, "--parts", str(a.parts), "--out", parts, "--quiet"], check=True)
        mtx = os.path.join(tmp, "x.mtx")
        prep = os.path.join(tmp, "prepmtx")
        subprocess.run(["go", "build", "-o", prep, "./internal/cmd/prepmtx"], cwd=ROOT, check=True)
        subprocess.run([prep, "--data", a.data, "--out", mtx], check=True)
        fits = []
        script = os.path.join(tmp, "gensim_nmf.py")
        open(script, "w").write(GENSIM)
        rows = {"manifactor": [], "gensim": []}
        for r in range(a.rounds):
            for side in (["manifactor", "gensim"] if r % 2 == 0 else ["gensim", "manifactor"]):
                basis = os.path.join(tmp, side + ".mtx")
                if side == "gensim":
                    out, rss = timed([sys.executable, script, mtx, str(a.k), str(a.passes), str(r + 1), basis])
                    secs = float(out.split()[-1])
                elif a.parts:
                    model = os.path.join(tmp, "model")
                    out, rss = timed([mf, "fit", "--data", parts, "--method", "nmf", "--k", str(a.k), "--solver", "minibatch",
                                      "--iters", str(a.passes), "--tol", "off", "--batch-size", "2000", "--assign", a.assign, "--seed", str(r + 1),
                                      "--quiet", "--json", "--memory", a.memory, "--out", model])
                    fits.append(json.loads(out))
                    secs = json.loads(out)["seconds"]
                    basis = os.path.join(model, "U.mtx")
                else:
                    out, rss = timed([fit, "--data", mtx, "--k", str(a.k), "--passes", str(a.passes), "--batch", "2000", "--seed", str(r + 1), "--out", basis])
                    secs = json.loads(out)["seconds"]
                sc = json.loads(subprocess.run([fit, "--data", mtx, "--score", basis], check=True, capture_output=True, text=True).stdout)
                rows[side].append((secs, rss, sc["relative"]))
        print("# %s, k = %d, %d pass(es), chunks of 2,000%s; medians of %d rounds" % (
            a.data, a.k, a.passes, ", manifactor fit streaming %d parts" % a.parts if a.parts else "", a.rounds))
        print("| run | fit seconds | peak RSS MB | ||X - V U^T||^2 / ||X||^2 |")
        print("| --- | ---: | ---: | ---: |")
        for side, rs in rows.items():
            med = [statistics.median(x[i] for x in rs) for i in range(3)]
            print("| %s | %.1f | %.0f | %.5f |" % (side, med[0], med[1], med[2]))
        for f in fits:
            print("# fit: mode %s, %d passes, %.1f s, accuracy %s, NMI %s" % (f.get("mode"), f["iterations"], f["seconds"], f.get("accuracy"), f.get("nmi")))


if __name__ == "__main__":
    main()
