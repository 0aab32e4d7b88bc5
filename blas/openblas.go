//go:build cgo && openblas

package blas

import (
	gblas "gonum.org/v1/gonum/blas"

	"github.com/manifactor/manifactor/blas/openblas"
)

// Package-level variables are initialized before any init function runs,
// so init in blas.go already sees OpenBLAS when choosing the default.
var (
	openblasImpl    gblas.Float64 = openblas.Implementation{}
	openblasThreads               = openblas.SetThreads
)
