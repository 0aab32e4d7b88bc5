package graphfile

import (
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/sparse"
)

// Read reads a graph on n samples from a Matrix Market file (see
// model.Prepared.ReadGraph).
func Read(path string, n int) (*graph.Graph, graph.ReadNotes, error) {
	a, dense, err := matrixio.ReadMatrixMarketFile(path)
	if err != nil {
		return nil, graph.ReadNotes{}, err
	}
	if dense != nil {
		a = sparse.FromMatrix(dense)
	}
	return graph.FromWeights(a, n, path)
}
