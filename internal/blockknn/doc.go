// Package blockknn lets package dist run package graph's exact neighbour
// search cut by blocks of samples, so that ranks that each hold some
// samples build, row for row, the graph graph.Sparse builds on all of
// them. The search is graph's own (its candidate lists, inner products
// and weights), so graph sets the hooks here when it is initialized, and
// its users never see the pieces.
//
// This package must not import graph, dist, model or cmd.
package blockknn
