// Package blas decides, in one place, which BLAS runs the dense products
// (GEMM, SYRK and friends) of the whole module.
//
// Two backends exist: OpenBLAS through gonum.org/v1/netlib, compiled in only
// with the build tag `openblas` (its cgo lives in blas/openblas), and gonum's
// pure-Go implementation, always present. When OpenBLAS is compiled in it is
// the default; MANIFACTOR_BLAS=gonum or Use("gonum") switches to pure Go.
// The choice is made once, before concurrent work starts, by installing the
// implementation with gonum's blas64.Use; callers then use blas64 directly.
//
// OpenBLAS runs on one thread: its own threads split a product in ways
// that depend on their number and so round differently for different
// thread counts. Its matrix products (Dgemm) run instead over blocks of
// the rows of C whose bounds depend on the product's shape alone, in
// parallel on SetThreads goroutines (rowBlocked), so that results are the
// same whatever the thread count, as the module promises.
//
// The choice is program-wide: gonum's blas64 holds one implementation for
// the whole process, so once this package is imported (sparse, graph and
// solver import it, so every program that factorizes does) every blas64
// call in the program, the caller's own included, runs the backend chosen
// here. A program that wants gonum's pure Go for its own products calls
// Use("gonum"), which the module's results do not depend on beyond
// round-off. `manifactor info` says which backend is installed.
//
// This package must not import anything of this module except
// blas/openblas.
package blas
