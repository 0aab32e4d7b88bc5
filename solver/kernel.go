package solver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/parallel"
)

// kernelMatrix is an explicit n x n kernel K = pos - neg, with pos and neg
// non-negative; neg.Data is nil when K has no negative entry. Concept
// factorization forms one only for non-linear kernels and for a linear
// kernel on data with negative entries; otherwise products with K are
// X^T (X B) and K never exists.
type kernelMatrix struct {
	n        int
	pos, neg blas64.General
	trace    float64
	sigma    float64 // the Gaussian width used
}

// newKernelMatrix forms the kernel of d's samples after checking that it
// fits in o.KernelMemory.
func newKernelMatrix(ctx context.Context, d *Data, o Options) (*kernelMatrix, error) {
	n := d.n
	need := float64(n) * float64(n) * 8
	if need > float64(o.KernelMemory) {
		return nil, fmt.Errorf("solver: the explicit %s kernel of %d samples needs %.2f GB, over the limit of %.2f GB (Options.KernelMemory); use the linear kernel on non-negative data, which never forms it, or fewer samples",
			o.Kernel.Kind, n, need/1e9, float64(o.KernelMemory)/1e9)
	}
	km := &kernelMatrix{n: n, pos: general(n, n)}
	if err := d.linearGram(ctx, km.pos, o.Threads); err != nil {
		return nil, err
	}
	k := km.pos.Data
	switch o.Kernel.Kind {
	case Polynomial:
		for i, x := range k {
			k[i] = math.Pow(x+o.Kernel.Coef0, float64(o.Kernel.Degree))
		}
	case Gaussian:
		diag := make([]float64, n)
		for i := range diag {
			diag[i] = k[i*n+i]
		}
		dist2 := func(i, j int) float64 { return max(0, diag[i]+diag[j]-2*k[i*n+j]) }
		sigma := o.Kernel.Sigma
		if sigma == 0 {
			sigma = meanDistance(n, o.Seed, dist2)
		}
		if !(sigma > 0) {
			return nil, fmt.Errorf("solver: Gaussian kernel width is %v: the samples are all identical", sigma)
		}
		km.sigma = sigma
		c := 1 / (2 * sigma * sigma)
		if math.IsInf(c, 0) {
			return nil, fmt.Errorf("solver: Gaussian kernel width %v is too small: 1/(2 sigma^2) overflows float64", sigma)
		}
		// dist2(i, j) reads only row i and the saved diagonal, so each row
		// can be rewritten in place once its own distances are taken.
		parallel.For(n, o.Threads, 64, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				row := k[i*n : (i+1)*n]
				for j := range row {
					row[j] = math.Exp(-dist2(i, j) * c)
				}
			}
		})
	}
	// A kernel value or sum that overflows would make every objective
	// NaN; say which parameters caused it instead.
	var negative bool
	var sum float64
	for i, x := range k {
		sum += math.Abs(x)
		if math.IsInf(sum, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("solver: the %s kernel overflows float64 (%s): K(%d,%d) = %v, and the kernel's sum reaches %v by there (1-based); lower the degree or scale the data",
				o.Kernel.Kind, o.Kernel.params(), i/n+1, i%n+1, x, sum)
		}
		negative = negative || x < 0
	}
	if negative {
		if 2*need > float64(o.KernelMemory) {
			return nil, fmt.Errorf("solver: the %s kernel of %d samples has negative entries; the general updates need it split in two, %.2f GB, over the limit of %.2f GB (Options.KernelMemory)",
				o.Kernel.Kind, n, 2*need/1e9, float64(o.KernelMemory)/1e9)
		}
		km.neg = general(n, n)
		for i, x := range k {
			if x < 0 {
				km.neg.Data[i], k[i] = -x, 0
			}
		}
	}
	km.setTrace()
	return km, nil
}

func (km *kernelMatrix) setTrace() {
	km.trace = 0
	for i := 0; i < km.n; i++ {
		km.trace += km.pos.Data[i*km.n+i]
		if km.neg.Data != nil {
			km.trace -= km.neg.Data[i*km.n+i]
		}
	}
}

// meanDistance estimates the mean distance between samples from the pairs
// of a seeded sample of at most 3000 of them, as the reference code does
// for kernel widths.
func meanDistance(n int, seed uint64, dist2 func(i, j int) float64) float64 {
	idx := rand.New(rand.NewPCG(seed, 0x6b65726e)).Perm(n)
	idx = idx[:min(n, 3000)]
	var s float64
	var pairs int
	for a := 0; a < len(idx); a++ {
		for b := a + 1; b < len(idx); b++ {
			s += math.Sqrt(dist2(idx[a], idx[b]))
			pairs++
		}
	}
	if pairs == 0 {
		return 0
	}
	return s / float64(pairs)
}

// rowSums returns K e.
func (km *kernelMatrix) rowSums() []float64 {
	s := make([]float64, km.n)
	for i := range s {
		for _, x := range km.pos.Data[i*km.n : (i+1)*km.n] {
			s[i] += x
		}
		if km.neg.Data != nil {
			for _, x := range km.neg.Data[i*km.n : (i+1)*km.n] {
				s[i] -= x
			}
		}
	}
	return s
}

// scale sets K <- diag(f) K diag(f).
func (km *kernelMatrix) scale(f []float64) {
	for _, m := range []blas64.General{km.pos, km.neg} {
		if m.Data == nil {
			continue
		}
		for i := 0; i < km.n; i++ {
			row := m.Data[i*km.n : (i+1)*km.n]
			for j := range row {
				row[j] *= f[i] * f[j]
			}
		}
	}
	km.setTrace()
}

// mul computes dst = m b for one part m of K, by BLAS.
func mulPart(dst, m, b blas64.General) {
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, m, b, 0, dst)
}

// linearGram fills dst (n x n) with X^T X: the inner products of the
// samples. For sparse X each row comes from the inverted index (the CSR of
// X, one row per feature), computed independently of the others.
func (d *Data) linearGram(ctx context.Context, dst blas64.General, threads int) error {
	n := d.n
	if d.xt == nil {
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, d.dense, d.dense, 0, dst)
		return ctx.Err()
	}
	var err error
	x, _ := d.sparseForms()
	parallel.For(n, threads, 64, func(lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		for i := lo; i < hi; i++ {
			acc := dst.Data[i*n : (i+1)*n]
			clear(acc)
			for q := d.xt.Indptr[i]; q < d.xt.Indptr[i+1]; q++ {
				t, v := d.xt.Ind[q], d.xt.Val[q]
				for r := x.Indptr[t]; r < x.Indptr[t+1]; r++ {
					acc[x.Ind[r]] += v * x.Val[r]
				}
			}
		}
	})
	if e := ctx.Err(); e != nil {
		err = e
	}
	return err
}
