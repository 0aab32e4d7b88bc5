package graph

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Graph is a weighted undirected graph on n samples: W is the n x n
// symmetric matrix of non-negative edge weights with a zero diagonal, and
// Degree[i] the sum of row i of W (the diagonal of D in L = D - W).
//
// Search is the neighbour search that Sparse or Dense ran (ExactSearch or
// ApproxSearch); it is AutoSearch, unknown, for a graph built otherwise.
type Graph struct {
	W      *sparse.CSR
	Degree []float64
	Search Search
	// Reach holds, for a graph that Sparse or Dense built, how near each
	// sample's p-th chosen neighbour is: the cosine similarity for Sparse
	// (0 when the sample found fewer than p), the squared Euclidean
	// distance for Dense (+Inf then). A new sample at least as near
	// would have been chosen too: SparseLinks and DenseLinks use it to
	// join new samples to the samples that would have chosen them. Nil
	// for a graph built otherwise.
	Reach []float64
}

// N returns the number of vertices (samples).
func (g *Graph) N() int { return g.W.Rows }

// NewGraph returns the graph with weight matrix w after checking it with
// Check; Degree is computed from w (W's row sums, each in stored order).
// The check runs on GOMAXPROCS goroutines.
func NewGraph(w *sparse.CSR) (*Graph, error) {
	g := &Graph{W: w}
	if w == nil {
		return nil, fmt.Errorf("graph: nil weight matrix")
	}
	deg, err := g.check()
	if err != nil {
		return nil, err
	}
	g.Degree = deg
	return g, nil
}

// Check reports whether g is a valid graph on n samples: square n x n,
// valid CSR, finite non-negative weights, no self-loops, symmetric, and
// a total weight (the sum of the degrees) that float64 holds. It runs on
// GOMAXPROCS goroutines; the error is the first a pass in row order meets.
func (g *Graph) Check(n int) error {
	if g == nil || g.W == nil {
		return fmt.Errorf("graph: nil graph")
	}
	if g.W.Rows != n {
		return fmt.Errorf("graph: %d x %d weight matrix for %d samples", g.W.Rows, g.W.Cols, n)
	}
	if _, err := g.check(); err != nil {
		return err
	}
	if len(g.Degree) != n {
		return fmt.Errorf("graph: %d degrees for %d vertices", len(g.Degree), n)
	}
	return nil
}

// check is Check's test of W, returning W's row sums (each in stored
// order, as sparse.CSR.RowSums adds them) when it passes.
func (g *Graph) check() ([]float64, error) {
	w := g.W
	if w.Rows != w.Cols {
		return nil, fmt.Errorf("graph: weight matrix is %d x %d, not square", w.Rows, w.Cols)
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	// The degrees, their total (the graph's volume, which the
	// scale-invariant lambda divides by) and lambda D must all be finite:
	// weights near the largest float64 pass one by one but not summed.
	// The rows are checked in parallel (every fit checks its graph, and
	// on one goroutine the symmetry test's lookups were a noticeable cost
	// of each fit on large graphs); the error is the one a pass in row
	// order meets first.
	n := w.Rows
	deg := make([]float64, n)
	const grain = 4096
	chunks := (n + grain - 1) / grain
	bad := make([]int, chunks) // the chunk's first bad row, n if none
	errs := make([]error, chunks)
	parallel.For(chunks, 0, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			bad[c] = n
		rows:
			for i := c * grain; i < min(n, (c+1)*grain); i++ {
				var d float64
				for p := w.Indptr[i]; p < w.Indptr[i+1]; p++ {
					if err := checkEntry(w, i, p); err != nil {
						bad[c], errs[c] = i, err
						break rows
					}
					d += w.Val[p]
				}
				deg[i] = d
			}
		}
	})
	first, err := n, error(nil)
	for c := range bad {
		if bad[c] < n {
			first, err = bad[c], errs[c]
			break
		}
	}
	var total float64
	for i := 0; i < first; i++ {
		if total += deg[i]; math.IsInf(total, 0) {
			return nil, fmt.Errorf("graph: the weights overflow: their sum reaches %v at vertex %d (1-based, degree %v); scale the weights down", total, i+1, deg[i])
		}
	}
	if err != nil {
		return nil, err
	}
	return deg, nil
}

