package graph

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// SparseRecall measures how well g, built by Sparse from a with opt (an
// approximate search, typically), keeps the exact neighbours: for each of
// queries samples drawn with opt.Seed (all samples when queries >= n), it
// finds the exact p nearest neighbours as Sparse's exact search would,
// ties included, and returns the share of them that g joins to the query.
// An edge that exists because the neighbour chose the query counts too,
// which under the Mutual rule misses the neighbours that did not choose
// back. The cost is one exact query per sample drawn, through an inverted
// index of a, so a few thousand queries cost a small part of the exact
// graph on n samples.
func SparseRecall(ctx context.Context, a *sparse.CSR, g *Graph, opt Options, queries int) (float64, error) {
	if a == nil {
		return 0, fmt.Errorf("graph: nil data matrix")
	}
	n := a.Rows
	p, err := checkRecall(g, &opt, n, queries)
	if err != nil {
		return 0, err
	}
	if err := opt.checkSparseMetric(); err != nil {
		return 0, err
	}
	sq := sparseSquaredNorms(a, opt.Threads)
	ix := newPostings(a, opt.Threads)
	return recall(ctx, g, p, seededSample(n, queries, opt.Seed, recallStream), opt.Threads, func() func(q int, out *lists) {
		acc := make([]float64, n)
		return func(q int, out *lists) {
			// Products in the row's feature order, as the exact search sums
			// them; keys a_q . a_j / |a_j| as it ranks them.
			for r := a.Indptr[q]; r < a.Indptr[q+1]; r++ {
				at := ix.at[r]
				if at < 0 {
					continue
				}
				t, x := a.Ind[r], a.Val[r]
				lo := ix.ptr[t]
				for s, j := range ix.doc[lo:ix.ptr[t+1]] {
					acc[j] += x * ix.val[lo+s]
				}
			}
			for j, s := range acc {
				if s > 0 && j != q {
					out.offer(0, s/math.Sqrt(sq[j]), j, s)
				}
			}
			clear(acc)
		}
	})
}

// DenseRecall is SparseRecall for a graph that Dense built from a.
func DenseRecall(ctx context.Context, a mat.Matrix, g *Graph, opt Options, queries int) (float64, error) {
	if isEmpty(a) {
		return 0, fmt.Errorf("graph: empty data matrix")
	}
	raw := sparse.DenseOf(a).RawMatrix()
	n := raw.Rows
	p, err := checkRecall(g, &opt, n, queries)
	if err != nil {
		return 0, err
	}
	raw = metricView(raw, opt.Metric, opt.Threads)
	sq := denseSquaredNorms(raw)
	return recall(ctx, g, p, seededSample(n, queries, opt.Seed, recallStream), opt.Threads, func() func(q int, out *lists) {
		return func(q int, out *lists) {
			rq := raw.Data[q*raw.Stride : q*raw.Stride+raw.Cols]
			for j := 0; j < n; j++ {
				if j != q {
					d := asm.Dot(rq, raw.Data[j*raw.Stride:j*raw.Stride+raw.Cols])
					out.offer(0, -max(0, sq[q]+sq[j]-2*d), j, d)
				}
			}
		}
	})
}

// recallStream is the random stream of opt.Seed that draws the queries.
const recallStream = 0x726563616c6c // "recall"

func checkRecall(g *Graph, opt *Options, n, queries int) (int, error) {
	if err := g.Check(n); err != nil {
		return 0, err
	}
	if queries < 1 {
		return 0, fmt.Errorf("graph: %d recall queries, want at least 1", queries)
	}
	return opt.neighbors(n)
}

// recall runs exact(q, list) for each query, each worker with its own
// exact from newExact, and returns the share of the lists' entries that g
// joins to their query.
func recall(ctx context.Context, g *Graph, p int, qs []int, threads int, newExact func() func(q int, out *lists)) (float64, error) {
	found := make([]int, len(qs))
	total := make([]int, len(qs))
	parallel.For(len(qs), threads, 16, func(lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		exact := newExact()
		out := newLists(1, p)
		for t := lo; t < hi; t++ {
			q := qs[t]
			out.cnt[0], out.thr[0] = 0, math.Inf(-1)
			exact(q, out)
			w := g.W
			row := w.Ind[w.Indptr[q]:w.Indptr[q+1]]
			for _, j := range out.idx[:out.cnt[0]] {
				if _, ok := slices.BinarySearch(row, j); ok {
					found[t]++
				}
			}
			total[t] = out.cnt[0]
		}
	})
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var f, s int
	for t := range qs {
		f, s = f+found[t], s+total[t]
	}
	if s == 0 {
		return 1, nil
	}
	return float64(f) / float64(s), nil
}

// offer inserts candidate j into i's list when its key beats the bar;
// candidates must arrive in increasing j, so that a strictly better key is
// the tie rule.
func (l *lists) offer(i int, key float64, j int, dot float64) {
	if key > l.thr[i] {
		l.insert(i, key, j, dot)
	}
}
