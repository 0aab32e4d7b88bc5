package graph

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Candidates is Sparse's exact neighbour search cut by blocks: the p best
// candidates of a block of query samples, offered the base samples one
// block at a time (Offer), then turned into the queries' rows of the
// graph (Rows) once the choices of the other samples towards them are
// known. Processes that each hold some of the samples (package dist's
// ring) build the graph Sparse would build, row for row: the inner
// products are summed in the same order, and the candidate lists keep
// the best p under the same total order whatever order the blocks come
// in.
type Candidates struct {
	q0, n int // the first query's index, and the number of samples
	p     int
	opt   Options
	l     *lists
}

// Edge is a directed neighbour choice: sample From chose To, with their
// inner product Dot.
type Edge struct {
	From, To int
	Dot      float64
}

// NewCandidates returns the empty candidate lists of the nq queries q0,
// ..., q0+nq-1 among n samples, for a graph built as opt says. Only the
// exact search is cut by blocks (opt.Search AutoSearch runs it), and
// pruning by shared neighbours, which needs every sample's choices, is
// not available; Heat needs opt.HeatT, as its default comes from a sample
// of the whole data.
func NewCandidates(q0, nq, n int, opt Options) (*Candidates, error) {
	p, err := opt.neighbors(n)
	if err != nil {
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
	return &Candidates{q0: q0, n: n, p: p, opt: opt, l: newLists(nq, p)}, nil
}

// Offer offers the base samples, the rows of base (indices b0, b0+1,
// ...), as candidates of every query, the rows of query (indices q0, ...),
// each ranked by cosine similarity as Sparse ranks them (a query is not
// its own candidate). baseSq holds the base rows' squared lengths, as
// SquaredNorms gives them. Both matrices have every feature. ctx is
// checked between chunks of queries.
func (c *Candidates) Offer(ctx context.Context, query, base *sparse.CSR, b0 int, baseSq []float64, threads int) error {
	if query.Rows != len(c.l.cnt) || query.Cols != base.Cols || len(baseSq) != base.Rows || b0 < 0 || b0+base.Rows > c.n {
		panic(fmt.Sprintf("graph: Offer: %d x %d queries for %d lists, %d x %d base from %d of %d", query.Rows, query.Cols, len(c.l.cnt), base.Rows, base.Cols, b0, c.n))
	}
	if base.Rows == 0 || query.Rows == 0 {
		return nil
	}
	inv := make([]float64, base.Rows)
	for j, s := range baseSq {
		if s > 0 {
			inv[j] = 1 / math.Sqrt(s)
		}
	}
	ix := newPostings(base)
	accs := make([][]float64, parallel.Workers(query.Rows, threads, queryGrain))
	parallel.ForWorker(query.Rows, threads, queryGrain, func(worker, lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		if accs[worker] == nil {
			accs[worker] = make([]float64, base.Rows)
		}
		acc := accs[worker]
		for q := lo; q < hi; q++ {
			ix.scatterAll(acc, query, q)
			self := c.q0 + q - b0
			for j, s := range acc {
				if s == 0 || j == self {
					continue
				}
				if k := s * inv[j]; k > 0 && c.l.beats(q, k, b0+j) {
					c.l.insert(q, k, b0+j, s)
				}
			}
			clear(acc)
		}
	})
	return ctx.Err()
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
func (c *Candidates) Chosen(fn func(e Edge)) {
	l := c.l
	for i := range l.cnt {
		for r := i * l.p; r < i*l.p+l.cnt[i]; r++ {
			fn(Edge{From: c.q0 + i, To: l.idx[r], Dot: l.dot[r]})
		}
	}
}

// Rows returns the queries' rows of W, n columns: the graph Sparse
// builds, restricted to these rows, from the queries' own choices and
// incoming, the choices of the other samples that point at a query (in
// any order; others are ignored). sq holds every sample's squared length.
// The rows sum to the queries' degrees (Graph.Degree) in the same order.
func (c *Candidates) Rows(incoming []Edge, sq []float64) (*sparse.CSR, error) {
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

// SquaredNorms returns the squared length of each row of a, as Sparse
// computes them.
func SquaredNorms(a *sparse.CSR) []float64 { return sparseSquaredNorms(a) }
