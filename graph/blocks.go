package graph

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/manifactor/manifactor/internal/blockknn"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Package dist's ranks run Sparse's exact search cut by blocks.
func init() {
	blockknn.New = func(q0, nq, n int, opt any) (blockknn.Candidates, error) {
		return newBlocks(q0, nq, n, opt.(Options))
	}
	blockknn.SquaredNorms = func(a *sparse.CSR) []float64 { return sparseSquaredNorms(a, 0) }
}

// blocks is Sparse's exact neighbour search cut by blocks
// (blockknn.Candidates): the p best candidates of a block of query
// samples, offered the samples of other blocks (offerPairs, which offers
// each pair to both of its samples), then turned into the queries' rows
// of the graph (Rows) once the choices of the other samples towards them
// are known. Processes that each hold some of the samples (package
// dist's ring) build the graph Sparse would build, row for row: the
// inner products are summed in the same order, and the candidate lists
// keep the best p under the same total order whatever order the blocks
// come in.
type blocks struct {
	q0, n int // the first query's index, and the number of samples
	p     int
	opt   Options
	l     *lists
}

// newBlocks returns the empty candidate lists of the nq queries q0,
// ..., q0+nq-1 among n samples, for a graph built as opt says. Only the
// exact search is cut by blocks (opt.Search AutoSearch runs it), and
// pruning by shared neighbours, which needs every sample's choices, is
// not available; Heat needs opt.HeatT, as its default comes from a sample
// of the whole data.
func newBlocks(q0, nq, n int, opt Options) (*blocks, error) {
	p, err := opt.neighbors(n)
	if err != nil {
		return nil, err
	}
	if err := opt.checkSparseMetric(); err != nil {
		return nil, err
	}
	switch {
	case opt.Search == ApproxSearch:
		return nil, fmt.Errorf("graph: the approximate search is not cut by blocks; use the exact search")
	case opt.MinShared > 0:
		return nil, fmt.Errorf("graph: pruning by shared neighbours needs every sample's choices, which a search by blocks does not hold")
	case opt.Weight == Heat && opt.HeatT == 0:
		return nil, fmt.Errorf("graph: heat weights need their width t given (the default is estimated from a sample of the whole data)")
	case q0 < 0 || nq < 0 || q0+nq > n:
		return nil, fmt.Errorf("graph: queries %d..%d of %d samples", q0, q0+nq-1, n)
	}
	return &blocks{q0: q0, n: n, p: p, opt: opt, l: newLists(nq, p)}, nil
}

// scatterAll adds the products of row q of query with every indexed row
// into acc: acc[j] += x_qt x_jt over the postings of each feature t of
// row q, in the row's order, so each product is summed over the shared
// features in increasing feature order, as scatterAfter sums it.
func (ix *postings) scatterAll(acc []float64, query *sparse.CSR, q int) {
	p0, p1 := query.Indptr[q], query.Indptr[q+1]
	for k, t := range query.Ind[p0:p1] {
		x := query.Val[p0+k]
		if x == 0 {
			continue
		}
		docs, vals := ix.doc[ix.ptr[t]:ix.ptr[t+1]], ix.val[ix.ptr[t]:ix.ptr[t+1]]
		for r, d := range docs {
			acc[d] += x * vals[r]
		}
	}
}

// Chosen calls fn with every choice of the queries: their p best
// candidates, once every base sample has been offered.
func (c *blocks) Chosen(fn func(e blockknn.Edge)) {
	l := c.l
	for i := range l.cnt {
		for r := i * l.p; r < i*l.p+l.cnt[i]; r++ {
			fn(blockknn.Edge{From: c.q0 + i, To: l.idx[r], Dot: l.dot[r]})
		}
	}
}

