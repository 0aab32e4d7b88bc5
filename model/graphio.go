package model

import (
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/sparse"
)

// ReadGraph reads a user-supplied graph on n samples, such as a hyperlink
// graph, from a Matrix Market file (.mtx, or .mtx.gz compressed): an n x n
// matrix, coordinate or array, of finite non-negative weights, made
// undirected and free of self-loops as graph.FromWeights says (the notes
// count what changed). Errors name the file and the offending line or
// entry. Here rather than in graph, so that graph (and solver, which uses
// it) reads no files; matrixio.WriteMatrixMarket writes a graph's W in the
// form this reads back exactly.
func ReadGraph(path string, n int) (*graph.Graph, graph.ReadNotes, error) {
	a, dense, err := matrixio.ReadMatrixMarketFile(path)
	if err != nil {
		return nil, graph.ReadNotes{}, err
	}
	if dense != nil {
		a = sparse.FromMatrix(dense)
	}
	return graph.FromWeights(a, n, path)
}
