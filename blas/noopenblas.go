//go:build !(cgo && openblas)

package blas

import gblas "gonum.org/v1/gonum/blas"

// This build has no OpenBLAS.
var (
	openblasImpl    gblas.Float64
	openblasThreads func(int)
)