// Rows returns the queries' rows of W, n columns: the graph Sparse
// builds, restricted to these rows, from the queries' own choices and
// incoming, the choices of the other samples that point at a query (in
// any order; others are ignored). sq holds every sample's squared length.
// The rows sum to the queries' degrees (Graph.Degree) in the same order.
func (c *blocks) Rows(incoming []blockknn.Edge, sq []float64) (*sparse.CSR, error) {
	if len(sq) != c.n {
		panic(fmt.Sprintf("graph: Rows: %d squared lengths for %d samples", len(sq), c.n))
	}
	w, err := newWeigher(c.opt, sq, nil)
	if err != nil {
		return nil, err
	}
	l, nq := c.l, len(c.l.cnt)
	type link struct {
		j       int
		x       float64
		out, in bool
	}
	rows := make([][]link, nq)
	add := func(i, j int, x float64, out bool) {
		rows[i] = append(rows[i], link{j: j, x: x, out: out, in: !out})
	}
	for i := 0; i < nq; i++ {
		for r := i * l.p; r < i*l.p+l.cnt[i]; r++ {
			add(i, l.idx[r], w.weight(c.q0+i, l.idx[r], l.dot[r]), true)
		}
	}
	for _, e := range incoming {
		if i := e.To - c.q0; i >= 0 && i < nq {
			add(i, e.From, w.weight(e.To, e.From, e.Dot), false)
		}
	}
	out := &sparse.CSR{Rows: nq, Cols: c.n, Indptr: make([]int, nq+1)}
	for i, r := range rows {
		// A pair chosen from both ends appears twice: merged, with the
		// larger weight (the weights are equal: same inner product).
		slices.SortFunc(r, func(a, b link) int { return a.j - b.j })
		for q := 0; q < len(r); {
			k := r[q]
			for q++; q < len(r) && r[q].j == k.j; q++ {
				k.x = max(k.x, r[q].x)
				k.out, k.in = k.out || r[q].out, k.in || r[q].in
			}
			if c.opt.Symmetry == Mutual && !(k.out && k.in) || !(k.x > 0) {
				continue
			}
			out.Ind, out.Val = append(out.Ind, k.j), append(out.Val, k.x)
		}
		out.Indptr[i+1] = len(out.Ind)
	}
	return out, nil
}

// OfferPairs (offerPairs) offers every pair of a query and a base sample once, to
// both: base samples as candidates of the queries (c's lists, rows qlo to
// qhi-1 of query) and the queries as candidates of the base samples (b's
// lists, rows blo to bhi-1 of base, b's queries being base's rows), each
// pair's inner product summed once, as Sparse sums it. Ranks that each
// hold some samples meet every pair once this way (package dist's half
// ring), where Offer meets it from both sides. When b is c (and base is
// query), only the pairs of distinct rows are met, each once, as Sparse
// does within its data. querySq and baseSq are all of query's and base's
// squared lengths. The base samples' candidates from different
// goroutines are kept apart and merged in a fixed order, so the lists do
// not depend on threads.
func (c *blocks) OfferPairs(ctx context.Context, query *sparse.CSR, querySq []float64, qlo, qhi int, b blockknn.Candidates, base *sparse.CSR, baseSq []float64, blo, bhi int, threads int) error {
	return c.offerPairs(ctx, query, querySq, qlo, qhi, b.(*blocks), base, baseSq, blo, bhi, threads)
}

