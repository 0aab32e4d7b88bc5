// Package graphfile reads a user-supplied sample graph from a file for
// model and the command line. It is apart from graph so that graph (and
// solver, which uses it) reads no files, and apart from matrixio so that
// the readers graph's own tests use do not import graph.
//
// It imports graph, sparse and internal/matrixio; it must not import
// dataset, model or cmd.
package graphfile
