"""Write a .mat corpus of term counts prepared as manifactor prepares it
by default (terms no document uses dropped, (1 + ln tf) idf with
idf = ln(n / df), documents at unit length) as Matrix Market, for peers
that read files: features x samples with --transpose (RcppML's
orientation), samples x features without.

Usage: python3 bench/prepare.py DATA.mat OUT.mtx [--transpose]
"""

import sys

import numpy as np
import scipy.io
import scipy.sparse as sp


def prepare(path):
    x = sp.csr_matrix(scipy.io.loadmat(path)["fea"], dtype=np.float64)
    x.eliminate_zeros()
    df = np.asarray((x > 0).sum(axis=0)).ravel()
    x = x[:, df > 0]
    df = df[df > 0]
    x.data = 1 + np.log(x.data)
    x = sp.csr_matrix(x.multiply(np.log(x.shape[0] / df)))
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    norms[norms == 0] = 1
    return sp.csr_matrix(sp.diags(1 / norms) @ x)


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--transpose"):
        sys.exit(__doc__)
    x = prepare(sys.argv[1])
    print(f"{sys.argv[1]}: {x.shape[0]} samples x {x.shape[1]} features, {x.nnz} non-zeros", file=sys.stderr)
    scipy.io.mmwrite(sys.argv[2], x.T.tocsc() if len(sys.argv) == 4 else x)


if __name__ == "__main__":
    main()
