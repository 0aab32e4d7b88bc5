// Package sparse holds compressed sparse row (CSR) matrices and the linear
// algebra the factorizations need on them: CSR times dense and
// CSR-transpose times dense, the product of two dense factors sampled at a
// CSR pattern (for the KL methods), Jacobi-preconditioned conjugate
// gradients for sparse symmetric positive definite systems (one system, or
// a block of shifted graph Laplacians sharing one matrix, for LPNMF), and a
// randomized truncated SVD (for NNDSVD starts). Every parallel routine
// splits work so that each result is computed in a fixed order: results are
// bit-for-bit the same for any thread count.
//
// Invariants of a valid CSR (see Validate): row pointers start at zero, never
// decrease and end at the number of stored values; column indices of a row
// are in range, strictly increasing; values are finite. Constructors return
// errors for data that breaks them; methods panic only when the caller passes
// shapes that do not fit (a library bug, as in gonum).
//
// Dense operands are gonum blas64.General values: row-major with a stride.
//
// This package must not import dataset, solver, graph or anything that
// knows about files or flags.
//
// Importing this package installs the module's BLAS backend (package
// blas: OpenBLAS when compiled in) into gonum's blas64, for the whole
// program: a library user who imports sparse, graph or solver gets the
// same products as the command line, and every other blas64 call of the
// program runs that backend too (blas.Use("gonum") takes it back).
package sparse

// The backend is installed by package blas's init.
import _ "github.com/manifactor/manifactor/blas"
