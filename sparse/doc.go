// Package sparse holds compressed sparse row (CSR) matrices and the products
// the factorizations need: CSR times dense and CSR-transpose times dense,
// both parallel over blocks of output rows with no atomics, so that a result
// is bit-for-bit the same for any thread count.
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
package sparse
