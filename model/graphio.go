package model

import (
	"context"

	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/graphfile"
)

// Graph returns the p-nearest-neighbour graph of p's samples as o says,
// with o's Seed and Threads replaced by seed and threads: cosine
// neighbours for sparse samples, Euclidean for dense ones, as Fit builds
// it.
func (p *Prepared) Graph(ctx context.Context, o graph.Options, seed uint64, threads int) (*graph.Graph, error) {
	return buildGraph(ctx, p.Data, o, seed, threads)
}

// GraphMetric returns how Graph compares p's samples under o: by cosine
// similarity when they are sparse, else o.Metric resolved for their number
// of features (graph.Metric.ForDense).
func (p *Prepared) GraphMetric(o graph.Options) graph.Metric { return graphMetric(p.Data, o) }

// GraphRecall returns the share of the exact p nearest neighbours of
// queries samples drawn with seed that g, built by Graph with o, joins to
// them (graph.SparseRecall, graph.DenseRecall): how much an approximate
// search lost.
func (p *Prepared) GraphRecall(ctx context.Context, g *graph.Graph, o graph.Options, seed uint64, threads, queries int) (float64, error) {
	o.Seed, o.Threads = seed, threads
	if a := p.Data.Sparse; a != nil {
		return graph.SparseRecall(ctx, a, g, o, queries)
	}
	return graph.DenseRecall(ctx, p.Data.Dense, g, o, queries)
}

// ReadGraph reads a user-supplied graph on p's samples, such as a
// hyperlink graph, from a Matrix Market file (.mtx, or .mtx.gz
// compressed): an n x n matrix, coordinate or array, of finite
// non-negative weights, made undirected and free of self-loops as
// graph.FromWeights says (the notes count what changed). Errors name the
// file and the offending line or entry. The command line's graph --out
// writes a graph's W in the form this reads back exactly.
func (p *Prepared) ReadGraph(path string) (*graph.Graph, graph.ReadNotes, error) {
	n, _ := p.Data.Dims()
	return graphfile.Read(path, n)
}
