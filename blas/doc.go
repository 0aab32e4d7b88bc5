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
// This package must not import anything of this module except
// blas/openblas.
package blas
