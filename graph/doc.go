// Package graph builds the nearest-neighbour graphs that regularize the
// manifold factorizations: p-nearest-neighbour graphs on sparse
// documents (cosine similarity, Sparse) and dense images (Dense: by
// correlation, cosine or Euclidean distance, Metric), weighted 0/1, by a
// heat kernel or by cosine similarity,
// symmetrized by the OR rule, with their degrees; user-supplied graphs
// from their weight matrices (FromWeights; model.Prepared.ReadGraph reads them from
// files); and the products the solvers need
// (MulTo for W V, Degree for D V, Laplacian for L = D - W).
//
// A Graph's W is symmetric and non-negative with a zero diagonal, and
// Degree holds its row sums; the graphs built here store only positive
// weights. Neighbours are exact (ExactSearch), ties going to the lower
// sample index, or found by NN-descent (ApproxSearch; SparseRecall and
// DenseRecall measure what it missed), and graphs are identical for any
// thread count. Sparse
// considers only samples at positive similarity as neighbours, so that an
// edge always means shared features; Dense considers every sample.
//
// This package uses sparse, kernels, internal/parallel and gonum's blas64
// (whose backend the blas package installs); it reads no files, and it
// must not import dataset, solver, cluster, model, experiment or cmd (so
// that solver, which uses it, stays clear of the text pipeline).
//
// Importing this package installs the module's BLAS backend into gonum's
// blas64 for the whole program (see package blas).
package graph

// The backend is installed by package blas's init.
import _ "github.com/manifactor/manifactor/blas"
