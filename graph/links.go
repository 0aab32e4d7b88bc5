package graph

import (
	"context"
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// SparseLinks joins each row of query (new samples) to its p nearest rows
// of base (the samples a graph was built on), by cosine similarity, and
// returns the weights as a query x base CSR: the links s' an out-of-sample
// factorization needs (paper 002 eq. 30). Neighbours, ties and weights
// follow Sparse with the same opt, including the default heat kernel
// width, which is estimated from base as for base's own graph; a query
// row is not made symmetric with anything. Rows are independent, so the
// result does not depend on opt.Threads.
func SparseLinks(ctx context.Context, base, query *sparse.CSR, opt Options) (*sparse.CSR, error) {
	if base == nil || query == nil {
		return nil, fmt.Errorf("graph: nil data matrix")
	}
	if base.Cols != query.Cols {
		return nil, fmt.Errorf("graph: new samples have %d features, the base samples %d", query.Cols, base.Cols)
	}
	if err := base.Validate(); err != nil {
		return nil, fmt.Errorf("graph: base data: %w", err)
	}
	if err := query.Validate(); err != nil {
		return nil, fmt.Errorf("graph: new data: %w", err)
	}
	p, err := opt.neighbors(math.MaxInt)
	if err != nil {
		return nil, err
	}
	if p > base.Rows {
		return nil, fmt.Errorf("graph: p = %d neighbours among %d base samples", p, base.Rows)
	}
	sqBase, sqQuery := sparseSquaredNorms(base), sparseSquaredNorms(query)
	w, err := newWeigher(opt, append(append([]float64(nil), sqBase...), sqQuery...), func() (float64, error) {
		return sparseHeatT(ctx, base, opt.Seed, opt.Threads)
	})
	if err != nil {
		return nil, err
	}
	inv := make([]float64, base.Rows)
	for j, s := range sqBase {
		if s > 0 {
			inv[j] = 1 / math.Sqrt(s)
		}
	}
	bt := base.T() // one row per feature: the base samples that use it
	nb := base.Rows
	out := newLists(query.Rows, p)
	workers := parallel.Workers(query.Rows, opt.Threads, 16)
	accs := make([][]float64, workers)
	parallel.ForWorker(query.Rows, opt.Threads, 16, func(worker, lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		if accs[worker] == nil {
			accs[worker] = make([]float64, nb)
		}
		acc := accs[worker]
		for q := lo; q < hi; q++ {
			clear(acc)
			for t := query.Indptr[q]; t < query.Indptr[q+1]; t++ {
				f, v := query.Ind[t], query.Val[t]
				for r := bt.Indptr[f]; r < bt.Indptr[f+1]; r++ {
					acc[bt.Ind[r]] += v * bt.Val[r]
				}
			}
			// Only positive similarity makes a neighbour, as in Sparse;
			// scanning j upwards with a strict comparison keeps ties at
			// the lower index.
			for j, s := range acc {
				if k := s * inv[j]; k > out.thr[q] {
					out.insert(q, k, j, s)
				}
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out.links(w, nb)
}

// DenseLinks is SparseLinks for dense rows, by Euclidean distance as in
// Dense.
func DenseLinks(ctx context.Context, base, query *mat.Dense, opt Options) (*sparse.CSR, error) {
	if base == nil || query == nil || base.IsEmpty() || query.IsEmpty() {
		return nil, fmt.Errorf("graph: empty data matrix")
	}
	b, q := base.RawMatrix(), query.RawMatrix()
	if b.Cols != q.Cols {
		return nil, fmt.Errorf("graph: new samples have %d features, the base samples %d", q.Cols, b.Cols)
	}
	for _, g := range []blas64.General{b, q} {
		for i := 0; i < g.Rows; i++ {
			for j, x := range g.Data[i*g.Stride : i*g.Stride+g.Cols] {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("graph: value %v at sample %d, feature %d (1-based) is not finite", x, i+1, j+1)
				}
			}
		}
	}
	p, err := opt.neighbors(math.MaxInt)
	if err != nil {
		return nil, err
	}
	if p > b.Rows {
		return nil, fmt.Errorf("graph: p = %d neighbours among %d base samples", p, b.Rows)
	}
	sqBase, sqQuery := denseSquaredNorms(b), denseSquaredNorms(q)
	nb := b.Rows
	w, err := newWeigher(opt, append(append([]float64(nil), sqBase...), sqQuery...), func() (float64, error) {
		return denseHeatT(ctx, b, opt.Seed, opt.Threads)
	})
	if err != nil {
		return nil, err
	}
	out := newLists(q.Rows, p)
	for i := range out.thr {
		out.thr[i] = math.Inf(-1) // every base sample is a candidate
	}
	block := denseBlockRows(nb)
	dots := blas64.General{Rows: block, Cols: nb, Stride: nb, Data: make([]float64, block*nb)}
	for lo := 0; lo < q.Rows; lo += block {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+block, q.Rows)
		qb := blas64.General{Rows: hi - lo, Cols: q.Cols, Stride: q.Stride, Data: q.Data[lo*q.Stride:]}
		d := blas64.General{Rows: hi - lo, Cols: nb, Stride: nb, Data: dots.Data[:(hi-lo)*nb]}
		blas64.Gemm(gblas.NoTrans, gblas.Trans, 1, qb, b, 0, d)
		parallel.For(hi-lo, opt.Threads, 8, func(a, z int) {
			for r := a; r < z; r++ {
				i := lo + r
				row := d.Data[r*nb : (r+1)*nb]
				for j, dot := range row {
					// Larger keys are nearer: the negated squared distance.
					if k := -max(0, sqQuery[i]+sqBase[j]-2*dot); k > out.thr[i] {
						out.insert(i, k, j, dot)
					}
				}
			}
		})
	}
	return out.links(w, nb)
}

// links turns the candidate lists of query rows into a query x nb CSR of
// weights; the weigher's squared norms hold the nb base samples first,
// then the query samples.
func (l *lists) links(w *weigher, nb int) (*sparse.CSR, error) {
	n := len(l.thr)
	var ri, ci []int
	var v []float64
	for i := 0; i < n; i++ {
		for r := i * l.p; r < i*l.p+l.cnt[i]; r++ {
			if x := w.weight(nb+i, l.idx[r], l.dot[r]); x > 0 {
				ri, ci, v = append(ri, i), append(ci, l.idx[r]), append(v, x)
			}
		}
	}
	return sparse.FromTriplets(n, nb, ri, ci, v)
}
