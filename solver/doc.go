// Package solver factorizes a non-negative data matrix X (m features x n
// samples) as X ~ U V^T with U (m x k) and V (n x k) non-negative.
//
// Fit runs one method, chosen by Options.Method, with the conventions of the
// reference MATLAB code that results are compared against: V is updated
// before U in each iteration, denominators are floored at 1e-10, and at the
// end U's columns are scaled to unit Euclidean length with V rescaled so
// that U V^T is unchanged. Each sample is then assigned to the factor with
// the largest entry of its row of V.
//
// The graph methods (GNMF, LCCF, LPNMF) take one of two formulations of
// their graph term (Options.Formulation). The papers' lambda Tr(V^T L V)
// is scale-degenerate: U D and V D^-1 fit X equally well but divide the
// graph term by D^2, so its minimum lies at U -> infinity and what a given
// lambda does depends on the start and on how long the updates run. The
// default, ScaleInvariant, weighs each column's graph term by the scale of
// its basis column and lambda by the graph's mean degree, so that lambda
// means the same on any data, start and graph; its updates keep the
// basis at unit scale and the objective non-increasing (see nmfIter,
// cfIter, klIter). Papers keeps the papers' objective to reproduce their
// tables.
//
// Options.Algorithm chooses how the objective is minimized: MU, the
// papers' multiplicative updates, or CD, coordinate descent (HasCD names
// the methods that have it). Every CD step sets one entry of a factor to
// a point no worse than where it was, with the other entries fixed, so
// the objective never increases: for the Frobenius methods the exact
// minimizer of a one-variable quadratic (GNMF's rows coupled by
// the graph are updated one graph colour at a time, in as many passes
// over the colours per data product as pay, each pass a sequence of such
// steps, cdGraphHalf), for
// NMF-KL and LPNMF a Newton step on a convex function whose derivative is
// concave, kept only when that concavity certifies a decrease (klstep.Row;
// LPNMF's symmetric-KL graph term keeps both properties, klGraphRow, and
// its rows of V are updated one graph colour at a time, cdGraphHalf).
// LPNMF's CD minimizes the objective as stated; its MU (paper 003's
// eq. 9) linearizes the graph term's logarithms and stops above it.
// The Frobenius CD, with or without a graph term, also extrapolates (Ang
// and Gillis 2019; Options.PlainCD turns it off): each iteration starts
// from the factors moved past the previous results by an adaptive
// momentum, and an iteration that would raise the objective is undone and
// made plainly, so the objective still never increases (
// GNMF's scale-invariant formulation rescales the driver's stored factors
// with the ones in use, which keeps every pair's objective).
//
// MiniBatch, for nmf, nmf-ncw and nmf-kl, runs package minibatch's online
// passes inside Fit, so that its starts, stopping rules and Result are
// the other solvers': an iteration is one pass over the samples, after
// which V is solved afresh for the pass's U. Its objective need not fall
// from pass to pass.
//
// Data.Hide leaves entries out of the objective: missing values, or
// entries held out to measure how well a rank predicts them. nmf, gnmf and
// nmf-kl (and their -ncw forms) then fit the other entries alone, under mu
// or cd, with the objective still never increasing; the hidden set costs
// O(|H| k) an iteration and is never an n x m array (see maskedIter).
//
// Results are identical for the same Seed whatever Options.Threads is: the
// sparse products compute each output row on one goroutine in a fixed
// order, and every reduction runs on one goroutine.
//
// The package uses sparse, blas (through gonum's blas64) and kernels; it
// must not import dataset, cluster, experiment or cmd, and it never reads
// files or prints.
//
// Importing this package installs the module's BLAS backend into gonum's
// blas64 for the whole program (see package blas).
package solver

// The backend is installed by package blas's init.
import _ "github.com/manifactor/manifactor/blas"
