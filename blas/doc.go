// Package blas decides, in one place, which BLAS runs the dense products
// (GEMM, SYRK and friends) of the whole module.
//
// Two backends exist: OpenBLAS through gonum.org/v1/netlib, compiled in only
// with the build tag `openblas` (its cgo lives in blas/openblas), and gonum's
// pure-Go implementation, always present. Nothing is installed on import:
// until a program calls Use, gonum's blas64 runs its own pure-Go default.
// Use("auto") installs OpenBLAS when it is compiled in (gonum otherwise);
// the command line calls it at start, with --blas or MANIFACTOR_BLAS when
// given (the package reads no environment). The choice is made before
// concurrent work starts, by installing the implementation with gonum's
// blas64.Use; callers then use blas64 directly.
//
// OpenBLAS runs on one thread: its own threads split a product in ways
// that depend on their number and so round differently for different
// thread counts. Its matrix products (Dgemm) run instead over blocks of
// the rows of C whose bounds depend on the product's shape alone, in
// parallel on SetThreads goroutines (rowBlocked), so that results are the
// same whatever the thread count, as the module promises.
//
// The choice is program-wide: gonum's blas64 holds one implementation for
// the whole process, so once a program calls Use every blas64 call in it,
// the caller's own included, runs the backend chosen here. The module's
// results do not depend on the backend beyond round-off. `manifactor info` says which backend is installed.
//
// This package must not import anything of this module except
// blas/openblas.
package blas
