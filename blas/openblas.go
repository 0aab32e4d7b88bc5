//go:build cgo && openblas

package blas

import (
	gblas "gonum.org/v1/gonum/blas"

	"github.com/manifactor/manifactor/blas/openblas"
)

// Use("auto") installs openblasImpl when this file is compiled in.
var (
	openblasImpl    gblas.Float64 = newRowBlocked(openblas.Implementation{})
	openblasThreads               = setRowBlockedThreads
)

func init() {
	// OpenBLAS's own threads split a product in ways that depend on
	// their number, and so round differently for different --threads
	// (COIL20's factors differed from 1 to 2 threads). It runs on one
	// thread; rowBlocked parallelizes the large products over row blocks
	// whose bounds do not depend on the thread count.
	openblas.SetThreads(1)
}
