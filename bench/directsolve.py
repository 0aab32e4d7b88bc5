#!/usr/bin/env python3
"""Fill of a sparse direct factorization of LPNMF's default system.

LPNMF's V update solves (G + lambda L) v_c = b_c for every column c. In
the default (scale-invariant) formulation lambda is per unit of mean
degree and U's column sums are 1, so with unit sample weights the matrix
is I + (lambda / mean degree) L for the whole fit. This script measures
what a sparse LU of that matrix (SuperLU through SciPy, symmetric mode,
two orderings) stores against the matrix itself: a direct solve costs
about that ratio of graph products per right-hand side, against the
handful of conjugate-gradient steps a solve of the papers' formulation
takes (docs/PERFORMANCE.md).

Usage: manifactor graph --data D --neighbors 5 --weight binary --out G.mtx
       python3 bench/directsolve.py G.mtx [LAMBDA]      (LAMBDA default 10)
Needs SciPy (Debian: python3-scipy).
"""
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    w = scipy.io.mmread(sys.argv[1]).tocsr()
    w = ((w + w.T) > 0).astype(float)
    n = w.shape[0]
    deg = np.asarray(w.sum(axis=1)).ravel()
    lam = float(sys.argv[2]) if len(sys.argv) == 3 else 10.0
    a = (sp.identity(n) + (lam / deg.mean()) * (sp.diags(deg) - w)).tocsc()
    for order in ("MMD_AT_PLUS_A", "COLAMD"):
        start = time.time()
        lu = sla.splu(a, permc_spec=order, diag_pivot_thresh=0.0, options=dict(SymmetricMode=True))
        seconds = time.time() - start
        fill = lu.L.nnz + lu.U.nnz
        print(f"{sys.argv[1]}: n {n}, matrix {a.nnz} entries; {order}: L + U {fill} entries "
              f"({fill / a.nnz:.1f}x the matrix), factored in {seconds:.2f} s")


if __name__ == "__main__":
    main()
