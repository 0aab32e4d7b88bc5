// Package openblas binds OpenBLAS through gonum.org/v1/netlib. It is built
// only with the tags cgo and openblas, so that machines without OpenBLAS
// still build the module; package blas installs it when present.
//
// This package must not import anything of this module.
package openblas
