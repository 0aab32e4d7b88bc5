package graph

import (
	"context"
	"fmt"
	"math"
	"slices"

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
// width, which is estimated from base as for base's own graph.
//
// With reach, base's graph's Reach (nil: none), a new sample is also
// joined to the base samples that would have chosen it, those at least
// as near as their own p-th neighbour (to round-off), and the two sets
// are combined by opt.Symmetry as the graph's own edges were: the new
// sample's row is then what its row of the graph would have been had it
// been one of the base samples (but for shared-neighbour pruning, which
// links skip). A base sample the same as the new one (cosine 1, or
// distance 0, to round-off; the first of several) stands for it and is
// not linked: a base sample queried again gets its own row of the graph,
// and a copy of one gets the links the original has. Rows are
// independent, so the result does not depend on opt.Threads.
func SparseLinks(ctx context.Context, base, query *sparse.CSR, reach []float64, opt Options) (*sparse.CSR, error) {
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
	if err := opt.checkSparseMetric(); err != nil {
		return nil, err
	}
	if p > base.Rows {
		return nil, fmt.Errorf("graph: p = %d neighbours among %d base samples", p, base.Rows)
	}
	if reach != nil && len(reach) != base.Rows {
		return nil, fmt.Errorf("graph: %d reaches for %d base samples", len(reach), base.Rows)
	}
	sqBase, sqQuery := sparseSquaredNorms(base, opt.Threads), sparseSquaredNorms(query, opt.Threads)
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
	in := make([][]chosen, query.Rows)
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
			self := -1
			if reach != nil && sqQuery[q] > 0 {
				iq := 1 / math.Sqrt(sqQuery[q])
				for j, s := range acc {
					if s > 0 && s*iq*inv[j] >= 1-sameTol {
						self = j
						break
					}
				}
				for j, s := range acc {
					if s > 0 && j != self && within(s*iq*inv[j], reach[j], true) {
						in[q] = append(in[q], chosen{j, s})
					}
				}
			}
			for j, s := range acc {
				if k := s * inv[j]; k > out.thr[q] && j != self {
					out.insert(q, k, j, s)
				}
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out.links(w, nb, in, reach != nil, opt.Symmetry)
}

// sameTol is how near, relative to round-off, a base sample must be to a
// new one to stand for it (see SparseLinks).
const sameTol = 1e-12

// chosen is a base sample that would choose a new one, and their inner
// product.
type chosen struct {
	j   int
	dot float64
}

// within reports whether a new sample at nearness x (cosine similarity
// when cosine, else squared distance) enters the list of a base sample of
// reach r: at least as near, to a relative 1e-9, so that a base sample
// queried again meets its own neighbours whatever the summation order.
func within(x, r float64, cosine bool) bool {
	const tol = 1e-9
	if cosine {
		return x >= r-tol*math.Abs(r)
	}
	return x <= r+tol*r
}

// DenseLinks is SparseLinks for dense rows, compared by opt.Metric as in
// Dense (reach then holds squared distances in that metric's space, as
// Dense's Graph.Reach does).
func DenseLinks(ctx context.Context, base, query mat.Matrix, reach []float64, opt Options) (*sparse.CSR, error) {
	if isEmpty(base) || isEmpty(query) {
		return nil, fmt.Errorf("graph: empty data matrix")
	}
	b, q := sparse.DenseOf(base).RawMatrix(), sparse.DenseOf(query).RawMatrix()
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
	if reach != nil && len(reach) != b.Rows {
		return nil, fmt.Errorf("graph: %d reaches for %d base samples", len(reach), b.Rows)
	}
	b, q = metricView(b, opt.Metric, opt.Threads), metricView(q, opt.Metric, opt.Threads)
	sqBase, sqQuery := denseSquaredNorms(b), denseSquaredNorms(q)
	nb := b.Rows
	w, err := newWeigher(opt, append(append([]float64(nil), sqBase...), sqQuery...), func() (float64, error) {
		return denseHeatT(ctx, b, opt.Seed, opt.Threads)
	})
	if err != nil {
		return nil, err
	}
	out := newLists(q.Rows, p)
	in := make([][]chosen, q.Rows)
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
				self := -1
				if reach != nil {
					for j, dot := range row {
						if max(0, sqQuery[i]+sqBase[j]-2*dot) <= sameTol*(sqQuery[i]+sqBase[j]) {
							self = j
							break
						}
					}
					for j, dot := range row {
						if j != self && within(max(0, sqQuery[i]+sqBase[j]-2*dot), reach[j], false) {
							in[i] = append(in[i], chosen{j, dot})
						}
					}
				}
				for j, dot := range row {
					// Larger keys are nearer: the negated squared distance.
					if k := -max(0, sqQuery[i]+sqBase[j]-2*dot); k > out.thr[i] && j != self {
						out.insert(i, k, j, dot)
					}
				}
			}
		})
	}
	return out.links(w, nb, in, reach != nil, opt.Symmetry)
}

// links turns the candidate lists of query rows into a query x nb CSR of
// weights; the weigher's squared norms hold the nb base samples first,
// then the query samples. With reverse, in[i] lists the base samples that
// would choose query i, joined to the chosen ones as sym says: all of
// them (Either), or only those i chose too (Mutual).
func (l *lists) links(w *weigher, nb int, in [][]chosen, reverse bool, sym Symmetry) (*sparse.CSR, error) {
	n := len(l.thr)
	var ri, ci []int
	var v []float64
	for i := 0; i < n; i++ {
		out := l.idx[i*l.p : i*l.p+l.cnt[i]]
		for r := i * l.p; r < i*l.p+l.cnt[i]; r++ {
			j := l.idx[r]
			if reverse && sym == Mutual && !slices.ContainsFunc(in[i], func(c chosen) bool { return c.j == j }) {
				continue
			}
			if x := w.weight(nb+i, j, l.dot[r]); x > 0 {
				ri, ci, v = append(ri, i), append(ci, j), append(v, x)
			}
		}
		if reverse && sym != Mutual {
			for _, c := range in[i] {
				if slices.Contains(out, c.j) {
					continue
				}
				if x := w.weight(nb+i, c.j, c.dot); x > 0 {
					ri, ci, v = append(ri, i), append(ci, c.j), append(v, x)
				}
			}
		}
	}
	return sparse.FromTriplets(n, nb, ri, ci, v)
}