func (c *blocks) offerPairs(ctx context.Context, query *sparse.CSR, querySq []float64, qlo, qhi int, b *blocks, base *sparse.CSR, baseSq []float64, blo, bhi int, threads int) error {
	if query.Rows != len(c.l.cnt) || base.Rows != len(b.l.cnt) || query.Cols != base.Cols || len(querySq) != query.Rows || len(baseSq) != base.Rows || b.p != c.p ||
		qlo < 0 || qhi < qlo || qhi > query.Rows || blo < 0 || bhi < blo || bhi > base.Rows {
		panic(fmt.Sprintf("graph: OfferPairs: rows %d..%d of %d x %d queries for %d lists, %d..%d of %d x %d base for %d lists", qlo, qhi, query.Rows, query.Cols, len(c.l.cnt), blo, bhi, base.Rows, base.Cols, len(b.l.cnt)))
	}
	self := b == c
	if self && (query != base || blo != 0 || bhi != base.Rows) {
		panic("graph: OfferPairs: a block with itself takes all its rows as base")
	}
	if qhi == qlo || bhi == blo {
		return nil
	}
	inv, invQ := inverses(baseSq), inverses(querySq)
	ix := newPostings(base.RowSlice(blo, bhi), threads)
	n := bhi - blo
	workers := parallel.Workers(qhi-qlo, threads, queryGrain)
	accs := make([][]float64, workers)
	back := make([]*lists, workers)
	parallel.ForWorker(qhi-qlo, threads, queryGrain, func(worker, lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		if accs[worker] == nil {
			accs[worker], back[worker] = make([]float64, n), newLists(base.Rows, b.p)
		}
		acc, bk := accs[worker], back[worker]
		for q := qlo + lo; q < qlo+hi; q++ {
			first := 0
			if self {
				// The pairs after q only: its products with the later
				// rows, from the postings after its own.
				ix.scatterAfter(acc, query, q)
				first = q + 1
			} else {
				ix.scatterAll(acc, query, q)
			}
			iq := invQ[q]
			for r := first; r < n; r++ {
				s := acc[r]
				if s == 0 {
					continue
				}
				j := blo + r
				if k := s * inv[j]; k > 0 && c.l.beats(q, k, b.q0+j) {
					c.l.insert(q, k, b.q0+j, s)
				}
				if k := s * iq; k > 0 && bk.beats(j, k, c.q0+q) {
					bk.insert(j, k, c.q0+q, s)
				}
			}
			clear(acc)
		}
	})
	for _, bk := range back {
		if bk == nil {
			continue
		}
		for j := blo; j < bhi; j++ {
			b.l.merge(j, bk)
		}
	}
	return ctx.Err()
}

// Merge offers o's candidates of the same queries to c's lists: the lists
// of one block of queries gathered elsewhere (Encode, Decode).
func (c *blocks) Merge(oc blockknn.Candidates) {
	o := oc.(*blocks)
	if o.q0 != c.q0 || len(o.l.cnt) != len(c.l.cnt) || o.p != c.p {
		panic(fmt.Sprintf("graph: Merge: lists of %d queries from %d into %d from %d", len(o.l.cnt), o.q0, len(c.l.cnt), c.q0))
	}
	for i := range c.l.cnt {
		c.l.merge(i, o.l)
	}
}

// Encode returns the lists as values (counts, then keys, indices and
// inner products), for a collective; Decode reads them back into empty
// lists of the same queries. Indices are below 2^53, so the round trip is
// exact.
func (c *blocks) Encode() []float64 {
	l := c.l
	out := make([]float64, 0, len(l.cnt)*(1+3*l.p))
	for _, n := range l.cnt {
		out = append(out, float64(n))
	}
	out = append(out, l.key...)
	for _, j := range l.idx {
		out = append(out, float64(j))
	}
	return append(out, l.dot...)
}

// EncodedLen is the length of Encode's result for nq queries.
func (c *blocks) EncodedLen(nq int) int { return nq * (1 + 3*c.p) }

// Decode returns the lists Encode wrote for the nq queries q0, ..., with
// the options of c.
func (c *blocks) Decode(v []float64, q0, nq int) blockknn.Candidates {
	d := &blocks{q0: q0, n: c.n, p: c.p, opt: c.opt, l: newLists(nq, c.p)}
	l, p := d.l, c.p
	for i := range l.cnt {
		l.cnt[i] = int(v[i])
	}
	copy(l.key, v[nq:nq+nq*p])
	for r := range l.idx {
		l.idx[r] = int(v[nq+nq*p+r])
	}
	copy(l.dot, v[nq+2*nq*p:nq+3*nq*p])
	for i, n := range l.cnt {
		if n == p {
			l.thr[i] = l.key[i*p+p-1]
		}
	}
	return d
}

// inverses returns 1 / sqrt(s) for each positive s, 0 for the others.
func inverses(sq []float64) []float64 {
	inv := make([]float64, len(sq))
	for j, s := range sq {
		if s > 0 {
			inv[j] = 1 / math.Sqrt(s)
		}
	}
	return inv
}
