package nmfstep

import "gonum.org/v1/gonum/blas/blas64"

// MUUpdate runs package solver's multiplicative half-step on the rows of
// f (r x k, stride k), the pass solver.Fit runs (paper 004's update,
// denominators floored at solver.Eps):
//
//	f <- f .* (N + A) ./ max(f S + deg .* f, Eps)
//
// with num the rows of N (r x k, row-major), s the k x k S (row-major),
// add the rows of A and deg a per-row scalar (both optional: GNMF's
// lambda W V and lambda D). With s nil f is left as it is. It returns
// sum_i f_i . (N_i + A_i) after the update, independent of threads.
//
// The pass is solver's own, built on its row machinery, so solver sets
// this when it is initialized; a rank of package dist, which imports
// solver, updates the rows it owns with it and so takes the step one
// process takes.
var MUUpdate func(f blas64.General, num, s, add, deg []float64, threads int) float64
