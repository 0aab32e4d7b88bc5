package sparse

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Defaults applied to the zero fields of SVDOptions.
const (
	defaultOversample = 10
	defaultPowerIters = 4
)

// svdStream is the PCG stream of TruncatedSVD's random test matrix ("svd"),
// so that it differs from the other seeded draws of a run with one Seed.
const svdStream = 0x737664

// SVDOptions configures TruncatedSVD; the zero value is sensible.
type SVDOptions struct {
	// Oversample is the number of random directions sampled beyond k; the
	// sketch has l = min(k+Oversample, min(r, c)) columns. 0 means 10; a
	// negative value means none.
	Oversample int
	// PowerIters is the number of subspace iterations, each one product
	// with a^T and one with a, that sharpen the sketch towards the leading
	// singular vectors: the error in direction i shrinks like
	// (s_{l+1}/s_i)^(2*PowerIters+1). 0 means 4, enough for the slowly
	// decaying spectra of text; a negative value means none.
	PowerIters int
	// Seed seeds the Gaussian test matrix, drawn from a PCG generator
	// seeded with (Seed, 0x737664).
	Seed uint64
	// Threads is the number of goroutines for the sparse products; 0 means
	// GOMAXPROCS. The result does not depend on it.
	Threads int
	// Center decomposes a - e mu^T, a with its column means mu
	// subtracted (principal component analysis), without forming it: each
	// product with a is corrected by a rank-one term, so a stays sparse.
	Center bool
	// T, when not nil, is a's transpose, which the products with a^T then
	// use instead of a copy made by TruncatedSVD (about a's memory). Only
	// its shape and its arrays' lengths are checked, and its rows' entries
	// may come in any order (a product with it does not depend on the
	// order of the entries in a row beyond the rounding of its sums).
	T *CSR
}

