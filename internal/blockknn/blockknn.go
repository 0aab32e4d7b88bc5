package blockknn

import (
	"context"

	"github.com/manifactor/manifactor/sparse"
)

// Edge is a directed neighbour choice: sample From chose To, with their
// inner product Dot.
type Edge struct {
	From, To int
	Dot      float64
}

// Candidates holds the p best candidates of a block of query samples:
// offered the samples of other blocks (OfferPairs, which offers each
// pair to both of its samples), then turned into the queries' rows of
// the graph (Rows) once the choices of the other samples towards them
// are known. The inner products are summed in graph.Sparse's order, and
// the lists keep the best p under the same total order whatever order
// the blocks come in.
type Candidates interface {
	// OfferPairs offers every pair of a query (c's lists, rows qlo to
	// qhi-1 of query) and a base sample (b's lists, rows blo to bhi-1 of
	// base, b's queries being base's rows) once, to both. When b is c
	// (and base is query) only the pairs of distinct rows are met.
	// querySq and baseSq are all of query's and base's squared lengths
	// (SquaredNorms). The lists do not depend on threads.
	OfferPairs(ctx context.Context, query *sparse.CSR, querySq []float64, qlo, qhi int, b Candidates, base *sparse.CSR, baseSq []float64, blo, bhi int, threads int) error
	// Merge offers o's candidates of the same queries to these lists.
	Merge(o Candidates)
	// Encode returns the lists as values for a collective; Decode reads
	// them back into the lists of the nq queries q0, ..., with the
	// receiver's options. The round trip is exact.
	Encode() []float64
	Decode(v []float64, q0, nq int) Candidates
	// EncodedLen is the length of Encode's result for nq queries.
	EncodedLen(nq int) int
	// Chosen calls fn with every choice of the queries.
	Chosen(fn func(e Edge))
	// Rows returns the queries' rows of the graph's weights (n columns)
	// from their own choices and incoming, the other samples' choices
	// that point at a query (others are ignored); sq holds every
	// sample's squared length.
	Rows(incoming []Edge, sq []float64) (*sparse.CSR, error)
}

var (
	// New returns the empty candidate lists of the nq queries q0, ...,
	// q0+nq-1 among n samples, for a graph built as opt (a
	// graph.Options) says, or an error for the options a search by
	// blocks cannot follow.
	New func(q0, nq, n int, opt any) (Candidates, error)
	// SquaredNorms returns the squared length of each row of a, as
	// graph.Sparse computes them.
	SquaredNorms func(a *sparse.CSR) []float64
)
