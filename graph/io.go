package graph

import (
	"fmt"
	"math"
	"strings"

	"github.com/manifactor/manifactor/sparse"
)

// ReadNotes says what Read changed to turn a file into a valid graph, so
// that a caller can tell the user. The zero value means nothing changed.
type ReadNotes struct {
	// Asymmetric counts the pairs i < j whose two directions had different
	// weights (one of them possibly absent), as in a directed hyperlink
	// graph; both directions got the larger weight.
	Asymmetric int
	// SelfLoops counts the non-zero diagonal entries dropped.
	SelfLoops int
}

// String describes the changes in a sentence, or returns "" when there
// were none.
func (r ReadNotes) String() string {
	var parts []string
	if r.Asymmetric > 0 {
		parts = append(parts, fmt.Sprintf("made %d asymmetric pairs symmetric by taking the larger weight", r.Asymmetric))
	}
	if r.SelfLoops > 0 {
		parts = append(parts, fmt.Sprintf("dropped %d self-loops", r.SelfLoops))
	}
	return strings.Join(parts, "; ")
}

// maxWeight is the largest edge weight FromWeights accepts: the graph
// term sums products of weights and squared factors, which leave float64
// above about 1e154 (the data's values have the same bound, in package
// model); a weight of 1e200 made GNMF report an objective of -4e183.
const maxWeight = 1e150

// FromWeights makes a graph on n samples from a user-supplied weight
// matrix, such as a hyperlink graph read from a file (model.Prepared.ReadGraph):
// an n x n matrix of finite non-negative weights of at most 1e150, W_ij
// being the weight of the edge between samples i and j. A directed graph is made
// undirected by the OR rule, W = max(W, W^T), and self-loops are dropped,
// as a graph regularizer gives them no meaning; the notes count both.
// Stored zeros are not edges. a is not modified. Errors begin with
// source and name the offending entry (1-based).
func FromWeights(a *sparse.CSR, n int, source string) (*Graph, ReadNotes, error) {
	if a == nil {
		return nil, ReadNotes{}, fmt.Errorf("%s: no weight matrix", source)
	}
	if err := a.Validate(); err != nil {
		return nil, ReadNotes{}, fmt.Errorf("%s: %w", source, err)
	}
	if a.Rows != n || a.Cols != n {
		return nil, ReadNotes{}, fmt.Errorf("%s: the graph is %d x %d, want %d x %d (one row and column per sample)", source, a.Rows, a.Cols, n, n)
	}
	for i := 0; i < a.Rows; i++ {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			if v := a.Val[p]; !(v >= 0) || math.IsInf(v, 0) {
				return nil, ReadNotes{}, fmt.Errorf("%s: weight %v at row %d, column %d (1-based) is negative or not finite; graph weights must be finite and non-negative", source, v, i+1, a.Ind[p]+1)
			} else if v > maxWeight {
				return nil, ReadNotes{}, fmt.Errorf("%s: weight %v at row %d, column %d (1-based) is above %g: the graph term's products of weights and factors would leave double precision (scale the weights down)", source, v, i+1, a.Ind[p]+1, maxWeight)
			}
		}
	}
	w, notes := symmetrizeMax(a)
	if w.NNZ() == 0 {
		// A graph term over no edges is zero: the graph method would be
		// the plain one, reported as regularized.
		return nil, notes, fmt.Errorf("%s: no edges of positive weight between distinct samples; the graph term would be zero (run the plain method, or --lambda 0)", source)
	}
	g, err := NewGraph(w)
	if err != nil {
		// symmetrizeMax leaves a valid graph; this guards the invariant.
		return nil, notes, fmt.Errorf("%s: %w", source, err)
	}
	return g, notes, nil
}

// symmetrizeMax returns max(a, a^T) without the diagonal and without
// zeros, for a square a with non-negative values, and what it changed.
func symmetrizeMax(a *sparse.CSR) (*sparse.CSR, ReadNotes) {
	var notes ReadNotes
	t := a.T()
	n := a.Rows
	w := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		// Merge row i of a and of a^T, both sorted by column.
		p, p1 := a.Indptr[i], a.Indptr[i+1]
		q, q1 := t.Indptr[i], t.Indptr[i+1]
		for p < p1 || q < q1 {
			var j int
			var x, y float64 // W_ij and W_ji
			switch {
			case q == q1 || p < p1 && a.Ind[p] < t.Ind[q]:
				j, x = a.Ind[p], a.Val[p]
				p++
			case p == p1 || t.Ind[q] < a.Ind[p]:
				j, y = t.Ind[q], t.Val[q]
				q++
			default:
				j, x, y = a.Ind[p], a.Val[p], t.Val[q]
				p++
				q++
			}
			if j == i {
				if x != 0 {
					notes.SelfLoops++
				}
				continue
			}
			if x != y && i < j {
				notes.Asymmetric++
			}
			if v := max(x, y); v != 0 {
				w.Ind, w.Val = append(w.Ind, j), append(w.Val, v)
			}
		}
		w.Indptr[i+1] = len(w.Ind)
	}
	return w, notes
}