// TruncatedSVD returns the k leading singular triplets of a (r x c): u
// (r x k) and v (c x k) with orthonormal columns and s (k values,
// descending, non-negative) such that a ~ u diag(s) v^T, the best rank-k
// approximation when the sketch captures the leading singular subspace.
//
// It is the randomized subspace iteration of Halko, Martinsson and Tropp
// (SIAM Review 53(2), 2011, Algorithms 4.4 and 5.1), and never densifies
// a: with a Gaussian c x l test matrix G, Q = orth(a G); then PowerIters
// times Q = orth(a orth(a^T Q)); finally the thin SVD of the small
// c x l matrix B^T = a^T Q = W diag(s) Z^T gives u = Q Z and v = W, each
// cut to k columns. orth is a Householder QR (LAPACK geqrf and orgqr, so
// rank-deficient sketches still give orthonormal bases). The products with
// a and a^T are MulDenseTo on a and on a.T(), each costing 2 nnz l flops;
// the dense work is O((r+c) l^2).
//
// Signs are fixed: in each column of u the entry of largest magnitude (the
// first such on a tie) is positive, and the matching column of v follows.
// The result depends only on a, k and opt except Threads: it is
// bit-for-bit the same for any Threads (the sparse products sum in a fixed
// order, the dense steps run on the calling goroutine or in blas64's
// backend, whose results do not depend on Threads).
//
// a must pass Validate and have at least one row and one column; k must be
// in 1..min(r, c). An a without stored entries gives zero singular values
// and some orthonormal u and v. Unless opt.T gives it, it keeps a.T() for
// the products with a^T, about a's memory again. TruncatedSVD checks ctx
// before each power iteration and before the final product, and returns
// nil results with ctx.Err() when it is done.
func TruncatedSVD(ctx context.Context, a *CSR, k int, opt SVDOptions) (u *mat.Dense, s []float64, v *mat.Dense, err error) {
	if a == nil {
		return nil, nil, nil, fmt.Errorf("sparse: TruncatedSVD: matrix is nil")
	}
	if err := a.Validate(); err != nil {
		return nil, nil, nil, fmt.Errorf("sparse: TruncatedSVD: %w", err)
	}
	r, c := a.Dims()
	if r == 0 || c == 0 {
		return nil, nil, nil, fmt.Errorf("sparse: TruncatedSVD: matrix is %d x %d, want at least one row and one column", r, c)
	}
	if k < 1 || k > min(r, c) {
		return nil, nil, nil, fmt.Errorf("sparse: TruncatedSVD: k = %d, want 1 <= k <= %d (the smaller dimension of the %d x %d matrix)", k, min(r, c), r, c)
	}
	over := opt.Oversample
	if over == 0 {
		over = defaultOversample
	}
	iters := opt.PowerIters
	if iters == 0 {
		iters = defaultPowerIters
	}
	l := min(k+max(over, 0), r, c)
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}

	at := opt.T
	switch {
	case at == nil:
		at = a.T()
	case at.Rows != c || at.Cols != r || at.NNZ() != a.NNZ() || len(at.Indptr) != c+1 ||
		len(at.Ind) != len(at.Val) || at.Indptr[c] != len(at.Val):
		return nil, nil, nil, fmt.Errorf("sparse: TruncatedSVD: the transpose given is %d x %d with %d entries, want %d x %d with %d", at.Rows, at.Cols, at.NNZ(), c, r, a.NNZ())
	}
	// With Center, a G becomes a G - e (mu^T G) and a^T Q becomes
	// a^T Q - mu (e^T Q).
	var mu []float64
	if opt.Center {
		mu = a.ColSums()
		for j := range mu {
			mu[j] /= float64(r)
		}
	}
	mulA := func(dst, b blas64.General) {
		a.MulDenseTo(dst, b, opt.Threads)
		if mu == nil {
			return
		}
		corr := make([]float64, b.Cols) // mu^T b
		for j, m := range mu {
			for t, x := range b.Data[j*b.Stride : j*b.Stride+b.Cols] {
				corr[t] += m * x
			}
		}
		for i := range dst.Rows {
			row := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
			for t := range row {
				row[t] -= corr[t]
			}
		}
	}
	mulAT := func(dst, b blas64.General) {
		at.MulDenseTo(dst, b, opt.Threads)
		if mu == nil {
			return
		}
		colSum := make([]float64, b.Cols) // e^T b
		for i := range b.Rows {
			for t, x := range b.Data[i*b.Stride : i*b.Stride+b.Cols] {
				colSum[t] += x
			}
		}
		for j, m := range mu {
			row := dst.Data[j*dst.Stride : j*dst.Stride+dst.Cols]
			for t := range row {
				row[t] -= m * colSum[t]
			}
		}
	}
	g := newGeneral(c, l) // the test matrix, then a^T Q
	rng := rand.New(rand.NewPCG(opt.Seed, svdStream))
	for i := range g.Data {
		g.Data[i] = rng.NormFloat64()
	}
	q := newGeneral(r, l)
	var qr householder
	mulA(q, g)
	qr.orthonormalize(q)
	for range max(iters, 0) {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		mulAT(g, q)
		qr.orthonormalize(g)
		mulA(q, g)
		qr.orthonormalize(q)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	// B = Q^T a is l x c; its transpose a^T Q is the tall matrix that gonum's
	// SVD takes directly: a^T Q = W S Z^T, so Q^T a = Z S W^T and
	// a ~ Q Q^T a = (Q Z) S W^T.
	mulAT(g, q)
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(c, l, g.Data), mat.SVDThin) {
		return nil, nil, nil, fmt.Errorf("sparse: TruncatedSVD: the %d x %d projected SVD did not converge", c, l)
	}
	var w, z mat.Dense
	svd.UTo(&w)
	svd.VTo(&z)
	s = svd.Values(nil)[:k:k]

	uRaw := newGeneral(r, k)
	zk := z.RawMatrix()
	zk.Cols = k
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, q, zk, 0, uRaw)
	vRaw := newGeneral(c, k)
	wr := w.RawMatrix()
	for i := range c {
		copy(vRaw.Data[i*k:(i+1)*k], wr.Data[i*wr.Stride:i*wr.Stride+k])
	}
	fixSigns(uRaw, vRaw)
	return mat.NewDense(r, k, uRaw.Data), s, mat.NewDense(c, k, vRaw.Data), nil
}

func newGeneral(r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
}

// householder holds the scratch of repeated thin QR factorizations.
type householder struct {
	tau, work []float64
}

// orthonormalize overwrites a (m x n, m >= n) with the n orthonormal
// columns Q of its Householder QR factorization a = Q R.
func (h *householder) orthonormalize(a blas64.General) {
	n := a.Cols
	if cap(h.tau) < n {
		h.tau = make([]float64, n)
	}
	h.tau = h.tau[:n]
	var query [1]float64
	lapack64.Geqrf(a, h.tau, query[:], -1)
	need := int(query[0])
	lapack64.Orgqr(a, h.tau, query[:], -1)
	need = max(need, int(query[0]), n, 1)
	if len(h.work) < need {
		h.work = make([]float64, need)
	}
	lapack64.Geqrf(a, h.tau, h.work, len(h.work))
	lapack64.Orgqr(a, h.tau, h.work, len(h.work))
}

// fixSigns flips the sign of column j of u and of v wherever the entry of
// largest magnitude in column j of u (the first such) is negative.
func fixSigns(u, v blas64.General) {
	for j := range u.Cols {
		at, big := 0, -1.0
		for i := range u.Rows {
			if m := math.Abs(u.Data[i*u.Stride+j]); m > big {
				at, big = i, m
			}
		}
		if u.Data[at*u.Stride+j] >= 0 {
			continue
		}
		for i := range u.Rows {
			u.Data[i*u.Stride+j] = -u.Data[i*u.Stride+j]
		}
		for i := range v.Rows {
			v.Data[i*v.Stride+j] = -v.Data[i*v.Stride+j]
		}
	}
}