// checkEntry reports what is wrong with W's stored entry p, in row i: a
// negative or NaN weight, a self-loop, or no equal weight at the mirror
// position.
func checkEntry(w *sparse.CSR, i, p int) error {
	j, v := w.Ind[p], w.Val[p]
	if v < 0 || math.IsNaN(v) {
		return fmt.Errorf("graph: weight %v at (%d,%d) (1-based) is not a non-negative number", v, i+1, j+1)
	}
	if j == i && v != 0 {
		return fmt.Errorf("graph: self-loop of weight %v at vertex %d (1-based)", v, i+1)
	}
	if t := w.At(j, i); t != v {
		return fmt.Errorf("graph: not symmetric: W(%d,%d) = %v but W(%d,%d) = %v (1-based)", i+1, j+1, v, j+1, i+1, t)
	}
	return nil
}

// Edges returns the number of undirected edges: the stored entries of W
// off the diagonal, each pair counted once. (Check allows stored zeros on
// the diagonal, which are not edges.)
func (g *Graph) Edges() int {
	off := g.W.NNZ()
	for i := 0; i < g.W.Rows; i++ {
		for p := g.W.Indptr[i]; p < g.W.Indptr[i+1]; p++ {
			if g.W.Ind[p] == i {
				off--
			}
		}
	}
	return off / 2
}

// Agreement returns the fraction of the edge weight that joins samples
// with the same label: the graph's label purity for true classes, one
// minus the weight a clustering cuts for predicted ones. It is 1 for a
// graph without edges. labels must have one entry per vertex.
func (g *Graph) Agreement(labels []int) float64 {
	if len(labels) != g.N() {
		panic("graph: Agreement needs one label per vertex")
	}
	var same, total float64
	w := g.W
	for i := 0; i < w.Rows; i++ {
		for p := w.Indptr[i]; p < w.Indptr[i+1]; p++ {
			total += w.Val[p]
			if labels[w.Ind[p]] == labels[i] {
				same += w.Val[p]
			}
		}
	}
	if total == 0 {
		return 1
	}
	return same / total
}

// MulTo computes dst = W v for v and dst n x k, using up to threads
// goroutines (threads <= 0 means GOMAXPROCS); the result does not depend on
// threads. It is the graph term of the regularized updates; the other one,
// D v, is row i of v times Degree[i]. dst must not overlap v.
func (g *Graph) MulTo(dst, v blas64.General, threads int) {
	g.W.MulDenseTo(dst, v, threads)
}

// Laplacian returns L = D - W, with every diagonal entry stored (zero for
// an isolated vertex). Each row of L sums to zero up to rounding.
func (g *Graph) Laplacian() *sparse.CSR {
	w := g.W
	n := w.Rows
	l := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Ind: make([]int, 0, w.NNZ()+n), Val: make([]float64, 0, w.NNZ()+n)}
	for i := 0; i < n; i++ {
		diag := false
		for p := w.Indptr[i]; p < w.Indptr[i+1]; p++ {
			j := w.Ind[p]
			if j > i && !diag {
				l.Ind, l.Val = append(l.Ind, i), append(l.Val, g.Degree[i])
				diag = true
			}
			if j != i {
				l.Ind, l.Val = append(l.Ind, j), append(l.Val, -w.Val[p])
			}
		}
		if !diag {
			l.Ind, l.Val = append(l.Ind, i), append(l.Val, g.Degree[i])
		}
		l.Indptr[i+1] = len(l.Ind)
	}
	return l
}

// isEmpty reports a nil matrix, a nil *mat.Dense or one without rows or
// columns.
func isEmpty(m mat.Matrix) bool {
	if m == nil {
		return true
	}
	if d, ok := m.(*mat.Dense); ok {
		return d == nil || d.IsEmpty()
	}
	r, c := m.Dims()
	return r == 0 || c == 0
}
